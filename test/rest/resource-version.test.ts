// Every row of the spec's resource-version table for list, plus get and the options errors.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { createPostgresStorage } from '../../storage/postgres.js'

const CM = '/api/v1/namespaces/default/configmaps'

async function seed (t: TestApp, n: number): Promise<string[]> {
  const rvs: string[] = []
  for (let i = 0; i < n; i++) {
    const res = await t.request({ method: 'POST', url: CM, payload: { metadata: { name: `cm-${String(i).padStart(2, '0')}` }, data: { i: String(i) } } })
    assert.equal(res.statusCode, 201, res.body)
    rvs.push(res.json().metadata.resourceVersion)
  }
  return rvs
}

const names = (body: any): string[] => body.items.map((i: any) => i.metadata.name)

test('list resourceVersion semantics', async (t) => {
  const app = await buildTestApp(t)
  const rvs = await seed(app, 5)
  const list = async (q: string) => app.request({ method: 'GET', url: `${CM}?${q}` })

  await t.test('unset, no limit: most recent', async () => {
    const res = await list('')
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().items.length, 5)
    assert.ok(Number(res.json().metadata.resourceVersion) >= Number(rvs[4]))
  })
  await t.test('0, no limit: any (served from the cache)', async () => {
    const res = await list('resourceVersion=0')
    assert.equal(res.statusCode, 200)
  })
  await t.test('non-zero, no limit: not older than', async () => {
    const res = await list(`resourceVersion=${rvs[2]}`)
    assert.equal(res.statusCode, 200)
    assert.ok(Number(res.json().metadata.resourceVersion) >= Number(rvs[2]))
    assert.equal(res.json().items.length, 5)
  })
  await t.test('unset with limit: most recent, first page', async () => {
    const res = await list('limit=2')
    assert.equal(res.statusCode, 200)
    assert.deepEqual(names(res.json()), ['cm-00', 'cm-01'])
    assert.equal(res.json().metadata.remainingItemCount, 3)
    assert.ok(res.json().metadata.continue)
  })
  await t.test('non-zero with limit: exact', async () => {
    const res = await list(`resourceVersion=${rvs[2]}&limit=10`)
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().metadata.resourceVersion, rvs[2])
    assert.deepEqual(names(res.json()), ['cm-00', 'cm-01', 'cm-02'])
  })
  await t.test('Exact: echoes the requested version with the state at it', async () => {
    const res = await list(`resourceVersion=${rvs[1]}&resourceVersionMatch=Exact`)
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().metadata.resourceVersion, rvs[1])
    assert.deepEqual(names(res.json()), ['cm-00', 'cm-01'])
  })
  await t.test('NotOlderThan with 0: any', async () => {
    const res = await list('resourceVersion=0&resourceVersionMatch=NotOlderThan')
    assert.equal(res.statusCode, 200)
  })
  await t.test('NotOlderThan non-zero', async () => {
    const res = await list(`resourceVersion=${rvs[3]}&resourceVersionMatch=NotOlderThan`)
    assert.equal(res.statusCode, 200)
    assert.ok(Number(res.json().metadata.resourceVersion) >= Number(rvs[3]))
  })
  for (const [name, q, field] of [
    ['Exact without resourceVersion', 'resourceVersionMatch=Exact', 'resourceVersionMatch'],
    ['NotOlderThan without resourceVersion', 'resourceVersionMatch=NotOlderThan', 'resourceVersionMatch'],
    ['Exact with 0', 'resourceVersion=0&resourceVersionMatch=Exact', 'resourceVersionMatch'],
    ['unknown match value', 'resourceVersion=1&resourceVersionMatch=Newest', 'resourceVersionMatch']
  ] as const) {
    await t.test(`${name}: 422 ListOptions`, async () => {
      const res = await list(q)
      assert.equal(res.statusCode, 422)
      const s = res.json()
      assert.equal(s.kind, 'Status')
      assert.equal(s.reason, 'Invalid')
      assert.equal(s.details.kind, 'ListOptions')
      assert.equal(s.details.group, 'meta.svc.io')
      assert.equal(s.details.causes[0].field, field)
    })
  }
  await t.test('continue with a non-zero resourceVersion: 400', async () => {
    const first = (await list('limit=2')).json()
    const res = await list(`limit=2&continue=${encodeURIComponent(first.metadata.continue)}&resourceVersion=${rvs[4]}`)
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().reason, 'BadRequest')
  })
  await t.test('continue with resourceVersion 0: exact at the token version', async () => {
    const first = (await list('limit=2')).json()
    const res = await list(`limit=2&continue=${encodeURIComponent(first.metadata.continue)}&resourceVersion=0`)
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().metadata.resourceVersion, first.metadata.resourceVersion)
    assert.deepEqual(names(res.json()), ['cm-02', 'cm-03'])
  })
  await t.test('malformed continue token: 400', async () => {
    const res = await list('limit=2&continue=not-a-token')
    assert.equal(res.statusCode, 400)
    assert.equal(res.json().reason, 'BadRequest')
  })
  await t.test('a version the server has not reached: 504 Too large resource version', async () => {
    const res = await list('resourceVersion=99999999')
    assert.equal(res.statusCode, 504)
    assert.equal(res.json().reason, 'Timeout')
    assert.match(res.json().message, /Too large resource version/)
    assert.equal(res.headers['retry-after'], '1')
  })
  await t.test('Exact above the current version: 504', async () => {
    const res = await list('resourceVersion=99999999&resourceVersionMatch=Exact')
    assert.equal(res.statusCode, 504)
  })
  await t.test('a malformed resourceVersion: 400', async () => {
    const res = await list('resourceVersion=abc')
    assert.equal(res.statusCode, 400)
  })
})

