// Paging over one snapshot, selectors, and watch streams (events, bookmarks, selectors, tables).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'

const CM = '/api/v1/namespaces/default/configmaps'
const names = (body: any): string[] => body.items.map((i: any) => i.metadata.name)
const events = (body: string): any[] => body.trim() === '' ? [] : body.trim().split('\n').map(l => JSON.parse(l))

test('pages of one list are one snapshot while writes happen', async (t) => {
  const app = await buildTestApp(t)
  for (let i = 0; i < 7; i++) await app.request({ method: 'POST', url: CM, payload: { metadata: { name: `p${i}` } } })
  const seen: string[] = []
  let token: string | undefined
  let rv: string | undefined
  let page = 0
  do {
    const res = await app.request({ method: 'GET', url: `${CM}?limit=3${token ? `&continue=${encodeURIComponent(token)}` : ''}` })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    rv ??= body.metadata.resourceVersion
    assert.equal(body.metadata.resourceVersion, rv, 'every page reports the same resourceVersion')
    seen.push(...names(body))
    token = body.metadata.continue
    // Writes between pages must not show up in later pages.
    await app.request({ method: 'POST', url: CM, payload: { metadata: { name: `a${page}` } } })
    await app.request({ method: 'DELETE', url: `${CM}/p${6 - page}` })
    page++
  } while (token)
  assert.deepEqual(seen, ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6'])
})

test('label and field selectors', async (t) => {
  const app = await buildTestApp(t)
  const mk = (name: string, labels: Record<string, string>) => app.request({ method: 'POST', url: CM, payload: { metadata: { name, labels } } })
  await mk('a', { app: 'web', tier: 'front' })
  await mk('b', { app: 'web', tier: 'back' })
  await mk('c', { app: 'db' })
  await mk('d', {})
  const cases: Array<[string, string[]]> = [
    ['labelSelector=app%3Dweb', ['a', 'b']],
    ['labelSelector=app%3D%3Dweb', ['a', 'b']],
    ['labelSelector=app!%3Dweb', ['c', 'd']],
    ['labelSelector=app%20in%20(web,db)', ['a', 'b', 'c']],
    ['labelSelector=app%20notin%20(web)', ['c', 'd']],
    ['labelSelector=tier', ['a', 'b']],
    ['labelSelector=!tier', ['c', 'd']],
    ['labelSelector=app%3Dweb,tier%3Dback', ['b']],
    ['fieldSelector=metadata.name%3Dc', ['c']],
    ['fieldSelector=metadata.name!%3Dc', ['a', 'b', 'd']],
    ['fieldSelector=metadata.namespace%3Ddefault', ['a', 'b', 'c', 'd']]
  ]
  for (const [q, want] of cases) {
    const res = await app.request({ method: 'GET', url: `${CM}?${q}` })
    assert.equal(res.statusCode, 200, `${q}: ${res.body}`)
    assert.deepEqual(names(res.json()), want, q)
    assert.equal(res.json().metadata.remainingItemCount, undefined)
  }
  const paged = await app.request({ method: 'GET', url: `${CM}?labelSelector=app&limit=1` })
  assert.deepEqual(names(paged.json()), ['a'])
  assert.equal(paged.json().metadata.remainingItemCount, undefined, 'omitted with a selector')
  assert.ok(paged.json().metadata.continue)

  const badField = await app.request({ method: 'GET', url: `${CM}?fieldSelector=spec.foo%3Dx` })
  assert.equal(badField.statusCode, 400)
  assert.match(badField.json().message, /field label not supported: spec.foo/)
  const badLabel = await app.request({ method: 'GET', url: `${CM}?labelSelector=a%20in%20b` })
  assert.equal(badLabel.statusCode, 400)

  const secrets = '/api/v1/namespaces/default/secrets'
  await app.request({ method: 'POST', url: secrets, payload: { metadata: { name: 's1' }, type: 'Opaque' } })
  await app.request({ method: 'POST', url: secrets, payload: { metadata: { name: 's2' }, type: 'custom/kind' } })
  const byType = await app.request({ method: 'GET', url: `${secrets}?fieldSelector=type%3Dcustom%2Fkind` })
  assert.deepEqual(names(byType.json()), ['s2'])
})

test('watch streams ADDED, MODIFIED, DELETED in order with bookmarks', async (t) => {
  const app = await buildTestApp(t, { bookmarkIntervalMs: 200 })
  const created = await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'w', labels: { a: '1' } } } })
  const rv = created.json().metadata.resourceVersion
  const pending = app.request({ method: 'GET', url: `${CM}?watch=true&resourceVersion=${rv}&timeoutSeconds=2&allowWatchBookmarks=true` })
  await new Promise(resolve => setTimeout(resolve, 100))
  await app.request({ method: 'PUT', url: `${CM}/w`, payload: { metadata: { name: 'w', labels: { a: '1' } }, data: { x: 'y' } } })
  await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'v' } } })
  await app.request({ method: 'DELETE', url: `${CM}/w` })
  const res = await pending
  assert.equal(res.statusCode, 200)
  assert.match(String(res.headers['content-type']), /application\/json/)
  const evs = events(res.body)
  const changes = evs.filter(e => e.type !== 'BOOKMARK')
  assert.deepEqual(changes.map(e => [e.type, e.object.metadata.name]), [['MODIFIED', 'w'], ['ADDED', 'v'], ['DELETED', 'w']])
  const rvs = changes.map(e => Number(e.object.metadata.resourceVersion))
  assert.deepEqual(rvs, [...rvs].sort((a, b) => a - b))
  assert.ok(rvs[0]! > Number(rv))
  const bookmarks = evs.filter(e => e.type === 'BOOKMARK')
  assert.ok(bookmarks.length > 0, 'bookmarks were asked for')
  assert.deepEqual(Object.keys(bookmarks[0].object.metadata), ['resourceVersion'])
  assert.equal(bookmarks[0].object.kind, 'ConfigMap')
})

