// OwnerReferencesPermissionEnforcement (off by default), under RBAC: changing ownerReferences
// needs delete on the object (creates are exempt), a new blockOwnerDeletion needs update on the
// owner's finalizers subresource, with the reference server's messages.
import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { suiteApp } from '../resources/suite.js'
import { GROUPS } from '../../resources/naming.js'

const RBAC_V1 = `/apis/${GROUPS.rbac}/v1`
const configmaps = '/api/v1/namespaces/default/configmaps'
const mergePatch = { 'content-type': 'application/merge-patch+json' }

describe('OwnerReferencesPermissionEnforcement', () => {
  const app = suiteApp({ authorizationModes: ['RBAC'], admission: { enable: ['OwnerReferencesPermissionEnforcement'] } })
  let ownerRef: Record<string, unknown>
  let nodeRef: Record<string, unknown>

  const grant = async (name: string, user: string, rules: unknown[], cluster = false) => {
    const roles = cluster ? `${RBAC_V1}/clusterroles` : `${RBAC_V1}/namespaces/default/roles`
    const bindings = cluster ? `${RBAC_V1}/clusterrolebindings` : `${RBAC_V1}/namespaces/default/rolebindings`
    assert.equal((await app().request({ method: 'POST', url: roles, payload: { metadata: { name }, rules } })).statusCode, 201)
    const binding = { metadata: { name }, roleRef: { apiGroup: GROUPS.rbac, kind: cluster ? 'ClusterRole' : 'Role', name }, subjects: [{ kind: 'User', apiGroup: GROUPS.rbac, name: user }] }
    assert.equal((await app().request({ method: 'POST', url: bindings, payload: binding })).statusCode, 201)
  }
  const create = (as: 'alice' | 'bob', name: string, refs: unknown[]) =>
    app().request({ method: 'POST', url: configmaps, as, payload: { metadata: { name, ownerReferences: refs } } })

  before(async () => {
    const owner = (await app().request({ method: 'POST', url: configmaps, payload: { metadata: { name: 'owner' } } })).json()
    ownerRef = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }
    const node = (await app().request({ method: 'POST', url: '/api/v1/nodes', payload: { metadata: { name: 'node-1' } } })).json()
    nodeRef = { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: node.metadata.uid }
    const write = ['create', 'get', 'list', 'update', 'patch']
    await grant('writer', 'alice', [{ apiGroups: [''], resources: ['configmaps'], verbs: write }])
    await grant('owner-of-all', 'bob', [{ apiGroups: [''], resources: ['configmaps'], verbs: [...write, 'delete'] }, { apiGroups: [''], resources: ['configmaps/finalizers'], verbs: ['update'] }])
  })

  it('is off by default', async (t) => {
    const { app: plain } = await buildTestApp(t)
    assert.ok(!plain.admission.enabled().includes('OwnerReferencesPermissionEnforcement'))
  })

  it('lets a create set owner references without delete permission', async () => {
    const res = await create('alice', 'dependent', [ownerRef])
    assert.equal(res.statusCode, 201, res.body)
  })

  it('refuses changing owner references without delete permission on the object', async () => {
    const res = await app().request({ method: 'PATCH', url: `${configmaps}/dependent`, as: 'alice', headers: mergePatch, payload: { metadata: { ownerReferences: [] } } })
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().reason, 'Forbidden')
    assert.equal(res.json().message, 'configmaps "dependent" is forbidden: cannot set an ownerRef on a resource you can\'t delete: , <nil>')
  })

  it('lets other changes through while the references stay the same', async () => {
    const res = await app().request({ method: 'PATCH', url: `${configmaps}/dependent`, as: 'alice', headers: mergePatch, payload: { data: { a: 'b' } } })
    assert.equal(res.statusCode, 200, res.body)
  })

  it('lets a user with delete permission change owner references', async () => {
    const res = await app().request({ method: 'PATCH', url: `${configmaps}/dependent`, as: 'bob', headers: mergePatch, payload: { metadata: { ownerReferences: [] } } })
    assert.equal(res.statusCode, 200, res.body)
  })

  it('refuses blockOwnerDeletion without update on the owner\'s finalizers', async () => {
    const res = await create('alice', 'blocking', [{ ...ownerRef, blockOwnerDeletion: true }])
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().message, 'configmaps "blocking" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>')
    assert.equal((await create('alice', 'not-blocking', [{ ...ownerRef, blockOwnerDeletion: false }])).statusCode, 201)
  })

  it('lets blockOwnerDeletion through with update on the owner\'s finalizers, and asks again only when it is switched on', async () => {
    assert.equal((await create('bob', 'blocked-by-bob', [{ ...ownerRef, blockOwnerDeletion: true }])).statusCode, 201)
    await grant('deleter', 'alice', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] }])
    const adding = await app().request({ method: 'PATCH', url: `${configmaps}/not-blocking`, as: 'alice', headers: mergePatch, payload: { metadata: { ownerReferences: [{ ...ownerRef, blockOwnerDeletion: true }] } } })
    assert.equal(adding.statusCode, 403, adding.body)
    assert.match(adding.json().message, /can't set finalizers on/)
    const keeping = await app().request({ method: 'PATCH', url: `${configmaps}/blocked-by-bob`, as: 'alice', headers: mergePatch, payload: { metadata: { ownerReferences: [{ ...ownerRef, blockOwnerDeletion: true, controller: true }] } } })
    assert.equal(keeping.statusCode, 200, keeping.body)
  })

  it('asks about a cluster-scoped owner outside any namespace', async () => {
    const refused = await create('alice', 'on-node', [{ ...nodeRef, blockOwnerDeletion: true }])
    assert.equal(refused.statusCode, 403, refused.body)
    await grant('node-finalizer', 'alice', [{ apiGroups: [''], resources: ['nodes/finalizers'], verbs: ['update'] }], true)
    const res = await create('alice', 'on-node', [{ ...nodeRef, blockOwnerDeletion: true }])
    assert.equal(res.statusCode, 201, res.body)
  })

  it('refuses blockOwnerDeletion on a kind the server does not know', async () => {
    const res = await create('alice', 'unknown-owner', [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u-1', blockOwnerDeletion: true }])
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().message, 'configmaps "unknown-owner" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget: no matches for kind "Widget" in version "example.com/v1"')
  })

  it('lets a user who may finalize anything block any owner', async () => {
    await grant('finalize-all', 'bob', [{ apiGroups: ['*'], resources: ['*/finalizers'], verbs: ['update'] }], true)
    const res = await create('bob', 'bob-unknown-owner', [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u-1', blockOwnerDeletion: true }])
    assert.equal(res.statusCode, 201, res.body)
  })
})
