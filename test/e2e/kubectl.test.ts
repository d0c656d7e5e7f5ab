// kubectl 1.31 (JSON bodies) against the real server: the daily commands of the spine.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startServer } from '../helpers/server.js'
import { kubectlFor } from '../helpers/kubectl.js'

test('kubectl gets, creates from a manifest, watches and deletes', async (t) => {
  const server = await startServer(t)
  const kc = kubectlFor({ kubeconfig: server.kubeconfig, version: '1.31' })
  const kubectl = (...args: string[]) => kc.ok(args)

  const ns = await kubectl('get', 'ns')
  assert.match(ns, /^default\s+Active/m)
  assert.match(ns, /^svc-system\s+Active/m)

  const manifest = join(server.dataDir, 'cm.yaml')
  writeFileSync(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-file\n  labels:\n    app: demo\ndata:\n  key: value\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s1\nstringData:\n  password: hunter2\n')
  assert.match(await kubectl('create', '--validate=false', '-f', manifest), /configmap\/from-file created\nsecret\/s1 created/)

  const watcher = kc.spawn(['get', 'cm', '-w', '--request-timeout=10s'])
  let watched = ''
  watcher.stdout.on('data', (d: Buffer) => { watched += d.toString() })
  await new Promise(resolve => setTimeout(resolve, 1500))
  await kubectl('label', 'cm', 'from-file', 'tier=web')

  const got = JSON.parse(await kubectl('get', 'cm', 'from-file', '-o', 'json'))
  assert.equal(got.data.key, 'value')
  assert.equal(got.metadata.labels.tier, 'web')
  assert.match(await kubectl('get', 'cm'), /^from-file\s+1\s+\d+s/m)
  assert.match(await kubectl('get', 'secret', 's1', '-o', 'jsonpath={.data.password}'), /^aHVudGVyMg==$/)
  assert.match(await kubectl('get', 'cm', '-l', 'app=demo', '-o', 'name'), /^configmap\/from-file$/m)

  assert.match(await kubectl('delete', 'cm', 'from-file'), /configmap "from-file" deleted/)
  await new Promise(resolve => setTimeout(resolve, 1000))
  watcher.kill('SIGINT')
  assert.match(watched, /from-file/)
  await assert.rejects(kubectl('get', 'cm', 'from-file'), /NotFound|not found/)
  assert.match(await kubectl('delete', 'secret', 's1'), /secret "s1" deleted/)
})
