// ResourceQuota admission: object counts, compute, storage per class and scopes charged to
// status.used before the object is written; refusals in the reference plugin's words. The
// quotas' status is set by hand here (the controller is off), as admission reads it; the
// controller's own tests are in test/controllers/resource-quota.test.ts. Last, the charge is
// exact under concurrency: sixteen creators on two servers sharing a database, two slots.
import { describe, it, test } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from '../resources/suite.js'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { evaluatorFor } from '../../resources/quota-evaluators.js'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const quotas = (ns: string) => `/api/v1/namespaces/${ns}/resourcequotas`
type Obj = Record<string, any>

async function namespace (api: TestApp, name: string): Promise<void> {
  const res = await api.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name } } })
  assert.equal(res.statusCode, 201, res.body)
}

/** A quota whose status says `used` (hard as the spec), as the controller would write it. */
async function quota (api: TestApp, ns: string, name: string, spec: Obj, used: Record<string, string>): Promise<void> {
  const created = await api.request({ method: 'POST', url: quotas(ns), payload: { metadata: { name }, spec } })
  assert.equal(created.statusCode, 201, created.body)
  const status = await api.request({ method: 'PUT', url: `${quotas(ns)}/${name}/status`, payload: { ...(created.json() as Obj), status: { hard: spec.hard, used } } })
  assert.equal(status.statusCode, 200, status.body)
}

const usedOf = async (api: TestApp, ns: string, name: string): Promise<Record<string, string>> =>
  (await api.request({ method: 'GET', url: `${quotas(ns)}/${name}` })).json().status.used

