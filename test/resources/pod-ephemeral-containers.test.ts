// pods/ephemeralcontainers: a debugger adds containers to a running pod. Only
// spec.ephemeralContainers changes through it (additions only), the pod is answered, the main
// resource can neither create nor change them, each container is checked as the reference's
// validateEphemeralContainers does, and admission sees UPDATE on the subresource.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'
import type { TestApp } from '../helpers/app.js'

type Obj = Record<string, any>

const PODS = '/api/v1/namespaces/default/pods'
const SMP = { 'content-type': 'application/strategic-merge-patch+json' }
const debuggerContainer = (name: string, extra: Obj = {}): Obj => ({ name, image: 'busybox:1.36', stdin: true, tty: true, ...extra })

async function runningPod (api: TestApp, name: string, extra: Obj = {}): Promise<Obj> {
  const res = await api.request({ method: 'POST', url: PODS, payload: { metadata: { name, ...extra }, spec: { containers: [{ name: 'app', image: 'nginx' }], nodeName: 'node-1' } } })
  assert.equal(res.statusCode, 201, res.body)
  return res.json()
}

const patchEphemeral = (api: TestApp, pod: string, containers: Obj[]) =>
  api.request({ method: 'PATCH', url: `${PODS}/${pod}/ephemeralcontainers`, headers: SMP, payload: { spec: { ephemeralContainers: containers } } })

