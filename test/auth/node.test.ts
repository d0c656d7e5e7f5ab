// Node mode: node agents reach their own Node and CSINode and only what pods bound to them use.
// Asked through SubjectAccessReview, so the decision is seen whether or not a kind is served.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { GROUPS } from '../../resources/naming.js'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { defineResource } from '../../resources/define.js'
import { objectSchema } from '../../resources/meta.js'

const node = (name: string) => ({ user: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] })

describe('Node mode', () => {
  let t: TestApp
  const cleanups: Array<() => unknown> = []
  before(async () => {
    t = await buildTestApp({ after: (fn) => { cleanups.push(fn) } }, { authorizationModes: ['Node', 'RBAC'] })
  })
  after(async () => { for (const fn of cleanups.reverse()) await fn() })

  async function allowed (who: { user: string, groups: string[] }, resourceAttributes: object): Promise<boolean> {
    const res = await t.request({ method: 'POST', url: `/apis/${GROUPS.authorization}/v1/subjectaccessreviews`, payload: { spec: { ...who, resourceAttributes } } })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().status.allowed as boolean
  }

  const cases: Array<{ name: string, who: { user: string, groups: string[] }, attrs: object, want: boolean }> = [
    { name: 'a node gets its own Node', who: node('n1'), attrs: { verb: 'get', resource: 'nodes', name: 'n1' }, want: true },
    { name: 'a node updates its own Node status', who: node('n1'), attrs: { verb: 'patch', resource: 'nodes', subresource: 'status', name: 'n1' }, want: true },
    { name: 'a node does not get another Node', who: node('n1'), attrs: { verb: 'get', resource: 'nodes', name: 'n2' }, want: false },
    { name: 'a node gets its own CSINode', who: node('n1'), attrs: { verb: 'get', group: GROUPS.storage, resource: 'csinodes', name: 'n1' }, want: true },
    { name: 'a node does not get another CSINode', who: node('n1'), attrs: { verb: 'get', group: GROUPS.storage, resource: 'csinodes', name: 'n2' }, want: false },
    { name: 'a node does not read a secret no pod of it uses', who: node('n1'), attrs: { verb: 'get', resource: 'secrets', namespace: 'default', name: 's' }, want: false },
    { name: 'a node does not list secrets', who: node('n1'), attrs: { verb: 'list', resource: 'secrets', namespace: 'default' }, want: false },
    { name: 'a node does not get an unrelated volume', who: node('n1'), attrs: { verb: 'get', resource: 'persistentvolumes', name: 'pv' }, want: false },
    { name: 'a node lists pods (static node rules)', who: node('n1'), attrs: { verb: 'list', resource: 'pods' }, want: true },
    { name: 'a node does not delete namespaces', who: node('n1'), attrs: { verb: 'delete', resource: 'namespaces', name: 'default' }, want: false },
    { name: 'a user without the nodes group is no node', who: { user: 'system:node:n1', groups: ['system:authenticated'] }, attrs: { verb: 'get', resource: 'nodes', name: 'n1' }, want: false }
  ]
  for (const c of cases) it(c.name, async () => { assert.equal(await allowed(c.who, c.attrs), c.want) })
})