describe('ResourceQuota admission', () => {
  const app = suiteApp({ controllers: ['*', '-resourcequota'] })
  const post = (ns: string, plural: string, body: Obj) => app().request({ method: 'POST', url: `/api/v1/namespaces/${ns}/${plural}`, payload: body })
  const container = (name: string, resources?: Obj) => ({ name, image: 'nginx', ...(resources === undefined ? {} : { resources }) })

  it('validates quotas: standard names, integers, scopes that fit the resources', async () => {
    await namespace(app(), 'checks')
    const create = (spec: Obj) => post('checks', 'resourcequotas', { metadata: { name: 'q' }, spec })
    assertInvalid(await create({ hard: { widgets: '1' } }), 'spec.hard[widgets]', 'FieldValueInvalid', 'must be a standard resource for quota')
    assertInvalid(await create({ hard: { pods: '1500m' } }), 'spec.hard[pods]', 'FieldValueInvalid', 'must be an integer')
    assertInvalid(await create({ hard: { 'requests.cpu': '-1' } }), 'spec.hard[requests.cpu]', 'FieldValueInvalid', 'must be greater than or equal to 0')
    assertInvalid(await create({ hard: { pods: '1' }, scopes: ['Everything'] }), 'spec.scopes', 'FieldValueInvalid', 'unsupported scope')
    assertInvalid(await create({ hard: { configmaps: '1' }, scopes: ['BestEffort'] }), 'spec.scopes', 'FieldValueInvalid', 'unsupported scope applied to resource')
    assertInvalid(await create({ hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] }), 'spec.scopes', 'FieldValueInvalid', 'conflicting scopes')
    assertInvalid(await create({ hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } }),
      'spec.scopeSelector.matchExpressions[0].values', 'FieldValueRequired')
    const ok = await create({ hard: { 'count/deployments.apps': '3', 'requests.nvidia.com/gpu': '2', 'gold.storageclass.storage.svc.io/requests.storage': '1Gi' } })
    assert.equal(ok.statusCode, 201, ok.body)
    assert.equal(ok.json().status, undefined, 'a new quota has no status until the controller counts')
  })

  it('counts objects: count/<resource> and the legacy names, refusing the one past the limit', async () => {
    await namespace(app(), 'counts')
    await quota(app(), 'counts', 'objects', { hard: { 'count/configmaps': '2', secrets: '1' } }, { 'count/configmaps': '0', secrets: '0' })
    for (const name of ['one', 'two']) assert.equal((await post('counts', 'configmaps', { metadata: { name } })).statusCode, 201)
    const third = await post('counts', 'configmaps', { metadata: { name: 'three' } })
    assert.equal(third.statusCode, 403, third.body)
    assert.equal(third.json().reason, 'Forbidden')
    assert.equal(third.json().message, 'configmaps "three" is forbidden: exceeded quota: objects, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2')
    assert.equal((await post('counts', 'secrets', { metadata: { name: 's1' } })).statusCode, 201)
    const secret = await post('counts', 'secrets', { metadata: { name: 's2' } })
    assert.equal(secret.json().message, 'secrets "s2" is forbidden: exceeded quota: objects, requested: secrets=1, used: secrets=1, limited: secrets=1')
    assert.deepEqual(await usedOf(app(), 'counts', 'objects'), { 'count/configmaps': '2', secrets: '1' })
    // A dry run is checked but never charged.
    const dry = await app().request({ method: 'POST', url: '/api/v1/namespaces/counts/secrets?dryRun=All', payload: { metadata: { name: 's3' } } })
    assert.equal(dry.statusCode, 403, dry.body)
    // Kinds the quota does not name are not counted.
    assert.equal((await post('counts', 'serviceaccounts', { metadata: { name: 'sa' } })).statusCode, 201)
  })

  it('charges compute: requests and limits summed, every container made to declare cpu and memory', async () => {
    await namespace(app(), 'compute')
    await quota(app(), 'compute', 'compute', { hard: { 'requests.cpu': '1', 'limits.memory': '1Gi', pods: '5' } }, { 'requests.cpu': '0', 'limits.memory': '0', pods: '0' })
    const bare = await post('compute', 'pods', { metadata: { name: 'bare' }, spec: { containers: [container('a'), container('b', { limits: { memory: '64Mi' } })] } })
    assert.equal(bare.statusCode, 403, bare.body)
    assert.equal(bare.json().message, 'pods "bare" is forbidden: failed quota: compute: must specify limits.memory for: a; requests.cpu for: a,b')
    const sized = (name: string) => post('compute', 'pods', { metadata: { name }, spec: { containers: [container('a', { requests: { cpu: '300m' }, limits: { memory: '256Mi' } }), container('b', { requests: { cpu: '300m' }, limits: { memory: '256Mi' } })] } })
    assert.equal((await sized('first')).statusCode, 201)
    assert.deepEqual(await usedOf(app(), 'compute', 'compute'), { 'requests.cpu': '600m', 'limits.memory': '512Mi', pods: '1' })
    const second = await sized('second')
    assert.equal(second.statusCode, 403, second.body)
    assert.equal(second.json().message, 'pods "second" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1')
    // Extended resources count as requests.<name>.
    await quota(app(), 'compute', 'gpus', { hard: { 'requests.example.com/gpu': '1' } }, { 'requests.example.com/gpu': '0' })
    const gpu = (name: string) => post('compute', 'pods', { metadata: { name }, spec: { containers: [container('a', { requests: { cpu: '100m', 'example.com/gpu': '1' }, limits: { memory: '64Mi', 'example.com/gpu': '1' } })] } })
    assert.equal((await gpu('gpu-1')).statusCode, 201)
    assert.match((await gpu('gpu-2')).json().message, /exceeded quota: gpus, requested: requests.example.com\/gpu=1, used: requests.example.com\/gpu=1, limited: requests.example.com\/gpu=1$/)
  })

  it('charges storage, in all and per storage class', async () => {
    await namespace(app(), 'storage')
    const hard = { 'requests.storage': '10Gi', 'gold.storageclass.storage.svc.io/requests.storage': '5Gi', 'gold.storageclass.storage.svc.io/persistentvolumeclaims': '2' }
    await quota(app(), 'storage', 'disks', { hard }, Object.fromEntries(Object.keys(hard).map(k => [k, '0'])))
    const claim = (name: string, size: string, cls: string) => post('storage', 'persistentvolumeclaims', { metadata: { name }, spec: { storageClassName: cls, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } } })
    assert.equal((await claim('g1', '3Gi', 'gold')).statusCode, 201)
    const g2 = await claim('g2', '3Gi', 'gold')
    assert.equal(g2.statusCode, 403, g2.body)
    assert.equal(g2.json().message, 'persistentvolumeclaims "g2" is forbidden: exceeded quota: disks, requested: gold.storageclass.storage.svc.io/requests.storage=3Gi, used: gold.storageclass.storage.svc.io/requests.storage=3Gi, limited: gold.storageclass.storage.svc.io/requests.storage=5Gi')
    assert.equal((await claim('s1', '6Gi', 'silver')).statusCode, 201)
    const s2 = await claim('s2', '2Gi', 'silver')
    assert.equal(s2.statusCode, 403, s2.body)
    assert.match(s2.json().message, /requested: requests.storage=2Gi, used: requests.storage=9Gi, limited: requests.storage=10Gi$/)
    assert.deepEqual(await usedOf(app(), 'storage', 'disks'), { 'requests.storage': '9Gi', 'gold.storageclass.storage.svc.io/requests.storage': '3Gi', 'gold.storageclass.storage.svc.io/persistentvolumeclaims': '1' })
  })

  it('applies a scoped quota only to the pods in its scopes', async () => {
    await namespace(app(), 'scopes')
    await quota(app(), 'scopes', 'best-effort', { hard: { pods: '1' }, scopes: ['BestEffort'] }, { pods: '0' })
    assert.equal((await app().request({ method: 'POST', url: '/apis/scheduling.svc.io/v1/priorityclasses', payload: { metadata: { name: 'high' }, value: 1000 } })).statusCode, 201)
    await quota(app(), 'scopes', 'high', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }, { pods: '0' })
    await quota(app(), 'scopes', 'deadline', { hard: { pods: '1' }, scopes: ['Terminating'] }, { pods: '0' })
    const pod = (name: string, spec: Obj = {}, resources?: Obj) => post('scopes', 'pods', { metadata: { name }, spec: { containers: [container('a', resources)], ...spec } })
    const burstable = { requests: { cpu: '10m' } }
    assert.equal((await pod('be-1')).statusCode, 201)
    const be2 = await pod('be-2')
    assert.equal(be2.statusCode, 403, be2.body)
    assert.match(be2.json().message, /exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1$/)
    assert.equal((await pod('burst-1', {}, burstable)).statusCode, 201, 'NotBestEffort pods are outside the BestEffort quota')
    assert.equal((await pod('burst-2', {}, burstable)).statusCode, 201)
    assert.equal((await pod('high-1', { priorityClassName: 'high' }, burstable)).statusCode, 201)
    assert.match((await pod('high-2', { priorityClassName: 'high' }, burstable)).json().message, /exceeded quota: high,/)
    assert.equal((await pod('job-1', { activeDeadlineSeconds: 60 }, burstable)).statusCode, 201)
    assert.match((await pod('job-2', { activeDeadlineSeconds: 60 }, burstable)).json().message, /exceeded quota: deadline,/)
  })

  it('refuses while a tracked resource has no usage in status yet', async () => {
    await namespace(app(), 'unknown')
    await quota(app(), 'unknown', 'fresh', { hard: { 'count/configmaps': '5', secrets: '5' } }, { secrets: '0' })
    const res = await post('unknown', 'configmaps', { metadata: { name: 'c' } })
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().message, 'configmaps "c" is forbidden: status unknown for quota: fresh, resources: count/configmaps')
    assert.equal((await post('unknown', 'secrets', { metadata: { name: 's' } })).statusCode, 201)
  })
})

