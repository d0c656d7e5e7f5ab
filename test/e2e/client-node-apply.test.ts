// @kubernetes/client-node's server-side apply (KubernetesObjectApi.patch with the apply
// content type) against a started server: create, merge, a conflict, a forced controller-style
// apply that never read the object, and a dry run.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as k8s from '@kubernetes/client-node'
import { startTestServer } from '../helpers/tls-app.js'

test('client-node: server-side apply with PatchStrategy.ServerSideApply', async (t) => {
  const server = await startTestServer(t)
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(server.kubeconfig)
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc)
  const apply = (data: Record<string, string>, manager: string, opts: { force?: boolean, dryRun?: string } = {}) =>
    objects.patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: 'default' }, data } as k8s.KubernetesObject,
      undefined, opts.dryRun, manager, opts.force, k8s.PatchStrategy.ServerSideApply) as Promise<k8s.V1ConfigMap>

  const created = await apply({ a: '1' }, 'tool')
  assert.deepEqual(created.data, { a: '1' })
  assert.equal(created.metadata!.managedFields![0]!.manager, 'tool')
  assert.equal(created.metadata!.managedFields![0]!.operation, 'Apply')

  const merged = await apply({ a: '1', b: '2' }, 'tool')
  assert.deepEqual(merged.data, { a: '1', b: '2' })

  await assert.rejects(apply({ a: 'other' }, 'controller'), (err: any) => {
    assert.equal(err.code, 409)
    const status = typeof err.body === 'string' ? JSON.parse(err.body) : err.body
    assert.equal(status.message, 'Apply failed with 1 conflict: conflict with "tool": .data.a')
    assert.equal(status.details.causes[0].reason, 'FieldManagerConflict')
    return true
  })

  // A controller applies with force, without reading the object or naming a resourceVersion.
  const forced = await apply({ a: 'other' }, 'controller', { force: true })
  assert.deepEqual(forced.data, { a: 'other', b: '2' })
  const owned = (manager: string) => Object.keys((forced.metadata!.managedFields!.find(e => e.manager === manager)!.fieldsV1 as any)['f:data'])
  assert.deepEqual(owned('controller'), ['f:a'])
  assert.deepEqual(owned('tool'), ['f:b'], 'the forced field left its old owner')

  const dry = await apply({ a: 'other', c: '3' }, 'controller', { force: true, dryRun: 'All' })
  assert.equal(dry.data!.c, '3')
  const core = kc.makeApiClient(k8s.CoreV1Api)
  const stored = await core.readNamespacedConfigMap({ name: 'applied', namespace: 'default' })
  assert.equal(stored.data!.c, undefined)
})
