// The Python client (python3-kubernetes) follows ConfigMaps with a list-and-watch loop through
// creates, updates, deletes and a compaction that answers its re-watch with 410 Gone.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import { startTestServer } from '../helpers/tls-app.js'

const PYTHON = '/usr/bin/python3'
const hasClient = spawnSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0

test('python client: list, watch, 410 and re-list', { skip: hasClient ? false : 'python3-kubernetes is not installed' }, async (t) => {
  const server = await startTestServer(t, { compactionMinRetain: 0 })
  const ns = 'pythonic'
  const post = async (url: string, payload: object) => {
    const r = await server.request({ method: 'POST', url, payload })
    assert.ok(r.statusCode < 300, r.body)
  }
  await post('/api/v1/namespaces', { metadata: { name: ns } })
  const cms = `/api/v1/namespaces/${ns}/configmaps`

  const child = spawn(PYTHON, [fileURLToPath(new URL('./python-informer.py', import.meta.url)), server.kubeconfig, ns, 'app=followed'])
  t.after(() => child.kill())
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
  const lines: Array<Record<string, any>> = []
  createInterface({ input: child.stdout }).on('line', (l) => lines.push(JSON.parse(l)))
  const next = async (want: number): Promise<Array<Record<string, any>>> => {
    const deadline = Date.now() + 20_000
    while (lines.length < want) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`python saw ${JSON.stringify(lines)}; stderr: ${stderr}`)
      await new Promise(resolve => setTimeout(resolve, 25))
    }
    return lines.splice(0, want)
  }
  const brief = (ls: Array<Record<string, any>>) => ls.map(l => `${l.event} ${l.name ?? ''} ${JSON.stringify(l.data ?? {})}`.trim())

  assert.equal((await next(1))[0]!.event, 'LISTED')
  const followed = { labels: { app: 'followed' } }
  await post(cms, { metadata: { name: 'a', ...followed }, data: { v: '1' } })
  assert.deepEqual(brief(await next(1)), ['ADDED a {"v":"1"}'])
  const put = await server.request({ method: 'PUT', url: `${cms}/a`, payload: { metadata: { name: 'a', ...followed }, data: { v: '2' } } })
  assert.equal(put.statusCode, 200, put.body)
  assert.deepEqual(brief(await next(1)), ['MODIFIED a {"v":"2"}'])
  await post(cms, { metadata: { name: 'b', ...followed }, data: { v: '1' } })
  assert.equal((await server.request({ method: 'DELETE', url: `${cms}/a` })).statusCode, 200)
  assert.deepEqual(brief(await next(2)), ['ADDED b {"v":"1"}', 'DELETED a {"v":"2"}'])

  // Changes the watch does not select move history past the loop's position; compaction then
  // makes that position unreadable, and its next re-watch is answered 410 Gone.
  for (let i = 0; i < 3; i++) await post(cms, { metadata: { name: `other-${i}` }, data: {} })
  const current = await server.app.storage.currentRevision()
  await server.app.storage.compact(current)
  assert.deepEqual(brief(await next(2)).map(l => l.split(' ')[0]), ['GONE', 'LISTED'])

  // After the re-list it follows live changes again.
  await post(cms, { metadata: { name: 'c', ...followed }, data: { v: '1' } })
  assert.equal((await server.request({ method: 'DELETE', url: `${cms}/b` })).statusCode, 200)
  assert.deepEqual(brief(await next(2)), ['ADDED c {"v":"1"}', 'DELETED b {"v":"1"}'])
})
