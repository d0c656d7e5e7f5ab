// NodeRestriction (off by default): what a node agent (system:node:<name> in system:nodes) may
// write, rule by rule, with the reference server's messages. The node is impersonated by the
// admin; authorization allows everything, so each refusal here is the plugin's.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { GROUPS, MIRROR_POD_ANNOTATION, NAMESPACES, NODE_TAINTS } from '../../resources/naming.js'

type App = Awaited<ReturnType<typeof buildTestApp>>
type Req = Parameters<App['request']>[0]

const asNode = (name: string) => ({ 'impersonate-user': `system:node:${name}`, 'impersonate-group': 'system:nodes' })
const MERGE = { 'content-type': 'application/merge-patch+json' }
const pods = '/api/v1/namespaces/default/pods'

async function setup (t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t, { admission: { enable: ['NodeRestriction'] } })
  const node = (name: string, r: Req) => app.request({ ...r, headers: { ...asNode(name), ...(r.headers as Record<string, string> | undefined) } })
  return { ...app, node }
}

const forbiddenWith = (res: { statusCode: number, body: string, json: () => any }, message: string): void => {
  assert.equal(res.statusCode, 403, res.body)
  assert.equal(res.json().message, message)
}

describe('NodeRestriction', () => {
  it('lets a node write only its own Node, with allowed labels and unchanged taints, and not delete it', async (t) => {
    const { node, request } = await setup(t)
    const labels = { 'svc.io/hostname': 'n1', 'topology.svc.io/zone': 'z1', 'nodeagent.svc.io/pool': 'a', 'node.svc.io/gpu': 'yes', 'example.com/team': 'blue', 'kubernetes.io/arch': 'amd64' }
    const own = await node('n1', { method: 'POST', url: '/api/v1/nodes', payload: { metadata: { name: 'n1', labels } } })
    assert.equal(own.statusCode, 201, own.body)
    forbiddenWith(await node('n1', { method: 'POST', url: '/api/v1/nodes', payload: { metadata: { name: 'n2' } } }), 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"')
    forbiddenWith(await node('n3', { method: 'POST', url: '/api/v1/nodes', payload: { metadata: { name: 'n3', labels: { 'node-restriction.svc.io/trusted': 'true', 'svc.io/role': 'x', 'kubernetes.io/custom': 'y' } } } }),
      'nodes "n3" is forbidden: node "n3" is not allowed to set the following labels: kubernetes.io/custom, node-restriction.svc.io/trusted, svc.io/role')
    forbiddenWith(await node('n1', { method: 'PATCH', url: '/api/v1/nodes/n1', headers: MERGE, payload: { spec: { taints: [] } } }), 'nodes "n1" is forbidden: node "n1" is not allowed to modify taints')
    forbiddenWith(await node('n1', { method: 'PATCH', url: '/api/v1/nodes/n1', headers: MERGE, payload: { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n2', uid: 'u' }] } } }),
      'nodes "n1" is forbidden: node "n1" is not allowed to modify ownerReferences')
    forbiddenWith(await node('n1', { method: 'PATCH', url: '/api/v1/nodes/n1', headers: MERGE, payload: { metadata: { labels: { 'svc.io/hostname': null, 'node-restriction.svc.io/a': 'b' } } } }),
      'nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.svc.io/a')
    const relabelled = await node('n1', { method: 'PATCH', url: '/api/v1/nodes/n1', headers: MERGE, payload: { metadata: { labels: { 'nodeagent.svc.io/pool': 'b', 'example.com/team': null } }, spec: { unschedulable: true } } })
    assert.equal(relabelled.statusCode, 200, relabelled.body)
    assert.deepEqual(relabelled.json().spec.taints, [{ key: NODE_TAINTS.notReady, effect: 'NoSchedule' }])
    const status = await node('n1', { method: 'PATCH', url: '/api/v1/nodes/n1/status', headers: MERGE, payload: { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] } } })
    assert.equal(status.statusCode, 200, status.body)
    forbiddenWith(await node('n2', { method: 'PATCH', url: '/api/v1/nodes/n1/status', headers: MERGE, payload: { status: { phase: 'Running' } } }), 'nodes "n1" is forbidden: node "n2" is not allowed to modify node "n1"')
    forbiddenWith(await node('n1', { method: 'DELETE', url: '/api/v1/nodes/n1' }), 'nodes "n1" is forbidden: node "n1" is not allowed to delete its own Node object')
    // Only node agents are restricted.
    assert.equal((await request({ method: 'PATCH', url: '/api/v1/nodes/n1', headers: MERGE, payload: { spec: { taints: [] } } })).statusCode, 200)
  })

  it('lets a node create only mirror pods owned by its Node that reference nothing, and delete only its pods', async (t) => {
    const { node, request } = await setup(t)
    const n1 = await request({ method: 'POST', url: '/api/v1/nodes', payload: { metadata: { name: 'n1' } } })
    const uid: string = n1.json().metadata.uid
    const owner = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid, controller: true }
    const mirror = (name: string, over: { meta?: Record<string, unknown>, spec?: Record<string, unknown> } = {}) => ({
      metadata: { name, annotations: { [MIRROR_POD_ANNOTATION]: 'hash' }, ownerReferences: [owner], ...over.meta },
      spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'nginx:1.27' }], ...over.spec }
    })
    const create = (payload: Record<string, unknown>) => node('n1', { method: 'POST', url: pods, payload })
    const created = await create(mirror('static-web'))
    assert.equal(created.statusCode, 201, created.body)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ metadata: { name: 'p' }, spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'nginx:1.27' }] } }, `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "n1" can only create mirror pods`],
      [mirror('p', { spec: { nodeName: 'n2' } }), 'node "n1" can only create pods with spec.nodeName set to itself'],
      [mirror('p', { meta: { ownerReferences: [] } }), 'node "n1" can only create pods with an owner reference set to itself'],
      [mirror('p', { meta: { ownerReferences: [{ ...owner, controller: false }] } }), 'node "n1" can only create pods with a controller owner reference set to itself'],
      [mirror('p', { meta: { ownerReferences: [{ ...owner, blockOwnerDeletion: true }] } }), 'node "n1" must not set blockOwnerDeletion on an owner reference'],
      [mirror('p', { meta: { ownerReferences: [{ ...owner, uid: 'other' }] } }), `node n1 UID mismatch: expected other got ${uid}`],
      [mirror('p', { spec: { serviceAccountName: 'default' } }), 'node "n1" can not create pods that reference a service account'],
      [mirror('p', { spec: { volumes: [{ name: 'v', secret: { secretName: 's' } }] } }), 'node "n1" can not create pods that reference secrets'],
      [mirror('p', { spec: { volumes: [{ name: 'v', configMap: { name: 'c' } }] } }), 'node "n1" can not create pods that reference configmaps'],
      [mirror('p', { spec: { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] } }), 'node "n1" can not create pods that reference persistentvolumeclaims']
    ]
    for (const [payload, why] of cases) forbiddenWith(await create(payload), `pods "p" is forbidden: ${why}`)
    const other = await request({ method: 'POST', url: pods, payload: { metadata: { name: 'elsewhere' }, spec: { nodeName: 'n2', containers: [{ name: 'a', image: 'nginx:1.27' }] } } })
    assert.equal(other.statusCode, 201, other.body)
    forbiddenWith(await node('n1', { method: 'DELETE', url: `${pods}/elsewhere` }), 'pods "elsewhere" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself')
    forbiddenWith(await node('n1', { method: 'PATCH', url: `${pods}/static-web`, headers: MERGE, payload: { metadata: { labels: { a: 'b' } } } }),
      'pods "static-web" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods')
    assert.equal((await node('n1', { method: 'DELETE', url: `${pods}/static-web` })).statusCode, 200)
  })

  it('lets a node update the status of its own pods only', async (t) => {
    const { node, request } = await setup(t)
    for (const [name, nodeName] of [['mine', 'n1'], ['theirs', 'n2']]) {
      const res = await request({ method: 'POST', url: pods, payload: { metadata: { name, labels: { app: 'web' } }, spec: { nodeName, containers: [{ name: 'a', image: 'nginx:1.27' }] } } })
      assert.equal(res.statusCode, 201, res.body)
    }
    const running = await node('n1', { method: 'PATCH', url: `${pods}/mine/status`, headers: MERGE, payload: { status: { phase: 'Running' } } })
    assert.equal(running.statusCode, 200, running.body)
    forbiddenWith(await node('n1', { method: 'PATCH', url: `${pods}/theirs/status`, headers: MERGE, payload: { status: { phase: 'Running' } } }),
      'pods "theirs" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself')
  })

  it('confines leases to the node-lease namespace and the node\'s own name, and CSINodes to its own', async (t) => {
    const { node } = await setup(t)
    const leases = (ns: string) => `/apis/${GROUPS.coordination}/v1/namespaces/${ns}/leases`
    forbiddenWith(await node('n1', { method: 'POST', url: leases('default'), payload: { metadata: { name: 'n1' } } }),
      `leases.${GROUPS.coordination} "n1" is forbidden: can only access leases in the "${NAMESPACES.nodeLease}" system namespace`)
    forbiddenWith(await node('n1', { method: 'POST', url: leases(NAMESPACES.nodeLease), payload: { metadata: { name: 'n2' } } }),
      `leases.${GROUPS.coordination} "n2" is forbidden: can only access node lease with the same name as the requesting node`)
    assert.equal((await node('n1', { method: 'POST', url: leases(NAMESPACES.nodeLease), payload: { metadata: { name: 'n1' }, spec: { holderIdentity: 'n1' } } })).statusCode, 201)
    const csinodes = `/apis/${GROUPS.storage}/v1/csinodes`
    forbiddenWith(await node('n1', { method: 'POST', url: csinodes, payload: { metadata: { name: 'n2' }, spec: { drivers: [] } } }),
      `csinodes.${GROUPS.storage} "n2" is forbidden: can only access CSINode with the same name as the requesting node`)
    const own = await node('n1', { method: 'POST', url: csinodes, payload: { metadata: { name: 'n1' }, spec: { drivers: [] } } })
    assert.equal(own.statusCode, 201, own.body)
  })

  it('lets a node change only the capacity and conditions of a claim\'s status', async (t) => {
    const { node, request } = await setup(t)
    const claims = '/api/v1/namespaces/default/persistentvolumeclaims'
    const made = await request({ method: 'POST', url: claims, payload: { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } })
    assert.equal(made.statusCode, 201, made.body)
    forbiddenWith(await node('n1', { method: 'PATCH', url: `${claims}/data`, headers: MERGE, payload: { metadata: { labels: { a: 'b' } } } }), 'persistentvolumeclaims "data" is forbidden: may only update PVC status')
    const grown = await node('n1', { method: 'PATCH', url: `${claims}/data/status`, headers: MERGE, payload: { status: { capacity: { storage: '2Gi' } } } })
    assert.equal(grown.statusCode, 200, grown.body)
    forbiddenWith(await node('n1', { method: 'PATCH', url: `${claims}/data/status`, headers: MERGE, payload: { status: { phase: 'Lost' } } }),
      'persistentvolumeclaims "data" is forbidden: node "n1" is not allowed to update fields other than status.capacity and status.conditions: status.phase')
  })

  it('lets a node request tokens only bound to a pod on itself', async (t) => {
    const { node, request } = await setup(t)
    const ids: Record<string, string> = {}
    for (const [name, nodeName] of [['mine', 'n1'], ['theirs', 'n2']]) {
      const res = await request({ method: 'POST', url: pods, payload: { metadata: { name }, spec: { nodeName, containers: [{ name: 'a', image: 'nginx:1.27' }] } } })
      assert.equal(res.statusCode, 201, res.body)
      ids[name] = res.json().metadata.uid
    }
    const token = (ref?: Record<string, unknown>) => node('n1', {
      method: 'POST',
      url: '/api/v1/namespaces/default/serviceaccounts/default/token',
      payload: { apiVersion: `${GROUPS.authentication}/v1`, kind: 'TokenRequest', spec: { audiences: ['api'], boundObjectRef: ref } }
    })
    // The default account comes from its controller; wait for it through the admin.
    for (let i = 0; i < 100 && (await request({ method: 'GET', url: '/api/v1/namespaces/default/serviceaccounts/default' })).statusCode !== 200; i++) await new Promise(resolve => setTimeout(resolve, 50))
    forbiddenWith(await token(), 'serviceaccounts "default" is forbidden: node requested token not bound to a pod')
    forbiddenWith(await token({ apiVersion: 'v1', kind: 'Pod', name: 'mine' }), 'serviceaccounts "default" is forbidden: node requested token with a pod binding without a uid')
    forbiddenWith(await token({ apiVersion: 'v1', kind: 'Pod', name: 'theirs', uid: ids.theirs }), 'serviceaccounts "default" is forbidden: node requested token bound to a pod scheduled on a different node')
    const issued = await token({ apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: ids.mine })
    assert.equal(issued.statusCode, 201, issued.body)
  })

  it('is off by default', async (t) => {
    const app = await buildTestApp(t)
    await app.request({ method: 'POST', url: '/api/v1/nodes', payload: { metadata: { name: 'n1' } } })
    const res = await app.request({ method: 'DELETE', url: '/api/v1/nodes/n1', headers: asNode('n2') })
    assert.equal(res.statusCode, 200, res.body)
  })
})