describe('pods/ephemeralcontainers', () => {
  const app = suiteApp()

  it('adds a container by strategic merge patch and answers the pod; reads answer the pod', async () => {
    await runningPod(app(), 'web')
    const res = await patchEphemeral(app(), 'web', [debuggerContainer('debugger-1', { targetContainerName: 'app' })])
    assert.equal(res.statusCode, 200, res.body)
    const pod = res.json()
    assert.equal(pod.kind, 'Pod')
    assert.deepEqual(pod.spec.ephemeralContainers.map((c: Obj) => c.name), ['debugger-1'])
    const added = pod.spec.ephemeralContainers[0]
    assert.equal(added.imagePullPolicy, 'IfNotPresent')
    assert.equal(added.terminationMessagePolicy, 'File')
    assert.equal(added.targetContainerName, 'app')

    // A second one merges by name (the reference's merge puts new items first); the first stays.
    const again = await patchEphemeral(app(), 'web', [debuggerContainer('debugger-2')])
    assert.equal(again.statusCode, 200, again.body)
    assert.deepEqual(again.json().spec.ephemeralContainers.map((c: Obj) => c.name).sort(), ['debugger-1', 'debugger-2'])
    assert.ok(again.json().spec.ephemeralContainers.every((c: Obj) => c.imagePullPolicy === 'IfNotPresent'))

    const got = await app().request({ method: 'GET', url: `${PODS}/web/ephemeralcontainers` })
    assert.equal(got.statusCode, 200, got.body)
    assert.equal(got.json().kind, 'Pod')
    assert.equal(got.json().spec.ephemeralContainers.length, 2)
  })

  it('changes nothing else of the pod, and keeps the metadata a status write keeps', async () => {
    await runningPod(app(), 'other', { labels: { app: 'other' } })
    const pod = (await app().request({ method: 'GET', url: `${PODS}/other` })).json()
    pod.spec.ephemeralContainers = [debuggerContainer('dbg')]
    pod.spec.containers[0].image = 'nginx:2'
    pod.metadata.labels = { app: 'changed' }
    pod.status = { phase: 'Failed' }
    const res = await app().request({ method: 'PUT', url: `${PODS}/other/ephemeralcontainers`, payload: pod })
    assert.equal(res.statusCode, 200, res.body)
    const out = res.json()
    assert.equal(out.spec.ephemeralContainers[0].name, 'dbg')
    assert.equal(out.spec.containers[0].image, 'nginx')
    assert.deepEqual(out.metadata.labels, { app: 'other' })
    assert.equal(out.status.phase, 'Pending')
  })

  it('refuses removing or changing an existing ephemeral container', async () => {
    await runningPod(app(), 'fixed')
    assert.equal((await patchEphemeral(app(), 'fixed', [debuggerContainer('dbg')])).statusCode, 200)
    const pod = (await app().request({ method: 'GET', url: `${PODS}/fixed` })).json()

    const removed = await app().request({ method: 'PUT', url: `${PODS}/fixed/ephemeralcontainers`, payload: { ...pod, spec: { ...pod.spec, ephemeralContainers: [] } } })
    assertInvalid(removed, 'spec.ephemeralContainers', 'FieldValueForbidden', 'existing ephemeral containers "dbg" may not be removed')

    const changed = await patchEphemeral(app(), 'fixed', [{ name: 'dbg', image: 'alpine' }])
    assertInvalid(changed, 'spec.ephemeralContainers', 'FieldValueForbidden', 'existing ephemeral containers "dbg" may not be changed')
    assert.match(changed.json().details.causes[0].message, /- image: "busybox:1.36"\n\+ image: "alpine"/)
  })

  it('checks each container as the reference does', async () => {
    await runningPod(app(), 'checked')
    assertInvalid(await patchEphemeral(app(), 'checked', [debuggerContainer('app')]), 'spec.ephemeralContainers[0].name', 'FieldValueDuplicate')
    assertInvalid(await patchEphemeral(app(), 'checked', [debuggerContainer('dbg', { targetContainerName: 'nosuch' })]), 'spec.ephemeralContainers[0].targetContainerName', 'FieldValueNotFound')
    assertInvalid(await patchEphemeral(app(), 'checked', [{ name: 'dbg' }]), 'spec.ephemeralContainers[0].image', 'FieldValueRequired')
    assertInvalid(await patchEphemeral(app(), 'checked', [{ name: 'Bad_Name', image: 'busybox' }]), 'spec.ephemeralContainers[0].name', 'FieldValueInvalid')
    for (const [field, value] of [
      ['ports', [{ containerPort: 80 }]],
      ['resources', { limits: { cpu: '1' } }],
      ['livenessProbe', { exec: { command: ['true'] } }],
      ['readinessProbe', {}],
      ['startupProbe', { exec: { command: ['true'] } }],
      ['lifecycle', { preStop: { exec: { command: ['true'] } } }],
      ['restartPolicy', 'Always']
    ] as const) {
      assertInvalid(await patchEphemeral(app(), 'checked', [debuggerContainer('dbg', { [field]: value })]), `spec.ephemeralContainers[0].${field}`, 'FieldValueForbidden', 'cannot be set for an Ephemeral Container')
    }
    const pod = await app().request({ method: 'PATCH', url: `${PODS}/checked`, headers: SMP, payload: { spec: { volumes: [{ name: 'v', emptyDir: {} }] } } })
    assert.equal(pod.statusCode, 422, 'volumes are not changed on a pod')
    assertInvalid(await patchEphemeral(app(), 'checked', [debuggerContainer('dbg', { volumeMounts: [{ name: 'nosuch', mountPath: '/x' }] })]), 'spec.ephemeralContainers[0].volumeMounts[0].name', 'FieldValueNotFound')
    // Empty resources (kubectl debug sends `resources: {}`) are no resources.
    assert.equal((await patchEphemeral(app(), 'checked', [debuggerContainer('dbg', { resources: {} })])).statusCode, 200)
    assert.equal((await app().request({ method: 'GET', url: `${PODS}/checked` })).json().spec.ephemeralContainers.length, 1)
  })

  it('refuses subPath mounts', async () => {
    const res = await app().request({ method: 'POST', url: PODS, payload: { metadata: { name: 'mounts' }, spec: { volumes: [{ name: 'v', emptyDir: {} }], containers: [{ name: 'app', image: 'nginx' }] } } })
    assert.equal(res.statusCode, 201, res.body)
    assertInvalid(await patchEphemeral(app(), 'mounts', [debuggerContainer('dbg', { volumeMounts: [{ name: 'v', mountPath: '/v', subPath: 'x' }] })]), 'spec.ephemeralContainers[0].volumeMounts[0].subPath', 'FieldValueForbidden')
    assert.equal((await patchEphemeral(app(), 'mounts', [debuggerContainer('dbg', { volumeMounts: [{ name: 'v', mountPath: '/v' }] })])).statusCode, 200)
  })

  it('the main resource neither creates nor changes them', async () => {
    const created = await app().request({ method: 'POST', url: PODS, payload: { metadata: { name: 'early' }, spec: { containers: [{ name: 'app', image: 'nginx' }], ephemeralContainers: [debuggerContainer('dbg')] } } })
    assertInvalid(created, 'spec.ephemeralContainers', 'FieldValueForbidden', 'cannot be set on create')
    await runningPod(app(), 'main')
    const res = await app().request({ method: 'PATCH', url: `${PODS}/main`, headers: SMP, payload: { spec: { ephemeralContainers: [debuggerContainer('dbg')] } } })
    assertInvalid(res, 'spec', 'FieldValueForbidden')
  })

  it('static pods take none', async () => {
    await runningPod(app(), 'static', { annotations: { 'svc.io/config.mirror': 'abc' } })
    const res = await patchEphemeral(app(), 'static', [debuggerContainer('dbg')])
    assert.equal(res.statusCode, 422, res.body)
    assert.match(res.json().message, /static pods do not support ephemeral containers/)
  })

  it('is listed in discovery with get, patch and update', async () => {
    const list = (await app().request({ method: 'GET', url: '/api/v1' })).json()
    const sub = list.resources.find((r: Obj) => r.name === 'pods/ephemeralcontainers')
    assert.ok(sub, 'pods/ephemeralcontainers listed')
    assert.equal(sub.kind, 'Pod')
    assert.deepEqual([...sub.verbs].sort(), ['get', 'patch', 'update'])
  })
})
