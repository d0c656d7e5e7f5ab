// @kubernetes/client-node against a started server: typed calls, strategic merge patch by
// KubernetesObjectApi, and an informer following ConfigMaps through creates, updates, deletes
// and a compaction that forces it through 410 Gone and a re-list.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as k8s from '@kubernetes/client-node'
import { startTestServer } from '../helpers/tls-app.js'

const until = async (what: string, cond: () => boolean, ms = 15_000): Promise<void> => {
  const deadline = Date.now() + ms
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 25))
  }
}

test('client-node: typed calls and an informer across a compaction', async (t) => {
  const server = await startTestServer(t, { compactionMinRetain: 0 })
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(server.kubeconfig)
  const core = kc.makeApiClient(k8s.CoreV1Api)
  const ns = 'informed'
  await core.createNamespace({ body: { metadata: { name: ns } } })

  const resources = await core.getAPIResources()
  assert.deepEqual(resources.resources.find(r => r.name === 'configmaps') && { kind: 'ConfigMap', namespaced: true },
    { kind: resources.resources.find(r => r.name === 'configmaps')!.kind, namespaced: resources.resources.find(r => r.name === 'configmaps')!.namespaced })

  let lists = 0
  const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${ns}/configmaps`, async () => {
    lists++
    return await core.listNamespacedConfigMap({ namespace: ns })
  })
  const seen: string[] = []
  const errors: unknown[] = []
  informer.on('add', (o) => seen.push(`add ${o.metadata!.name} ${JSON.stringify(o.data ?? {})}`))
  informer.on('update', (o) => seen.push(`update ${o.metadata!.name} ${JSON.stringify(o.data ?? {})}`))
  informer.on('delete', (o) => seen.push(`delete ${o.metadata!.name}`))
  // Stopping the informer aborts its own request; anything else is a failure.
  informer.on('error', (err) => { if ((err as { type?: string }).type !== 'aborted') errors.push(err) })
  await informer.start()
  t.after(() => informer.stop())

  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' }, data: { v: '1' } } })
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b' }, data: { v: '1' } } })
  await core.replaceNamespacedConfigMap({ namespace: ns, name: 'a', body: { metadata: { name: 'a' }, data: { v: '2' } } })
  // KubernetesObjectApi patches with a strategic merge patch by default.
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc)
  await objects.patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: ns }, data: { w: '1' } } as k8s.KubernetesObject)
  await core.deleteNamespacedConfigMap({ namespace: ns, name: 'a' })
  await until('the first changes', () => seen.length >= 5)
  assert.deepEqual(seen, ['add a {"v":"1"}', 'add b {"v":"1"}', 'update a {"v":"2"}', 'update b {"v":"1","w":"1"}', 'delete a'])
  assert.equal(lists, 1)

  // While the informer is away, history moves on and is compacted past its position.
  informer.stop()
  seen.length = 0
  await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'c' }, data: { v: '1' } } })
  await core.deleteNamespacedConfigMap({ namespace: ns, name: 'b' })
  const current = await server.app.storage.currentRevision()
  await server.app.storage.compact(current)
  await until('the watch caches to drop the compacted history', () => server.app.watchCaches.all().every(c => c.windowStart >= current))

  // It resumes from its old position, is told 410 Gone, lists again and reports the difference.
  await informer.start()
  await until('the re-list', () => seen.length >= 2)
  assert.equal(lists, 2, 'the informer re-listed after 410')
  assert.deepEqual(seen.sort(), ['add c {"v":"1"}', 'delete b'])
  assert.deepEqual(informer.list().map(o => o.metadata!.name), ['c'])
  assert.deepEqual(errors, [])
})
