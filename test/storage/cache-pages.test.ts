import assert from 'node:assert/strict'
import { describe, it, type TestContext } from 'node:test'
import type { CachedObject, PageQuery, Storage, StoredObject, WatchCache } from '../../storage/interface.js'
import { createWatchCaches } from '../../storage/watch-cache.js'
import { PageMemo } from '../../storage/page-memo.js'
import { PREFIX, configMap, extractAttrs, key, testDatabase } from './fixtures.js'

async function setup (t: TestContext, windowSize?: number): Promise<{ storage: Storage, cache: WatchCache }> {
  const storage = await (await testDatabase(t)).open()
  const caches = createWatchCaches(storage)
  t.after(() => caches.stop())
  const cache = caches.register(PREFIX, extractAttrs, { windowSize })
  await caches.start()
  return { storage, cache }
}

const plain = (items: ReadonlyArray<StoredObject | CachedObject>): StoredObject[] => items.map(o => ({ key: o.key, revision: o.revision, json: o.json }))

/** Every page of a walk at `revision`, read from the cache; undefined when it cannot answer. */
function walkCache (cache: WatchCache, prefix: string, revision: number, limit: number): { items: StoredObject[], remaining: number[] } | undefined {
  const items: StoredObject[] = []
  const remaining: number[] = []
  let after: string | undefined
  for (;;) {
    const page = cache.page({ prefix, revision, limit, after })
    if (page === undefined) return undefined
    assert.equal(page.revision, revision)
    items.push(...plain(page.items))
    if (!page.more) return { items, remaining }
    // What follows the page plus what was read so far: the whole list, at every page.
    remaining.push(page.remaining! + items.length)
    after = page.items[page.items.length - 1]!.key
  }
}