test('watch without resourceVersion starts with synthetic ADDED events', async (t) => {
  const app = await buildTestApp(t)
  await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'one' } } })
  await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'two' } } })
  for (const q of ['', '&resourceVersion=0']) {
    const res = await app.request({ method: 'GET', url: `${CM}?watch=1&timeoutSeconds=1${q}` })
    assert.deepEqual(events(res.body).map(e => [e.type, e.object.metadata.name]), [['ADDED', 'one'], ['ADDED', 'two']])
  }
  const named = await app.request({ method: 'GET', url: `${CM}?watch=1&timeoutSeconds=1&resourceVersion=0&fieldSelector=metadata.name%3Dtwo` })
  assert.deepEqual(events(named.body).map(e => [e.type, e.object.metadata.name]), [['ADDED', 'two']])
})

test('a watch with a selector sees objects enter and leave it', async (t) => {
  const app = await buildTestApp(t)
  const created = await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 's', labels: { on: 'no' } } } })
  const pending = app.request({ method: 'GET', url: `${CM}?watch=1&timeoutSeconds=1&labelSelector=on%3Dyes&resourceVersion=${created.json().metadata.resourceVersion}` })
  await new Promise(resolve => setTimeout(resolve, 100))
  await app.request({ method: 'PATCH', url: `${CM}/s`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ metadata: { labels: { on: 'yes' } } }) })
  await app.request({ method: 'PATCH', url: `${CM}/s`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ data: { k: 'v' } }) })
  await app.request({ method: 'PATCH', url: `${CM}/s`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ metadata: { labels: { on: 'no' } } }) })
  const res = await pending
  assert.deepEqual(events(res.body).map(e => e.type), ['ADDED', 'MODIFIED', 'DELETED'])
})

test('watch asked as a Table streams one-row tables', async (t) => {
  const app = await buildTestApp(t)
  await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 't' }, data: { a: 'b' } } })
  const res = await app.request({ method: 'GET', url: `${CM}?watch=1&timeoutSeconds=1`, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' } })
  const [first] = events(res.body)
  assert.equal(first.object.kind, 'Table')
  assert.equal(first.object.rows.length, 1)
  assert.equal(first.object.rows[0].cells[0], 't')
})
