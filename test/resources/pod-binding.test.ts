// pods/binding: a scheduler binds a pending pod to a node once. The pod takes the node, the
// Binding's annotations and the PodScheduled condition; a second binding, a pod being deleted or
// one with scheduling gates is a 409 in the reference's words; bad Bindings are refused. Of
// binders racing on two servers sharing a database, exactly one wins.
import { describe, it, test } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'
import { buildTestApp, type TestApp } from '../helpers/app.js'

type Obj = Record<string, any>

const PODS = '/api/v1/namespaces/default/pods'
const binding = (pod: string, node: string, extra: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name: pod, ...extra }, target: { apiVersion: 'v1', kind: 'Node', name: node } })

async function pendingPod (api: TestApp, name: string, spec: Obj = {}): Promise<Obj> {
  const res = await api.request({ method: 'POST', url: PODS, payload: { metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec } } })
  assert.equal(res.statusCode, 201, res.body)
  return res.json()
}

const bind = (api: TestApp, pod: string, body: Obj) => api.request({ method: 'POST', url: `${PODS}/${pod}/binding`, payload: body })

describe('pods/binding', () => {
  const app = suiteApp()

  it('binds a pending pod to a node, once', async () => {
    await pendingPod(app(), 'web')
    const res = await bind(app(), 'web', binding('web', 'node-1', { annotations: { 'scheduler.example.com/score': '7' } }))
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 })
    const pod = (await app().request({ method: 'GET', url: `${PODS}/web` })).json()
    assert.equal(pod.spec.nodeName, 'node-1')
    assert.equal(pod.metadata.annotations['scheduler.example.com/score'], '7')
    const scheduled = pod.status.conditions.find((c: Obj) => c.type === 'PodScheduled')
    assert.equal(scheduled.status, 'True')
    assert.match(scheduled.lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)

    const again = await bind(app(), 'web', binding('web', 'node-2'))
    assert.equal(again.statusCode, 409, again.body)
    assert.equal(again.json().reason, 'Conflict')
    assert.equal(again.json().message, 'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-1"')
    // Updates still may not move a bound pod.
    const moved = await app().request({ method: 'PATCH', url: `${PODS}/web`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { spec: { nodeName: 'node-2' } } })
    assert.equal(moved.statusCode, 422, moved.body)
  })

  it('refuses bindings it cannot apply', async () => {
    await pendingPod(app(), 'gated', { schedulingGates: [{ name: 'example.com/wait' }] })
    const gated = await bind(app(), 'gated', binding('gated', 'node-1'))
    assert.equal(gated.statusCode, 409)
    assert.equal(gated.json().message, 'Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates')

    await pendingPod(app(), 'plain')
    const misnamed = await bind(app(), 'plain', binding('other', 'node-1'))
    assert.equal(misnamed.statusCode, 400)
    assert.equal(misnamed.json().message, 'name in URL does not match name in Binding object')
    assertInvalid(await bind(app(), 'plain', { ...binding('plain', ''), target: { kind: 'Node' } }), 'target.name', 'FieldValueRequired')
    assertInvalid(await bind(app(), 'plain', { ...binding('plain', 'x'), target: { kind: 'Pod', name: 'x' } }), 'target.kind', 'FieldValueNotSupported')
    assertInvalid(await bind(app(), 'plain', { ...binding('plain', 'x'), target: { name: 7 } }), 'target.name', 'FieldValueInvalid')
    assertInvalid(await bind(app(), 'plain', binding('plain', 'node-1', { annotations: { a: 1 } })), 'metadata.annotations', 'FieldValueInvalid')
    const stale = await bind(app(), 'plain', binding('plain', 'node-1', { uid: 'not-the-pods' }))
    assert.equal(stale.statusCode, 409)
    assert.match(stale.json().message, /Precondition failed: UID in precondition: not-the-pods/)
    const missing = await bind(app(), 'nosuch', binding('nosuch', 'node-1'))
    assert.equal(missing.statusCode, 404)
    assert.equal((await app().request({ method: 'GET', url: `${PODS}/plain` })).json().spec.nodeName, undefined)
  })

  it('binds nothing under dry run', async () => {
    await pendingPod(app(), 'dry')
    const res = await app().request({ method: 'POST', url: `${PODS}/dry/binding?dryRun=All`, payload: binding('dry', 'node-1') })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal((await app().request({ method: 'GET', url: `${PODS}/dry` })).json().spec.nodeName, undefined)
  })
})

describe('core bindings', () => {
  const app = suiteApp()
  const BINDINGS = '/api/v1/namespaces/default/bindings'

  it('binds the pod the Binding names, once, as pods/binding does', async () => {
    await pendingPod(app(), 'api')
    const res = await app().request({ method: 'POST', url: BINDINGS, payload: binding('api', 'node-1', { annotations: { 'example.com/by': 'core' } }) })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 })
    const pod = (await app().request({ method: 'GET', url: `${PODS}/api` })).json()
    assert.equal(pod.spec.nodeName, 'node-1')
    assert.equal(pod.metadata.annotations['example.com/by'], 'core')
    assert.equal(pod.status.conditions.find((c: Obj) => c.type === 'PodScheduled').status, 'True')

    const again = await app().request({ method: 'POST', url: BINDINGS, payload: binding('api', 'node-2') })
    assert.equal(again.statusCode, 409, again.body)
    assert.equal(again.json().message, 'Operation cannot be fulfilled on pods/binding "api": pod api is already assigned to node "node-1"')
    const missing = await app().request({ method: 'POST', url: BINDINGS, payload: binding('nosuch', 'node-1') })
    assert.equal(missing.statusCode, 404, missing.body)
    assertInvalid(await app().request({ method: 'POST', url: BINDINGS, payload: { ...binding('api', ''), target: { kind: 'Pod', name: 'x' } } }), 'target.kind', 'FieldValueNotSupported')
  })

  it('binds nothing under dry run, and serves create only', async () => {
    await pendingPod(app(), 'dry-core')
    const res = await app().request({ method: 'POST', url: `${BINDINGS}?dryRun=All`, payload: binding('dry-core', 'node-1') })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal((await app().request({ method: 'GET', url: `${PODS}/dry-core` })).json().spec.nodeName, undefined)
    assert.equal((await app().request({ method: 'GET', url: BINDINGS })).statusCode, 405)
    const discovery = (await app().request({ method: 'GET', url: '/api/v1' })).json()
    const listed = discovery.resources.find((r: Obj) => r.name === 'bindings')
    assert.deepEqual({ kind: listed.kind, namespaced: listed.namespaced, verbs: listed.verbs }, { kind: 'Binding', namespaced: true, verbs: ['create'] })
  })
})

test('of binders racing on two servers sharing a database, exactly one wins', async (t) => {
  const first = await buildTestApp(t)
  const second = await buildTestApp(t, { databaseUrl: first.databaseUrl })
  await pendingPod(first, 'raced')
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => bind(i % 2 === 0 ? first : second, 'raced', binding('raced', `node-${i}`))))
  const codes = answers.map(a => a.statusCode).sort()
  assert.deepEqual(codes, [201, 409, 409, 409, 409, 409, 409, 409], answers.map(a => a.body).join('\n'))
  const winner = answers.findIndex(a => a.statusCode === 201)
  assert.equal((await second.request({ method: 'GET', url: `${PODS}/raced` })).json().spec.nodeName, `node-${winner}`)
})
