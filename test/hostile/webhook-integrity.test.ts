// A property over the write path: whatever a mutating webhook's patch does to an object's
// metadata, on create, update, patch, apply and delete, every stored object is found under the
// key its own name and namespace give, in a namespace the request named, with the server's
// uid and timestamps; or the request fails with a Status and nothing written. FUZZ_RUNS and
// FUZZ_SEED choose the number of cases and the seed (npm run fuzz runs more).
import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { suiteApp } from '../resources/suite.js'
import { allow, patchOf, startAdmissionWebhook } from '../helpers/admission-webhook.js'

type AnyObject = Record<string, any>
const RUNS = Number(process.env.FUZZ_RUNS ?? 40)
const SEED = Number(process.env.FUZZ_SEED ?? 26)
const CMS = '/api/v1/namespaces/default/configmaps'
const WEBHOOK_UIDS = ['webhook-uid', '00000000-0000-0000-0000-000000000000']
const OLD_TIME = '2001-01-01T00:00:00Z'

const metadataPath = fc.constantFrom('/metadata/name', '/metadata/namespace', '/metadata/uid', '/metadata/creationTimestamp', '/metadata/deletionTimestamp',
  '/metadata/deletionGracePeriodSeconds', '/metadata/resourceVersion', '/metadata/generateName', '/metadata/generation', '/metadata/finalizers',
  '/metadata/labels/extra', '/metadata/selfLink', '/metadata/managedFields', '/metadata')
const value = fc.constantFrom<unknown>('other', 'default', 'renamed', '', null, 0, 7, OLD_TIME, ...WEBHOOK_UIDS, '1', '999999', ['a.example.com/f'], {}, { name: 'x' })
const operation = fc.record({ op: fc.constantFrom('add', 'replace', 'remove'), path: metadataPath, value })
  .map(o => o.op === 'remove' ? { op: o.op, path: o.path } : o)
const verb = fc.constantFrom('create', 'update', 'patch', 'apply', 'delete')

describe('write path integrity under a mutating webhook', () => {
  const app = suiteApp()
  let plan: unknown[] | undefined
  before(async () => {
    const hooks = await startAdmissionWebhook({ after: () => {} })
    hooks.handle('/chaos', () => plan === undefined ? allow() : patchOf(plan))
    const res = await app().request({
      method: 'POST',
      url: '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations',
      payload: {
        metadata: { name: 'chaos' },
        webhooks: [{
          name: 'chaos.hooks.example.com',
          clientConfig: { url: `${hooks.base}/chaos`, caBundle: hooks.caBundle },
          rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          objectSelector: { matchLabels: { prop: 'yes' } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail'
        }]
      }
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal((await app().request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'other' } } })).statusCode, 201)
  })

  /** Every ConfigMap of the property's, by uid, as a cluster-wide list shows it. */
  const snapshot = async (): Promise<Map<string, AnyObject>> => {
    const items: AnyObject[] = (await app().request({ method: 'GET', url: '/api/v1/configmaps' })).json().items
    return new Map(items.filter(i => i.metadata.namespace === 'default' || i.metadata.namespace === 'other').map(i => [i.metadata.uid, i]))
  }

  /** Each stored object is where its metadata says, in the request's namespace, with server-set identity. */
  const assertWellPlaced = async (objects: Map<string, AnyObject>): Promise<void> => {
    for (const obj of objects.values()) {
      assert.equal(obj.metadata.namespace, 'default', `stored in another namespace: ${JSON.stringify(obj.metadata)}`)
      const byKey = await app().request({ method: 'GET', url: `/api/v1/namespaces/${obj.metadata.namespace}/configmaps/${obj.metadata.name}` })
      assert.equal(byKey.statusCode, 200, `not under its own key: ${JSON.stringify(obj.metadata)}`)
      assert.equal(byKey.json().metadata.uid, obj.metadata.uid)
      assert.ok(!WEBHOOK_UIDS.includes(obj.metadata.uid), `a webhook's uid was kept: ${obj.metadata.uid}`)
      assert.notEqual(obj.metadata.creationTimestamp, OLD_TIME)
      assert.equal(obj.metadata.deletionTimestamp, undefined, `terminating with no DELETE: ${JSON.stringify(obj.metadata)}`)
    }
  }

  let n = 0
  const request = async (v: string, name: string, target: AnyObject | undefined) => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { prop: 'yes' } }, data: { v: String(n) } }
    switch (v) {
      case 'create': return await app().request({ method: 'POST', url: CMS, payload: body })
      case 'update': return await app().request({ method: 'PUT', url: `${CMS}/${name}`, payload: { ...body, metadata: { ...target!.metadata, labels: { prop: 'yes' } } } })
      case 'patch': return await app().request({ method: 'PATCH', url: `${CMS}/${name}`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ data: body.data }) })
      case 'apply': return await app().request({ method: 'PATCH', url: `${CMS}/${name}?fieldManager=prop`, headers: { 'content-type': 'application/apply-patch+yaml' }, payload: JSON.stringify(body) })
      default: return await app().request({ method: 'DELETE', url: `${CMS}/${name}` })
    }
  }

  it('keeps key, name, namespace, uid and timestamps the server\'s, or writes nothing', async () => {
    await fc.assert(fc.asyncProperty(verb, fc.array(operation, { minLength: 1, maxLength: 4 }), async (v, ops) => {
      const name = `prop-${++n}`
      let target: AnyObject | undefined
      if (v !== 'create') {
        plan = undefined
        const created = await app().request({ method: 'POST', url: CMS, payload: { metadata: { name, labels: { prop: 'yes' } }, data: { v: 'first' } } })
        assert.equal(created.statusCode, 201, created.body)
        target = created.json()
      }
      const before = await snapshot()
      plan = ops
      const res = await request(v, name, target)
      plan = undefined
      const after = await snapshot()
      await assertWellPlaced(after)
      if (res.statusCode >= 300) {
        assert.equal(res.json().kind, 'Status', res.body)
        assert.deepEqual(after, before, `a refused ${v} (${res.statusCode}) wrote something`)
        return
      }
      const added = [...after.keys()].filter(uid => !before.has(uid))
      const removed = [...before.keys()].filter(uid => !after.has(uid))
      const changed = [...after.keys()].filter(uid => before.has(uid) && after.get(uid)!.metadata.resourceVersion !== before.get(uid)!.metadata.resourceVersion)
      if (v === 'create') {
        assert.deepEqual([removed, changed], [[], []])
        assert.equal(added.length, 1, `${added.length} objects created`)
        assert.equal(after.get(added[0]!)!.metadata.name, res.json().metadata.name)
      } else if (v === 'delete') {
        assert.deepEqual([added, changed.filter(uid => uid !== target!.metadata.uid)], [[], []])
        assert.ok(removed.length === 0 || (removed.length === 1 && removed[0] === target!.metadata.uid))
      } else {
        assert.deepEqual([added, removed], [[], []])
        assert.ok(changed.every(uid => uid === target!.metadata.uid), `${v} changed another object`)
        const stored = after.get(target!.metadata.uid)!
        assert.equal(stored.metadata.name, name)
        assert.equal(stored.metadata.creationTimestamp, target!.metadata.creationTimestamp)
      }
    }), { numRuns: RUNS, seed: SEED })
  })
})
