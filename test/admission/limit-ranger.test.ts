// LimitRange and LimitRanger: the kind's validation, defaults filled into a new pod's containers,
// and min, max and limit/request ratio refused per Container, per Pod and per claim, in the
// reference plugin's words.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from '../resources/suite.js'

const ns = '/api/v1/namespaces/default'

describe('LimitRange and LimitRanger admission', () => {
  const app = suiteApp()
  const post = (path: string, body: Record<string, unknown>) => app().request({ method: 'POST', url: `${ns}/${path}`, payload: body })
  const range = (name: string, limits: unknown[]) => post('limitranges', { metadata: { name }, spec: { limits } })
  const pod = (name: string, containers: unknown[], extra: Record<string, unknown> = {}) => post('pods', { metadata: { name }, spec: { containers, ...extra } })
  const del = (path: string) => app().request({ method: 'DELETE', url: `${ns}/${path}` })

  it('validates ranges: types, resource names, min <= defaultRequest <= default <= max, ratios', async () => {
    assertInvalid(await range('bad-type', [{ type: 'Node', max: { cpu: '1' } }]), 'spec.limits[0].type', 'FieldValueInvalid', 'must be a standard limit type or fully qualified')
    assertInvalid(await range('twice', [{ type: 'Pod', max: { cpu: '1' } }, { type: 'Pod', max: { cpu: '2' } }]), 'spec.limits[1].type', 'FieldValueDuplicate')
    assertInvalid(await range('min-max', [{ type: 'Container', min: { cpu: '200m' }, max: { cpu: '100m' } }]), 'spec.limits[0].min[cpu]', 'FieldValueInvalid', 'min value 200m is greater than max value 100m')
    assertInvalid(await range('request-default', [{ type: 'Container', default: { memory: '64Mi' }, defaultRequest: { memory: '128Mi' } }]),
      'spec.limits[0].defaultRequest[memory]', 'FieldValueInvalid', 'default request value 128Mi is greater than default limit value 64Mi')
    assertInvalid(await range('pod-default', [{ type: 'Pod', default: { cpu: '1' } }]), 'spec.limits[0].default', 'FieldValueForbidden', "may not be specified when `type` is 'Pod'")
    assertInvalid(await range('claim-empty', [{ type: 'PersistentVolumeClaim', default: { storage: '1Gi' } }]), 'spec.limits[0].limits', 'FieldValueRequired')
    assertInvalid(await range('claim-cpu', [{ type: 'PersistentVolumeClaim', max: { cpu: '1' } }]), 'spec.limits[0].max[cpu]', 'FieldValueInvalid', 'must be a standard resource type or fully qualified')
    assertInvalid(await range('ratio', [{ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }]), 'spec.limits[0].maxLimitRequestRatio[cpu]', 'FieldValueInvalid', 'ratio 500m is less than 1')
    assertInvalid(await range('hugepages', [{ type: 'Container', default: { 'hugepages-2Mi': '4Mi' }, defaultRequest: { 'hugepages-2Mi': '2Mi' } }]),
      'spec.limits[0].defaultRequest[hugepages-2Mi]', 'FieldValueInvalid', 'must equal to defaultRequest value')
  })

  it('defaults a Container item: the default limit from max, the default request from the default, else from min', async () => {
    const res = await range('derived', [{ type: 'Container', max: { cpu: '2' }, min: { memory: '16Mi' } }])
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().spec.limits[0].default, { cpu: '2' })
    assert.deepEqual(res.json().spec.limits[0].defaultRequest, { cpu: '2', memory: '16Mi' })
    assert.equal((await del('limitranges/derived')).statusCode, 200)
  })

  it('fills a new pod\'s containers with the default requests and limits and says so in an annotation', async () => {
    const created = await range('defaults', [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }])
    assert.equal(created.statusCode, 201, created.body)
    const res = await pod('filled', [{ name: 'app', image: 'nginx' }, { name: 'side', image: 'busybox', resources: { requests: { cpu: '50m' }, limits: { cpu: '200m' } } }])
    assert.equal(res.statusCode, 201, res.body)
    const [app1, side] = res.json().spec.containers
    assert.deepEqual(app1.resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } })
    assert.deepEqual(side.resources, { limits: { cpu: '200m', memory: '256Mi' }, requests: { cpu: '50m', memory: '256Mi' } })
    assert.equal(res.json().metadata.annotations['svc.io/limit-ranger'],
      'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app; memory request for container side; memory limit for container side')
    // A container that sets a limit only gets that limit as its request, not the range's default request.
    const limitOnly = await pod('limit-only', [{ name: 'app', image: 'nginx', resources: { limits: { cpu: '300m' } } }])
    assert.equal(limitOnly.statusCode, 201, limitOnly.body)
    assert.equal(limitOnly.json().spec.containers[0].resources.requests.cpu, '300m')
    assert.equal((await del('limitranges/defaults')).statusCode, 200)
  })

  it('refuses containers under the minimum, over the maximum or past the ratio', async () => {
    const created = await range('container-bounds', [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1', memory: '1Gi' }, maxLimitRequestRatio: { cpu: '4' } }])
    assert.equal(created.statusCode, 201, created.body)
    const low = await pod('low', [{ name: 'a', image: 'nginx', resources: { requests: { cpu: '50m' }, limits: { cpu: '100m', memory: '64Mi' } } }])
    assert.equal(low.statusCode, 403, low.body)
    assert.equal(low.json().message, 'pods "low" is forbidden: minimum cpu usage per Container is 100m, but request is 50m')
    const high = await pod('high', [{ name: 'a', image: 'nginx', resources: { requests: { cpu: '500m', memory: '2Gi' }, limits: { cpu: '2', memory: '2Gi' } } }])
    assert.equal(high.statusCode, 403, high.body)
    assert.equal(high.json().message, 'pods "high" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, maximum memory usage per Container is 1Gi, but limit is 2Gi]')
    const ratio = await pod('ratio', [{ name: 'a', image: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '64Mi' } } }])
    assert.equal(ratio.statusCode, 403, ratio.body)
    assert.equal(ratio.json().message, 'pods "ratio" is forbidden: cpu max limit to request ratio per Container is 4, but provided ratio is 10.000000')
    const fine = await pod('fine', [{ name: 'a', image: 'nginx', resources: { requests: { cpu: '200m', memory: '64Mi' }, limits: { cpu: '400m', memory: '64Mi' } } }])
    assert.equal(fine.statusCode, 201, fine.body)
    assert.equal((await del('limitranges/container-bounds')).statusCode, 200)
  })

  it('bounds the pod as a whole: the containers\' sum', async () => {
    const created = await range('pod-bounds', [{ type: 'Pod', max: { memory: '1Gi' } }])
    assert.equal(created.statusCode, 201, created.body)
    const sized = (mem: string) => ({ name: `c${mem.toLowerCase()}`, image: 'nginx', resources: { limits: { memory: mem } } })
    const over = await pod('two-big', [sized('600Mi'), sized('500Mi')])
    assert.equal(over.statusCode, 403, over.body)
    assert.equal(over.json().message, 'pods "two-big" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1100Mi')
    const under = await pod('two-small', [sized('500Mi'), sized('400Mi')])
    assert.equal(under.statusCode, 201, under.body)
    const unbounded = await pod('no-limit', [{ name: 'a', image: 'nginx' }])
    assert.equal(unbounded.statusCode, 403, unbounded.body)
    assert.equal(unbounded.json().message, 'pods "no-limit" is forbidden: maximum memory usage per Pod is 1Gi.  No limit is specified')
    assert.equal((await del('limitranges/pod-bounds')).statusCode, 200)
  })

  it('bounds a claim\'s storage request', async () => {
    const created = await range('storage', [{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }])
    assert.equal(created.statusCode, 201, created.body)
    const claim = (name: string, size: string) => post('persistentvolumeclaims', { metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } } })
    const small = await claim('small', '500Mi')
    assert.equal(small.statusCode, 403, small.body)
    assert.equal(small.json().message, 'persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi')
    const big = await claim('big', '20Gi')
    assert.equal(big.statusCode, 403, big.body)
    assert.equal(big.json().message, 'persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi')
    const ok = await claim('ok', '5Gi')
    assert.equal(ok.statusCode, 201, ok.body)
  })
})