// Until the workload and volume kinds are served on this branch, schema-less stand-ins with their
// upstream JSON shapes feed the graph; once the real kinds are registered they are used instead.
const STAND_INS = [
  { group: '', kind: 'Pod', plural: 'pods', scope: 'Namespaced' as const },
  { group: '', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', scope: 'Namespaced' as const },
  { group: '', kind: 'PersistentVolume', plural: 'persistentvolumes', scope: 'Cluster' as const },
  { group: GROUPS.storage, kind: 'VolumeAttachment', plural: 'volumeattachments', scope: 'Cluster' as const }
]

function registerStandIns (app: FastifyInstance): string[] {
  const added: string[] = []
  for (const k of STAND_INS) {
    if (app.resources.find({ group: k.group, resource: k.plural }) !== undefined) continue
    const apiVersion = k.group === '' ? 'v1' : `${k.group}/v1`
    app.resources.add(defineResource({
      group: k.group, version: 'v1', kind: k.kind, plural: k.plural, singular: k.kind.toLowerCase(), scope: k.scope,
      schema: objectSchema(apiVersion, k.kind, { spec: Type.Optional(Type.Record(Type.String(), Type.Unknown())), status: Type.Optional(Type.Record(Type.String(), Type.Unknown())) })
    }))
    added.push(k.plural)
  }
  return added
}

describe('Node mode graph', () => {
  let t: TestApp
  let standIns: string[] = []
  const cleanups: Array<() => unknown> = []
  before(async () => {
    t = await buildTestApp({ after: (fn) => { cleanups.push(fn) } }, { authorizationModes: ['Node', 'RBAC'] }, { beforeReady: (app) => { standIns = registerStandIns(app) } })
  })
  after(async () => { for (const fn of cleanups.reverse()) await fn() })

  async function allowed (who: { user: string, groups: string[] }, resourceAttributes: object): Promise<boolean> {
    const res = await t.request({ method: 'POST', url: `/apis/${GROUPS.authorization}/v1/subjectaccessreviews`, payload: { spec: { ...who, resourceAttributes } } })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().status.allowed as boolean
  }
  const post = async (url: string, payload: object) => {
    const res = await t.request({ method: 'POST', url, payload })
    assert.equal(res.statusCode, 201, res.body)
  }
  const get = (resource: string, name: string, namespace = 'default') => ({ verb: 'get', resource, name, namespace })

  it('lets a node read exactly what the pods bound to it reference', async () => {
    if (standIns.length > 0) console.error(`# node graph fed by test-only stand-ins for: ${standIns.join(', ')}`)
    await post('/api/v1/persistentvolumes', { metadata: { name: 'pv1' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { name: 'csi-secret', namespace: 'default' } } } })
    await post('/api/v1/namespaces/default/persistentvolumeclaims', { metadata: { name: 'claim' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: 'pv1' } })
    await post('/api/v1/namespaces/default/pods', {
      metadata: { name: 'p' },
      spec: {
        nodeName: 'n1',
        containers: [{ name: 'c', image: 'busybox', envFrom: [{ configMapRef: { name: 'env-cm' } }], env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }] }],
        volumes: [
          { name: 'a', secret: { secretName: 'vol-secret' } },
          { name: 'b', projected: { sources: [{ configMap: { name: 'projected-cm' } }] } },
          { name: 'c', persistentVolumeClaim: { claimName: 'claim' } }
        ]
      }
    })
    for (const [resource, name] of [['secrets', 'vol-secret'], ['secrets', 'env-secret'], ['secrets', 'csi-secret'], ['configmaps', 'env-cm'], ['configmaps', 'projected-cm'], ['persistentvolumeclaims', 'claim']]) {
      assert.equal(await allowed(node('n1'), get(resource!, name!)), true, `${resource}/${name} for n1`)
      assert.equal(await allowed(node('n2'), get(resource!, name!)), false, `${resource}/${name} for n2`)
    }
    assert.equal(await allowed(node('n1'), { verb: 'get', resource: 'persistentvolumes', name: 'pv1' }), true)
    assert.equal(await allowed(node('n2'), { verb: 'get', resource: 'persistentvolumes', name: 'pv1' }), false)
    assert.equal(await allowed(node('n1'), get('secrets', 'other')), false)
    assert.equal(await allowed(node('n1'), { verb: 'list', resource: 'secrets', namespace: 'default', name: 'vol-secret' }), true, 'a list pinned to a referenced name')
    assert.equal(await allowed(node('n1'), { verb: 'update', resource: 'secrets', namespace: 'default', name: 'vol-secret' }), false, 'reads only')
    const claimStatus = (verb: string) => ({ verb, resource: 'persistentvolumeclaims', subresource: 'status', namespace: 'default', name: 'claim' })
    assert.equal(await allowed(node('n1'), claimStatus('patch')), true, 'the status of a claim its pod uses')
    assert.equal(await allowed(node('n2'), claimStatus('update')), false, 'not the status of another node\'s claim')
    assert.equal(await allowed(node('n1'), claimStatus('delete')), false, 'only update or patch the status')
  })

  it('follows pods as they are deleted', async () => {
    const res = await t.request({ method: 'DELETE', url: '/api/v1/namespaces/default/pods/p' })
    assert.equal(res.statusCode, 200, res.body)
    // Deletion may be graceful with the real kind; the reference goes once the pod is gone.
    const end = Date.now() + 5000
    let still = true
    while (still && Date.now() < end) {
      still = await allowed(node('n1'), get('secrets', 'vol-secret'))
      if (still) await new Promise(resolve => setTimeout(resolve, 100))
    }
    assert.equal(still, false)
  })

  it('lets a node get the VolumeAttachments for itself only', async () => {
    await post(`/apis/${GROUPS.storage}/v1/volumeattachments`, { metadata: { name: 'va1' }, spec: { attacher: 'd', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } } })
    assert.equal(await allowed(node('n1'), { verb: 'get', group: GROUPS.storage, resource: 'volumeattachments', name: 'va1' }), true)
    assert.equal(await allowed(node('n2'), { verb: 'get', group: GROUPS.storage, resource: 'volumeattachments', name: 'va1' }), false)
  })
})

describe('pod references in the node graph', () => {
  it('collects secrets, config maps and claims from volumes, projections, env and pull secrets', async () => {
    const { podReferences } = await import('../../resources/pod-references.js')
    const refs = podReferences({
      metadata: { name: 'p' },
      spec: {
        imagePullSecrets: [{ name: 'pull' }],
        initContainers: [{ name: 'i', envFrom: [{ secretRef: { name: 'init-env' } }] }],
        containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'cm-key', key: 'k' } } }, { name: 'B', value: 'plain' }] }],
        volumes: [
          { name: 'v1', secret: { secretName: 'vol' } },
          { name: 'v2', configMap: { name: 'cm-vol' } },
          { name: 'v3', projected: { sources: [{ secret: { name: 'proj' } }, { serviceAccountToken: { path: 't' } }] } },
          { name: 'v4', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'v5', ephemeral: { volumeClaimTemplate: { spec: {} } } },
          { name: 'v6', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi-secret' } } }
        ]
      }
    })
    assert.deepEqual(refs.secrets.sort(), ['csi-secret', 'init-env', 'proj', 'pull', 'vol'])
    assert.deepEqual(refs.configmaps.sort(), ['cm-key', 'cm-vol'])
    assert.deepEqual(refs.claims.sort(), ['data', 'p-v5'])
  })
})