test('sixteen concurrent creators on two servers against a quota of two ConfigMaps: exactly two are admitted', async (t) => {
  const first = await buildTestApp(t)
  const second = await buildTestApp(t, { databaseUrl: first.databaseUrl })
  await namespace(first, 'race')
  const created = await first.request({ method: 'POST', url: quotas('race'), payload: { metadata: { name: 'two' }, spec: { hard: { 'count/configmaps': '2' } } } })
  assert.equal(created.statusCode, 201, created.body)
  // Whichever replica leads counts the quota; both must see its status before the race starts.
  for (const api of [first, second]) {
    await eventually(async () => assert.deepEqual((await api.request({ method: 'GET', url: `${quotas('race')}/two` })).json().status?.used, { 'count/configmaps': '0' }))
  }
  const answers = await Promise.all(Array.from({ length: 16 }, (_, i) =>
    (i % 2 === 0 ? first : second).request({ method: 'POST', url: '/api/v1/namespaces/race/configmaps', payload: { metadata: { name: `c${i}` } } })))
  const codes = answers.map(a => a.statusCode)
  assert.equal(codes.filter(c => c === 201).length, 2, JSON.stringify(codes))
  assert.equal(codes.filter(c => c === 403).length, 14, JSON.stringify(answers.filter(a => a.statusCode !== 201 && a.statusCode !== 403).map(a => a.body)))
  for (const refused of answers.filter(a => a.statusCode === 403)) {
    assert.match(refused.json().message, /^configmaps "c\d+" is forbidden: exceeded quota: two, requested: count\/configmaps=1, used: count\/configmaps=2, limited: count\/configmaps=2$/)
  }
  const list = await second.request({ method: 'GET', url: '/api/v1/namespaces/race/configmaps' })
  assert.equal(list.json().items.filter((cm: Obj) => /^c\d+$/.test(cm.metadata.name)).length, 2)
  assert.deepEqual(await usedOf(first, 'race', 'two'), { 'count/configmaps': '2' })
})