test('compacted versions answer 410 Expired', async (t) => {
  const app = await buildTestApp(t, { compactionMinRetain: 0 })
  const rvs = await seed(app, 3)
  const first = (await app.request({ method: 'GET', url: `${CM}?limit=1` })).json()
  // Enough writes after the seed that compaction may drop the old history.
  for (let i = 0; i < 3; i++) await app.request({ method: 'PUT', url: `${CM}/cm-00`, payload: { metadata: { name: 'cm-00' }, data: { round: String(i) } } })
  const current = await app.app.storage.currentRevision()
  await app.app.storage.compact(current)
  const compacted = await app.app.storage.compactedRevision()
  assert.ok(compacted > Number(rvs[0]), `compacted to ${compacted}`)

  const exact = await app.request({ method: 'GET', url: `${CM}?resourceVersion=${rvs[0]}&resourceVersionMatch=Exact` })
  assert.equal(exact.statusCode, 410)
  assert.equal(exact.json().reason, 'Expired')

  const cont = await app.request({ method: 'GET', url: `${CM}?limit=1&continue=${encodeURIComponent(first.metadata.continue)}` })
  assert.equal(cont.statusCode, 410)
  assert.equal(cont.json().reason, 'Expired')

  const watch = await app.request({ method: 'GET', url: `${CM}?watch=true&resourceVersion=${rvs[0]}&timeoutSeconds=1` })
  assert.equal(watch.statusCode, 200)
  const events = watch.body.trim().split('\n').map(l => JSON.parse(l))
  assert.equal(events.length, 1)
  assert.equal(events[0].type, 'ERROR')
  assert.equal(events[0].object.code, 410)
  assert.equal(events[0].object.reason, 'Expired')
})

test('a compaction another connection made answers 410 to the next continue and Exact list at once', async (t) => {
  const app = await buildTestApp(t, { compactionMinRetain: 0 })
  const rvs = await seed(app, 3)
  const first = (await app.request({ method: 'GET', url: `${CM}?limit=1` })).json()
  for (let i = 0; i < 3; i++) await app.request({ method: 'PUT', url: `${CM}/cm-00`, payload: { metadata: { name: 'cm-00' }, data: { round: String(i) } } })
  // Another replica's compactor: no write follows it, so this server's log reader has no cause
  // to read the log before the requests below.
  const other = await createPostgresStorage({ url: app.databaseUrl, minRetain: 0 })
  t.after(() => other.close())
  const compacted = await other.compact(await other.currentRevision())
  assert.ok(compacted > Number(first.metadata.resourceVersion), `compacted to ${compacted}`)

  const cont = await app.request({ method: 'GET', url: `${CM}?limit=1&continue=${encodeURIComponent(first.metadata.continue)}` })
  assert.equal(cont.statusCode, 410, cont.body)
  assert.equal(cont.json().reason, 'Expired')
  const exact = await app.request({ method: 'GET', url: `${CM}?resourceVersion=${rvs[0]}&resourceVersionMatch=Exact` })
  assert.equal(exact.statusCode, 410, exact.body)
  // The newest state still lists from the cache.
  const now = await app.request({ method: 'GET', url: CM })
  assert.equal(now.statusCode, 200)
  assert.deepEqual(names(now.json()), ['cm-00', 'cm-01', 'cm-02'])
})

test('get resourceVersion semantics', async (t) => {
  const app = await buildTestApp(t)
  const rvs = await seed(app, 2)
  for (const q of ['', '?resourceVersion=0', `?resourceVersion=${rvs[1]}`]) {
    const res = await app.request({ method: 'GET', url: `${CM}/cm-00${q}` })
    assert.equal(res.statusCode, 200, q)
    assert.equal(res.json().metadata.name, 'cm-00')
  }
  const tooNew = await app.request({ method: 'GET', url: `${CM}/cm-00?resourceVersion=99999999` })
  assert.equal(tooNew.statusCode, 504)
})