describe('watch cache pages', () => {
  it('answer at past revisions exactly as the database does, through random writes', async (t) => {
    const { storage, cache } = await setup(t)
    let seed = 7
    const rand = (n: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n }
    const live = new Map<string, number>()
    const revisions: number[] = []
    for (let step = 0; step < 300; step++) {
      const ns = `n${rand(3)}`
      const name = `o${rand(40)}`
      const k = key(ns, name)
      const rev = live.get(k)
      let written: StoredObject
      if (rev === undefined) {
        written = await storage.write({ type: 'create', key: k, value: configMap(ns, name, { step: String(step) }, { app: `a${rand(4)}` }) })
        live.set(k, written.revision)
      } else if (rand(3) === 0) {
        written = await storage.write({ type: 'delete', key: k, value: configMap(ns, name), expectRevision: rev })
        live.delete(k)
      } else {
        written = await storage.write({ type: 'update', key: k, value: configMap(ns, name, { step: String(step) }, { app: `a${rand(4)}` }), expectRevision: rev })
        live.set(k, written.revision)
      }
      revisions.push(written.revision)
    }
    const current = await storage.currentRevision()
    await cache.waitForRevision(current, 5000)
    await cache.indexLabels()
    for (let i = 0; i < 25; i++) {
      const revision = revisions[rand(revisions.length)]!
      for (const prefix of [PREFIX, `${PREFIX}n1/`]) {
        const truth = await storage.list({ prefix, revision })
        const walked = walkCache(cache, prefix, revision, 1 + rand(7))
        assert.ok(walked !== undefined, `the cache answers at ${revision}`)
        assert.deepEqual(walked.items, truth.items, `at ${revision} under ${prefix}`)
        // remainingItemCount: how many items followed each page, from ranks.
        for (const n of walked.remaining) assert.equal(n, truth.items.length)
      }
      // A filtered page at a past revision: the label as it was then.
      const page = cache.page({ prefix: PREFIX, revision, filter: o => o.attrs.labels.app === 'a1', labels: [{ key: 'app', values: ['a1'] }] })!
      const truth = (await storage.list({ prefix: PREFIX, revision })).items.filter(o => JSON.parse(o.json).metadata.labels.app === 'a1')
      assert.deepEqual(plain(page.items), truth)
    }
  })

  it('builds its label index while writes go on, and answers label pages from it as a scan would', async (t) => {
    const { storage, cache } = await setup(t)
    const revs = new Map<string, number>()
    for (let i = 0; i < 400; i++) {
      const w = await storage.write({ type: 'create', key: key(`n${i % 4}`, `o${i}`), value: configMap(`n${i % 4}`, `o${i}`, {}, { app: `a${i % 50}` }) })
      revs.set(w.key, w.revision)
    }
    await cache.waitForRevision(await storage.currentRevision(), 5000)
    const selected = { filter: (o: CachedObject) => o.attrs.labels.app === 'a7', labels: [{ key: 'app', values: ['a7'] }] }
    const before = cache.page({ prefix: PREFIX, ...selected })!
    // Writes while the index is built: a relabel into the selection, one out of it, a delete, a create.
    const building = cache.indexLabels()
    await storage.write({ type: 'update', key: key('n1', 'o1'), value: configMap('n1', 'o1', {}, { app: 'a7' }), expectRevision: revs.get(key('n1', 'o1'))! })
    await storage.write({ type: 'update', key: key('n3', 'o7'), value: configMap('n3', 'o7', {}, { app: 'zz' }), expectRevision: revs.get(key('n3', 'o7'))! })
    await storage.write({ type: 'delete', key: key('n3', 'o107'), value: configMap('n3', 'o107'), expectRevision: revs.get(key('n3', 'o107'))! })
    const last = await storage.write({ type: 'create', key: key('n0', 'late'), value: configMap('n0', 'late', {}, { app: 'a7' }) })
    await building
    await cache.waitForRevision(last.revision, 5000)
    const truth = (await storage.list({ prefix: PREFIX })).items.filter(o => JSON.parse(o.json).metadata.labels.app === 'a7')
    assert.equal(before.items.length, 8)
    const after = cache.page({ prefix: PREFIX, ...selected })!
    assert.deepEqual(plain(after.items), truth)
    assert.deepEqual(after.items.map(o => o.key).sort(), [key('n0', 'late'), key('n1', 'o1'), ...[57, 157, 207, 257, 307, 357].map(i => key(`n${i % 4}`, `o${i}`))].sort())
    const namespaced = cache.page({ prefix: `${PREFIX}n1/`, limit: 2, ...selected })!
    assert.deepEqual(plain(namespaced.items), truth.filter(o => o.key.startsWith(`${PREFIX}n1/`)).slice(0, 2))
  })

  it('counts what follows each page, at the newest revision and at a past one', async (t) => {
    const { storage, cache } = await setup(t)
    for (let i = 0; i < 10; i++) await storage.write({ type: 'create', key: key('ns', `o${i}`), value: configMap('ns', `o${i}`) })
    const at = await storage.currentRevision()
    await cache.waitForRevision(at, 5000)
    const first = cache.page({ prefix: PREFIX, limit: 3 })!
    assert.equal(first.remaining, 7)
    // Writes after the first page: two creates inside the range, one delete, one update.
    await storage.write({ type: 'create', key: key('ns', 'o5a'), value: configMap('ns', 'o5a') })
    await storage.write({ type: 'create', key: key('ns', 'o0a'), value: configMap('ns', 'o0a') })
    const o7 = (await storage.get(key('ns', 'o7')))!
    await storage.write({ type: 'delete', key: o7.key, value: configMap('ns', 'o7'), expectRevision: o7.revision })
    const o8 = (await storage.get(key('ns', 'o8')))!
    const last = await storage.write({ type: 'update', key: o8.key, value: configMap('ns', 'o8', { v: '2' }), expectRevision: o8.revision })
    await cache.waitForRevision(last.revision, 5000)
    const second = cache.page({ prefix: PREFIX, limit: 3, revision: at, after: key('ns', 'o2') })!
    assert.deepEqual(second.items.map(o => o.key), [key('ns', 'o3'), key('ns', 'o4'), key('ns', 'o5')])
    assert.equal(second.remaining, 4)
    const third = cache.page({ prefix: PREFIX, limit: 10, revision: at, after: key('ns', 'o5') })!
    assert.deepEqual(third.items.map(o => o.key), [key('ns', 'o6'), key('ns', 'o7'), key('ns', 'o8'), key('ns', 'o9')])
    assert.equal(third.items[2]!.json, o8.json, 'the value at the first page\'s revision')
    assert.equal(third.more, false)
    const now = cache.page({ prefix: PREFIX, limit: 3 })!
    assert.equal(now.remaining, 8)
  })

  it('refuses a revision its window no longer reaches, or one below the known compaction', async (t) => {
    const { storage, cache } = await setup(t, 3)
    const a = await storage.write({ type: 'create', key: key('ns', 'a'), value: configMap('ns', 'a') })
    let rev = a.revision
    for (let i = 0; i < 5; i++) rev = (await storage.write({ type: 'update', key: a.key, value: configMap('ns', 'a', { i: String(i) }), expectRevision: rev })).revision
    await cache.waitForRevision(rev, 5000)
    assert.equal(cache.page({ prefix: PREFIX, revision: a.revision }), undefined, 'the window of 3 events no longer reaches it')
    assert.equal(cache.page({ prefix: PREFIX, revision: rev - 1 })!.items[0]!.revision, rev - 1)
    await storage.compact(rev)
    assert.equal(cache.page({ prefix: PREFIX, revision: rev - 1 }), undefined, 'compacted: the database answers (410)')
    assert.equal(cache.page({ prefix: PREFIX, revision: rev })!.items.length, 1)
  })
})

