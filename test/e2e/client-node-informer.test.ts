// An @kubernetes/client-node informer follows ConfigMaps through creates, updates, deletes, a
// server restart and a compaction (410, re-list, resume).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as k8s from '@kubernetes/client-node'
import { ensureCertificates, writeKubeconfig } from '../../auth/pki.js'
import { buildApp } from '../../server/app.js'
import { freshDatabase } from '../helpers/postgres.js'

async function until (what: string, check: () => boolean, ms = 15000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}

test('a client-node informer survives a restart and a compaction', async (t) => {
  const cleanups: Array<() => unknown> = []
  t.after(async () => { for (const fn of cleanups.reverse()) await fn() })
  const databaseUrl = await freshDatabase({ after: (fn) => { cleanups.push(fn) } })
  const dir = mkdtempSync(join(tmpdir(), 'informer-'))
  const pki = await ensureCertificates(dir)
  const start = async (port: number) => {
    const app = await buildApp({ databaseUrl, tls: { cert: pki.servingCertPem, key: pki.servingKeyPem, clientCA: pki.caCertPem }, compactionIntervalMs: 0, compactionMinRetain: 0 })
    await app.listen({ port, host: '127.0.0.1' })
    await app.health.postStartHooksFinished()
    return app
  }
  let app = await start(0)
  cleanups.push(() => app.close())
  const port = (app.server.address() as { port: number }).port
  writeKubeconfig(pki.paths.kubeconfig, { server: `https://127.0.0.1:${port}`, caCertPem: pki.caCertPem, clientCertPem: pki.adminCertPem, clientKeyPem: pki.adminKeyPem })

  const kc = new k8s.KubeConfig()
  kc.loadFromFile(pki.paths.kubeconfig)
  const core = kc.makeApiClient(k8s.CoreV1Api)
  const informer = k8s.makeInformer(kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default' }))
  const seen: string[] = []
  informer.on('add', (o) => seen.push(`add ${o.metadata!.name}`))
  informer.on('update', (o) => seen.push(`update ${o.metadata!.name}`))
  informer.on('delete', (o) => seen.push(`delete ${o.metadata!.name}`))
  let restarts = 0
  let finished = false
  // The usual informer loop: restart after an error, until the test is over.
  informer.on('error', () => { if (!finished) { restarts++; setTimeout(() => { if (!finished) void informer.start() }, 200) } })
  await informer.start()
  cleanups.push(async () => { finished = true; await informer.stop() })

  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'one' }, data: { v: '1' } } })
  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'two' } } })
  await core.patchNamespacedConfigMap({ namespace: 'default', name: 'one', body: { data: { v: '2' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch))
  await core.deleteNamespacedConfigMap({ namespace: 'default', name: 'two' })
  await until('the first changes', () => seen.includes('delete two') && seen.includes('update one'))
  assert.deepEqual(seen, ['add one', 'add two', 'update one', 'delete two'])

  // While the server is down, another process changes things and history is compacted.
  await app.close()
  const other = await buildApp({ databaseUrl, compactionIntervalMs: 0, compactionMinRetain: 0 })
  await other.ready()
  await other.health.postStartHooksFinished()
  const store = other.resources.find({ group: '', resource: 'configmaps' })!
  const caller = { user: { username: 'admin', groups: ['system:masters'] }, manager: 'test', warnings: [] }
  const opts = { dryRun: false, fieldValidation: 'Strict' as const, force: false }
  await store.create('default', { metadata: { name: 'three' } }, opts, caller)
  await store.delete('default', 'one', { dryRun: false }, caller)
  await other.storage.compact(await other.storage.currentRevision())
  await other.close()

  app = await start(port)
  await until('the re-list after 410', () => informer.list().map(o => o.metadata!.name).join(',') === 'three', 20000)
  assert.ok(restarts >= 1, 'the informer saw the restart')
  assert.ok(seen.includes('add three'))
  assert.ok(seen.includes('delete one'))

  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'four' } } })
  await until('the watch resumed', () => seen.includes('add four'))
})
