// Paged lists: one snapshot at the first page's revision whatever is written between pages,
// remainingItemCount, selectors, and 410 once the revision is compacted.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'

const CM = '/api/v1/namespaces/default/configmaps'
const ALL = '/api/v1/configmaps'

async function create (app: TestApp, ns: string, name: string, labels: Record<string, string> = {}): Promise<any> {
  const res = await app.request({ method: 'POST', url: `/api/v1/namespaces/${ns}/configmaps`, payload: { metadata: { name, labels }, data: { name } } })
  assert.equal(res.statusCode, 201, res.body)
  return res.json()
}

async function namespace (app: TestApp, ns: string): Promise<void> {
  const res = await app.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: ns } } })
  assert.equal(res.statusCode, 201, res.body)
}

async function get (app: TestApp, url: string): Promise<any> {
  const res = await app.request({ method: 'GET', url })
  assert.equal(res.statusCode, 200, res.body)
  return res.json()
}

const name = (i: number): string => `cm-${String(i).padStart(2, '0')}`

/** Walks every page after `first`, running `between` before each; returns all pages. */
async function walk (app: TestApp, base: string, query: string, first: any, between: (n: number) => Promise<void>): Promise<any[]> {
  const pages = [first]
  let page = first
  for (let n = 0; page.metadata.continue !== undefined; n++) {
    await between(n)
    page = await get(app, `${base}?${query}&continue=${encodeURIComponent(page.metadata.continue)}`)
    pages.push(page)
  }
  return pages
}

test('a paged list is the first page\'s snapshot, whatever is written between pages', async (t) => {
  const app = await buildTestApp(t)
  await namespace(app, 'other')
  for (let i = 0; i < 12; i++) await create(app, 'default', name(i))
  await create(app, 'other', 'cm-x')
  let made = 0
  for (const [base, count] of [[CM, 12], [ALL, 13]] as const) {
    const whole = await get(app, base)
    const first = await get(app, `${base}?limit=4`)
    assert.equal(first.metadata.resourceVersion, whole.metadata.resourceVersion)
    assert.equal(first.metadata.remainingItemCount, whole.items.length - 4)
    assert.ok(whole.items.length >= count)
    const pages = await walk(app, base, 'limit=4', first, async (n) => {
      // Inside the pages still to come: a create, a delete, an update; and a create before them.
      await create(app, 'default', `${name(5 + n * 4)}a${made++}`)
      await create(app, 'default', `cm-00${base === CM ? 'b' : 'c'}${n}`)
      const victim = await app.request({ method: 'DELETE', url: `${CM}/${name(8 + n)}` })
      assert.ok([200, 404].includes(victim.statusCode), victim.body)
      const changed = await app.request({ method: 'PATCH', url: `${CM}/${name(11)}`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { data: { n: String(n) } } })
      assert.equal(changed.statusCode, 200, changed.body)
    })
    const items = pages.flatMap(p => p.items)
    assert.deepEqual(items, whole.items, `every item as it was at ${whole.metadata.resourceVersion}`)
    let seen = 0
    for (const p of pages) {
      assert.equal(p.metadata.resourceVersion, whole.metadata.resourceVersion)
      seen += p.items.length
      if (p.metadata.continue !== undefined) assert.equal(p.metadata.remainingItemCount, whole.items.length - seen)
      else assert.equal(p.metadata.remainingItemCount, undefined)
    }
    // The bytes are the ones stored at that revision.
    const stored = await app.app.storage.list({ prefix: `/registry/core/configmaps/${base === CM ? 'default/' : ''}`, revision: Number(whole.metadata.resourceVersion) })
    assert.deepEqual(items.map(i => JSON.stringify(i)), stored.items.map(o => o.json))
    // An Exact list at that revision is the same snapshot.
    const exact = await get(app, `${base}?resourceVersion=${whole.metadata.resourceVersion}&resourceVersionMatch=Exact`)
    assert.deepEqual(exact.items, whole.items)
  }
})

test('a compaction up to the token\'s revision keeps it; one above answers 410 Expired', async (t) => {
  const app = await buildTestApp(t, { compactionMinRetain: 0 })
  for (let i = 0; i < 6; i++) await create(app, 'default', name(i))
  const first = await get(app, `${CM}?limit=2`)
  await app.app.storage.compact(Number(first.metadata.resourceVersion))
  const second = await get(app, `${CM}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`)
  assert.deepEqual(second.items.map((i: any) => i.metadata.name), [name(2), name(3)])
  assert.equal(second.metadata.remainingItemCount, 2)
  await app.request({ method: 'DELETE', url: `${CM}/${name(5)}` })
  await app.app.storage.compact(await app.app.storage.currentRevision())
  const third = await app.request({ method: 'GET', url: `${CM}?limit=2&continue=${encodeURIComponent(second.metadata.continue)}` })
  assert.equal(third.statusCode, 410)
  assert.equal(third.json().reason, 'Expired')
  assert.match(third.json().message, /The provided continue parameter is too old/)
})

test('selector lists: pages of the matches at the first page\'s labels, without remainingItemCount', async (t) => {
  const app = await buildTestApp(t)
  await namespace(app, 'other')
  for (let i = 0; i < 30; i++) await create(app, i % 2 === 0 ? 'default' : 'other', name(i), { color: i % 10 === 0 ? 'blue' : 'green', n: String(i) })
  const matches = (whole: any): string[] => whole.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`)
  for (const [base, selector] of [[ALL, 'color=blue'], [ALL, 'color in (blue),n'], [CM, 'color=green,n!=4'], [ALL, 'n']] as const) {
    const q = `labelSelector=${encodeURIComponent(selector)}`
    const whole = await get(app, `${base}?${q}`)
    const first = await get(app, `${base}?${q}&limit=2`)
    assert.equal(first.metadata.remainingItemCount, undefined)
    const pages = await walk(app, base, `${q}&limit=2`, first, async (n) => {
      // Between pages, a blue object turns green and a green one blue: neither shows.
      const flip = async (i: number, color: string): Promise<void> => {
        const ns = i % 2 === 0 ? 'default' : 'other'
        const res = await app.request({ method: 'PATCH', url: `/api/v1/namespaces/${ns}/configmaps/${name(i)}`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { metadata: { labels: { color } } } })
        assert.equal(res.statusCode, 200, res.body)
      }
      await flip(20, n % 2 === 0 ? 'green' : 'blue')
      await flip(25, n % 2 === 0 ? 'blue' : 'green')
    })
    assert.deepEqual(pages.flatMap(p => p.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`)), matches(whole), selector)
    for (const p of pages) assert.equal(p.metadata.remainingItemCount, undefined)
    assert.equal(pages.at(-1).metadata.continue, undefined)
  }
  const q = 'fieldSelector=metadata.namespace%3Dother&labelSelector=color%3Dgreen'
  const whole = await get(app, `${ALL}?${q}`)
  const byField = await walk(app, ALL, `${q}&limit=3`, await get(app, `${ALL}?${q}&limit=3`), async () => {})
  assert.ok(whole.items.length > 3)
  assert.deepEqual(byField.flatMap(p => p.items), whole.items)
})