describe('first pages of the newest state, shared while their prefix is unchanged', () => {
  it('answers the same array again, and a new one once a key under its prefix changes', async (t) => {
    const { storage, cache } = await setup(t)
    const revs = new Map<string, number>()
    for (const ns of ['a', 'b']) {
      for (let i = 0; i < 5; i++) {
        const w = await storage.write({ type: 'create', key: key(ns, `o${i}`), value: configMap(ns, `o${i}`) })
        revs.set(w.key, w.revision)
      }
    }
    const settle = async (): Promise<void> => { await cache.waitForRevision(await storage.currentRevision(), 5000) }
    await settle()
    const truth = async (prefix: string, limit?: number): Promise<StoredObject[]> => (await storage.list({ prefix, limit })).items
    const first = cache.page({ prefix: `${PREFIX}a/` })!
    assert.equal(first.shared, true)
    assert.ok(Object.isFrozen(first.items), 'no reader can change what others read')
    assert.equal(cache.page({ prefix: `${PREFIX}a/` })!.items, first.items, 'the same array')
    const limited = cache.page({ prefix: `${PREFIX}a/`, limit: 2 })!
    assert.deepEqual([limited.more, limited.remaining, limited.items.length], [true, 3, 2])
    assert.equal(cache.page({ prefix: `${PREFIX}a/`, limit: 2 })!.items, limited.items)

    // A write in another namespace leaves a's pages as they were; the cluster-wide page is new.
    const all = cache.page({ prefix: PREFIX })!
    await storage.write({ type: 'create', key: key('b', 'late'), value: configMap('b', 'late') })
    await settle()
    assert.equal(cache.page({ prefix: `${PREFIX}a/` })!.items, first.items)
    const allAfter = cache.page({ prefix: PREFIX })!
    assert.notEqual(allAfter.items, all.items)
    assert.deepEqual(plain(allAfter.items), await truth(PREFIX))

    // An update, a delete and a create under a: every page of a is read again, and is the truth.
    await storage.write({ type: 'update', key: key('a', 'o1'), value: configMap('a', 'o1', { k: 'v' }), expectRevision: revs.get(key('a', 'o1'))! })
    await settle()
    const updated = cache.page({ prefix: `${PREFIX}a/` })!
    assert.notEqual(updated.items, first.items)
    assert.deepEqual(plain(updated.items), await truth(`${PREFIX}a/`))
    await storage.write({ type: 'delete', key: key('a', 'o0'), value: configMap('a', 'o0'), expectRevision: revs.get(key('a', 'o0'))! })
    await storage.write({ type: 'create', key: key('a', 'o9'), value: configMap('a', 'o9') })
    await settle()
    assert.deepEqual(plain(cache.page({ prefix: `${PREFIX}a/` })!.items), await truth(`${PREFIX}a/`))
    const page = cache.page({ prefix: `${PREFIX}a/`, limit: 2 })!
    assert.deepEqual(plain(page.items), await truth(`${PREFIX}a/`, 2))
    assert.equal(page.remaining, 3)
    // The revision is the cache's newest, whatever the page's age.
    assert.equal(page.revision, cache.revision)
  })

  it('keeps pages within its budget, the least recently read going first', () => {
    const memo = new PageMemo(4000)
    const items = (ns: string, n: number): CachedObject[] => Array.from({ length: n }, (_, i) => ({ key: key(ns, `o${i}`), revision: i + 1, json: 'x'.repeat(100), attrs: { labels: {}, fields: {} } }))
    assert.ok(memo.keep(`${PREFIX}a/`, '', items('a', 9), false, undefined))
    assert.ok(memo.keep(`${PREFIX}b/`, '', items('b', 9), false, undefined))
    assert.equal(memo.keep(`${PREFIX}big/`, '', items('big', 11), false, undefined), undefined, 'over a quarter of the budget')
    assert.ok(memo.get(`${PREFIX}a/`, ''), 'a read: b is now the least recent')
    for (const ns of ['c', 'd', 'e']) memo.keep(`${PREFIX}${ns}/`, '', items(ns, 9), false, undefined)
    assert.equal(memo.get(`${PREFIX}b/`, ''), undefined)
    assert.ok(memo.get(`${PREFIX}a/`, ''))
    assert.equal(memo.size, 4)
    memo.changed(PREFIX, key('a', 'o3'))
    assert.equal(memo.get(`${PREFIX}a/`, ''), undefined)
    memo.dropUnder(PREFIX)
    assert.equal(memo.size, 0)
    // Empty pages cost no characters: their number is bounded on its own.
    const few = new PageMemo(4000, 3)
    for (const ns of ['a', 'b', 'c', 'd']) few.keep(`${PREFIX}${ns}/`, '', [], false, undefined)
    assert.equal(few.size, 3)
    assert.equal(few.get(`${PREFIX}a/`, ''), undefined)
    assert.equal(few.keep(`${PREFIX}a/`, 'x'.repeat(2000), [], false, undefined), undefined, 'a selection too long to key by')
  })

  it('shares a selected page by the text of its selection, until an object under its prefix changes', async (t) => {
    const { storage, cache } = await setup(t)
    const revs = new Map<string, number>()
    for (let i = 0; i < 20; i++) {
      const w = await storage.write({ type: 'create', key: key(`n${i % 2}`, `o${i}`), value: configMap(`n${i % 2}`, `o${i}`, {}, { app: `a${i % 5}` }) })
      revs.set(w.key, w.revision)
    }
    await cache.waitForRevision(await storage.currentRevision(), 5000)
    const selecting = (app: string): PageQuery => ({ prefix: PREFIX, filter: o => o.attrs.labels.app === app, labels: [{ key: 'app', values: [app] }], selection: `app=${app}` })
    const a1 = cache.page(selecting('a1'))!
    assert.equal(a1.shared, true)
    assert.equal(cache.page(selecting('a1'))!.items, a1.items)
    assert.notEqual(cache.page(selecting('a2'))!.items, a1.items)
    assert.equal(cache.page({ ...selecting('a1'), selection: undefined })!.shared, undefined, 'no text, nothing shared')
    // Relabelled out of the selection: the next page reads again.
    const w = await storage.write({ type: 'update', key: key('n1', 'o1'), value: configMap('n1', 'o1', {}, { app: 'zz' }), expectRevision: revs.get(key('n1', 'o1'))! })
    await cache.waitForRevision(w.revision, 5000)
    const after = cache.page(selecting('a1'))!
    assert.deepEqual(after.items.map(o => o.key), a1.items.map(o => o.key).filter(k => k !== key('n1', 'o1')))
  })
})
