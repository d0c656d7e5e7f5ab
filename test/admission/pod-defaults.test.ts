// DefaultTolerationSeconds (on by default, its two flags) and AlwaysPullImages (off by default).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { buildTestApp } from '../helpers/app.js'
import { NODE_TAINTS } from '../../resources/naming.js'
import { parseFlags } from '../../bin/flags.js'

const pods = '/api/v1/namespaces/default/pods'
const container = (name = 'a', extra: Record<string, unknown> = {}) => ({ name, image: 'nginx:1.27', ...extra })
const toleration = (key: string, seconds: number) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds })

describe('DefaultTolerationSeconds', () => {
  const app = suiteApp()
  const createPod = (name: string, spec: Record<string, unknown> = {}) =>
    app().request({ method: 'POST', url: pods, payload: { metadata: { name }, spec: { containers: [container()], ...spec } } })

  it('adds 300 s tolerations of the not-ready and unreachable taints', async () => {
    const res = await createPod('plain')
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().spec.tolerations, [toleration(NODE_TAINTS.notReady, 300), toleration(NODE_TAINTS.unreachable, 300)])
  })

  it('keeps the pod\'s own toleration of a taint and adds only the other', async () => {
    const own = { key: NODE_TAINTS.notReady, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }
    const res = await createPod('own', { tolerations: [own] })
    assert.deepEqual(res.json().spec.tolerations, [own, toleration(NODE_TAINTS.unreachable, 300)])
  })

  it('adds nothing to a pod that tolerates everything, or every NoExecute taint', async () => {
    const all = await createPod('all', { tolerations: [{ operator: 'Exists' }] })
    assert.deepEqual(all.json().spec.tolerations, [{ operator: 'Exists' }])
    const noExecute = await createPod('no-execute', { tolerations: [{ operator: 'Exists', effect: 'NoExecute' }] })
    assert.deepEqual(noExecute.json().spec.tolerations, [{ operator: 'Exists', effect: 'NoExecute' }])
    const noSchedule = await createPod('no-schedule', { tolerations: [{ operator: 'Exists', effect: 'NoSchedule' }] })
    assert.equal(noSchedule.json().spec.tolerations.length, 3)
  })

  it('takes its seconds from the flags', async (t) => {
    const flags = parseFlags(['--default-not-ready-toleration-seconds', '60', '--default-unreachable-toleration-seconds', '120'], {})
    assert.throws(() => parseFlags(['--default-not-ready-toleration-seconds', 'soon'], {}), /invalid --default-not-ready-toleration-seconds "soon"/)
    const other = await buildTestApp(t, { admission: { defaultNotReadyTolerationSeconds: flags.defaultNotReadyTolerationSeconds, defaultUnreachableTolerationSeconds: flags.defaultUnreachableTolerationSeconds } })
    const res = await other.request({ method: 'POST', url: pods, payload: { metadata: { name: 'p' }, spec: { containers: [container()] } } })
    assert.deepEqual(res.json().spec.tolerations, [toleration(NODE_TAINTS.notReady, 60), toleration(NODE_TAINTS.unreachable, 120)])
  })
})

describe('AlwaysPullImages', () => {
  it('is off by default', async (t) => {
    const other = await buildTestApp(t)
    const res = await other.request({ method: 'POST', url: pods, payload: { metadata: { name: 'p' }, spec: { containers: [container('a', { imagePullPolicy: 'IfNotPresent' })] } } })
    assert.equal(res.json().spec.containers[0].imagePullPolicy, 'IfNotPresent')
  })

  it('when enabled, makes every container of a new pod, and of an update with a new image, pull always', async (t) => {
    const other = await buildTestApp(t, { admission: { enable: ['AlwaysPullImages'] } })
    const res = await other.request({ method: 'POST', url: pods, payload: { metadata: { name: 'p' }, spec: { initContainers: [container('i', { imagePullPolicy: 'Never' })], containers: [container('a', { imagePullPolicy: 'IfNotPresent' })] } } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.initContainers[0].imagePullPolicy, 'Always')
    assert.equal(res.json().spec.containers[0].imagePullPolicy, 'Always')
    const pod = res.json()
    pod.spec.containers[0].image = 'nginx:1.28'
    pod.spec.containers[0].imagePullPolicy = 'IfNotPresent'
    const updated = await other.request({ method: 'PUT', url: `${pods}/p`, payload: pod })
    assert.equal(updated.statusCode, 200, updated.body)
    assert.equal(updated.json().spec.containers[0].image, 'nginx:1.28')
    assert.equal(updated.json().spec.containers[0].imagePullPolicy, 'Always')
  })
})
