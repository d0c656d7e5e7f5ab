// What a mutating webhook may not change: the stored object's key, name, namespace, uid and
// timestamps stay the server's whatever the webhook's patch says, or the request fails with
// nothing written (the reference's rest.BeforeCreate and BeforeUpdate after admission).
import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp, assertInvalid } from '../resources/suite.js'
import { allow, patchOf, startAdmissionWebhook, type AdmissionWebhookServer } from '../helpers/admission-webhook.js'

type AnyObject = Record<string, any>
const MUTATING = '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations'
const VALIDATING = '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations'
const CMS = '/api/v1/namespaces/default/configmaps'
const MERGE = { 'content-type': 'application/merge-patch+json' }

describe('metadata after mutating admission', () => {
  const app = suiteApp()
  let hooks: AdmissionWebhookServer
  /** The JSON patch each case's webhook answers, by operation. */
  const plans = new Map<string, Partial<Record<string, unknown[]>>>()
  before(async () => {
    hooks = await startAdmissionWebhook({ after: () => {} })
    hooks.handle('/mutate', (review) => {
      const r = review.request
      const c = (r.object ?? r.oldObject)?.metadata?.labels?.case
      const ops = plans.get(c)?.[r.operation]
      return ops === undefined ? allow() : patchOf(ops)
    })
    const webhook = (name: string, path: string): AnyObject => ({
      name,
      clientConfig: { url: `${hooks.base}${path}`, caBundle: hooks.caBundle },
      rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      objectSelector: { matchExpressions: [{ key: 'case', operator: 'Exists' }] },
      sideEffects: 'None',
      admissionReviewVersions: ['v1']
    })
    for (const [url, name, path] of [[MUTATING, 'mutate.hooks.example.com', '/mutate'], [VALIDATING, 'observe.hooks.example.com', '/observe']] as const) {
      const res = await app().request({ method: 'POST', url, payload: { metadata: { name: path.slice(1) }, webhooks: [webhook(name, path)] } })
      assert.equal(res.statusCode, 201, res.body)
    }
    for (const ns of ['other']) {
      assert.equal((await app().request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: ns } } })).statusCode, 201)
    }
  })

  const create = (c: string, name: string, ns = 'default', meta: AnyObject = {}) =>
    app().request({ method: 'POST', url: `/api/v1/namespaces/${ns}/configmaps`, payload: { metadata: { name, labels: { case: c }, ...meta }, data: { a: '1' } } })
  const get = async (name: string, ns = 'default'): Promise<AnyObject | undefined> => {
    const res = await app().request({ method: 'GET', url: `/api/v1/namespaces/${ns}/configmaps/${name}` })
    return res.statusCode === 200 ? res.json() : undefined
  }
  const everywhere = async (name: string): Promise<AnyObject[]> => {
    const res = await app().request({ method: 'GET', url: `/api/v1/configmaps?fieldSelector=metadata.name=${name}` })
    return res.json().items
  }
  const mergePatch = (name: string, body: AnyObject) =>
    app().request({ method: 'PATCH', url: `${CMS}/${name}`, headers: MERGE, payload: JSON.stringify(body) })

  it('refuses a webhook that moves the object to another namespace, on create and on update', async () => {
    plans.set('move', { CREATE: [{ op: 'replace', path: '/metadata/namespace', value: 'other' }], UPDATE: [{ op: 'replace', path: '/metadata/namespace', value: 'other' }] })
    const res = await create('move', 'moved-1')
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().message, 'the namespace of the provided object does not match the namespace sent on the request')
    assert.deepEqual(await everywhere('moved-1'), [])
    plans.set('move', {})
    assert.equal((await create('move', 'moved-2')).statusCode, 201)
    plans.set('move', { UPDATE: [{ op: 'replace', path: '/metadata/namespace', value: 'other' }] })
    const update = await mergePatch('moved-2', { data: { b: '2' } })
    assert.equal(update.statusCode, 400, update.body)
    const stored = await everywhere('moved-2')
    assert.equal(stored.length, 1)
    assert.equal(stored[0]!.metadata.namespace, 'default')
    assert.deepEqual(stored[0]!.data, { a: '1' })
  })

  it('refuses a rename, a new uid and a deletionTimestamp on update (422, field is immutable), nothing written', async () => {
    plans.set('immutable', {})
    const created = await create('immutable', 'rename-1')
    assert.equal(created.statusCode, 201)
    const before = created.json()
    for (const [field, op] of [
      ['metadata.name', { op: 'replace', path: '/metadata/name', value: 'renamed-x' }],
      ['metadata.uid', { op: 'replace', path: '/metadata/uid', value: '00000000-0000-0000-0000-000000000001' }],
      ['metadata.deletionTimestamp', { op: 'add', path: '/metadata/deletionTimestamp', value: '2020-01-01T00:00:00Z' }]
    ] as const) {
      plans.set('immutable', { UPDATE: [op] })
      const res = await mergePatch('rename-1', { data: { b: '2' } })
      assertInvalid(res, field, 'FieldValueInvalid', 'field is immutable')
      const after = await get('rename-1')
      assert.deepEqual(after, before, `${field}: the stored object changed`)
    }
    assert.equal(await get('renamed-x'), undefined)
  })

  it('keeps the stored creationTimestamp, and a webhook\'s older resourceVersion is a conflict', async () => {
    plans.set('times', {})
    const created = (await create('times', 'times-1')).json()
    plans.set('times', { UPDATE: [{ op: 'replace', path: '/metadata/creationTimestamp', value: '2001-01-01T00:00:00Z' }] })
    const res = await mergePatch('times-1', { data: { b: '2' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().metadata.creationTimestamp, created.metadata.creationTimestamp)
    assert.equal((await get('times-1'))!.metadata.creationTimestamp, created.metadata.creationTimestamp)
    const current = (await get('times-1'))!
    plans.set('times', { UPDATE: [{ op: 'replace', path: '/metadata/resourceVersion', value: created.metadata.resourceVersion }] })
    const stale = await mergePatch('times-1', { data: { c: '3' } })
    assert.equal(stale.statusCode, 409, stale.body)
    assert.equal(stale.json().reason, 'Conflict')
    assert.deepEqual(await get('times-1'), current)
  })

  it('assigns its own uid and creationTimestamp on create, whatever the webhook set', async () => {
    plans.set('fresh', { CREATE: [{ op: 'add', path: '/metadata/uid', value: 'webhook-uid' }, { op: 'add', path: '/metadata/creationTimestamp', value: '2001-01-01T00:00:00Z' }, { op: 'add', path: '/metadata/deletionTimestamp', value: '2001-01-01T00:00:00Z' }] })
    const res = await create('fresh', 'fresh-1')
    assert.equal(res.statusCode, 201, res.body)
    const stored = (await get('fresh-1'))!
    assert.notEqual(stored.metadata.uid, 'webhook-uid')
    assert.match(stored.metadata.uid, /^[0-9a-f-]{36}$/)
    assert.notEqual(stored.metadata.creationTimestamp, '2001-01-01T00:00:00Z')
    assert.equal(stored.metadata.deletionTimestamp, undefined)
  })

  it('runs mutating admission before a generated name exists; validating admission sees it', async () => {
    plans.set('generated', {})
    const res = await app().request({ method: 'POST', url: CMS, payload: { metadata: { generateName: 'gen-', labels: { case: 'generated' } } } })
    assert.equal(res.statusCode, 201, res.body)
    const name = res.json().metadata.name
    assert.match(name, /^gen-[a-z0-9]{5}$/)
    const mutated = hooks.on('/mutate').map(r => r.review.request).find(r => r.object?.metadata?.generateName === 'gen-')!
    assert.equal(mutated.name, undefined)
    assert.equal(mutated.object.metadata.name, undefined)
    assert.equal(mutated.object.metadata.uid, undefined)
    assert.equal(mutated.object.metadata.creationTimestamp, undefined)
    const validated = hooks.on('/observe').map(r => r.review.request).find(r => r.object?.metadata?.generateName === 'gen-')!
    assert.equal(validated.name, name)
    assert.equal(validated.object.metadata.name, name)
    assert.equal(validated.object.metadata.uid, res.json().metadata.uid)
  })
})