test('limitedResources from the admission configuration: pods asking for cpu only where a quota covers it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'quota-config-'))
  const configFile = join(dir, 'admission.yaml')
  writeFileSync(configFile, `apiVersion: apiserver.config.svc.io/v1
kind: AdmissionConfiguration
plugins:
- name: ResourceQuota
  configuration:
    apiVersion: apiserver.config.svc.io/v1
    kind: ResourceQuotaConfiguration
    limitedResources:
    - resource: pods
      matchContains: [requests.cpu]
`)
  const api = await buildTestApp(t, { admission: { configFile }, controllers: ['*', '-resourcequota'] })
  await namespace(api, 'open')
  await namespace(api, 'covered')
  const pod = (ns: string, name: string, resources?: Obj) => api.request({ method: 'POST', url: `/api/v1/namespaces/${ns}/pods`, payload: { metadata: { name }, spec: { containers: [{ name: 'a', image: 'nginx', ...(resources === undefined ? {} : { resources }) }] } } })
  const cpu = { requests: { cpu: '100m' } }
  const refused = await pod('open', 'wants-cpu', cpu)
  assert.equal(refused.statusCode, 403, refused.body)
  assert.equal(refused.json().message, 'pods "wants-cpu" is forbidden: insufficient quota to consume: requests.cpu')
  assert.equal((await pod('open', 'no-cpu')).statusCode, 201)
  await quota(api, 'covered', 'cpu', { hard: { 'requests.cpu': '1' } }, { 'requests.cpu': '0' })
  assert.equal((await pod('covered', 'wants-cpu', cpu)).statusCode, 201)
  await assert.rejects(buildTestApp(t, { admission: { configFile: writeConfig(dir, 'kind: Wrong') } }), /ResourceQuota's configuration must be of kind ResourceQuotaConfiguration/)
})

function writeConfig (dir: string, body: string): string {
  const file = join(dir, 'wrong.yaml')
  writeFileSync(file, `apiVersion: apiserver.config.svc.io/v1
kind: AdmissionConfiguration
plugins:
- name: ResourceQuota
  configuration:
    ${body}
`)
  return file
}

describe('quota evaluators', () => {
  it('charges services by type: node ports and load balancers', () => {
    const e = evaluatorFor('services', '')
    const ports = [{ port: 80 }, { port: 443, nodePort: 30043 }]
    assert.deepEqual(e.usage({ spec: { type: 'ClusterIP', ports } }), { 'count/services': '1', services: '1', 'services.nodeports': '0', 'services.loadbalancers': '0' })
    assert.deepEqual(e.usage({ spec: { type: 'NodePort', ports } }), { 'count/services': '1', services: '1', 'services.nodeports': '2', 'services.loadbalancers': '0' })
    assert.deepEqual(e.usage({ spec: { type: 'LoadBalancer', ports, allocateLoadBalancerNodePorts: false } }), { 'count/services': '1', services: '1', 'services.nodeports': '1', 'services.loadbalancers': '1' })
    assert.deepEqual(e.matchingResources(['services.nodeports', 'pods', 'count/services']), ['services.nodeports', 'count/services'])
  })

  it('charges a pod its containers\' sum, at least its largest init container, plus overhead; a finished pod only its count', () => {
    const e = evaluatorFor('pods', '')
    const pod = {
      spec: {
        containers: [{ name: 'a', resources: { requests: { cpu: '100m', memory: '64Mi' } } }, { name: 'b', resources: { requests: { cpu: '200m' } } }],
        initContainers: [{ name: 'init', resources: { requests: { cpu: '500m' } } }],
        overhead: { cpu: '10m' }
      }
    }
    assert.deepEqual(e.usage(pod), { 'count/pods': '1', pods: '1', cpu: '510m', 'requests.cpu': '510m', memory: '64Mi', 'requests.memory': '64Mi' })
    assert.deepEqual(e.usage({ ...pod, status: { phase: 'Succeeded' } }), { 'count/pods': '1' })
    assert.deepEqual(evaluatorFor('deployments', 'apps').usage({}), { 'count/deployments.apps': '1' })
    assert.deepEqual(evaluatorFor('configmaps', '').usage({}), { 'count/configmaps': '1', configmaps: '1' })
  })
})
