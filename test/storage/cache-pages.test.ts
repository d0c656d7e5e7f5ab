import assert from 'node:assert/strict'
import { describe, it, type TestContext } from 'node:test'
import type { CachedObject, Storage, StoredObject, WatchCache } from '../../storage/interface.js'
import { createWatchCaches } from '../../storage/watch-cache.js'
import { PREFIX, configMap, extractAttrs, key, testDatabase } from './fixtures.js'

async function setup (t: TestContext, windowSize?: number): Promise<{ storage: Storage, cache: WatchCache }> {
  const storage = await (await testDatabase(t)).open()
  const caches = createWatchCaches(storage)
  t.after(() => caches.stop())
  const cache = caches.register(PREFIX, extractAttrs, { windowSize })
  await caches.start()
  return { storage, cache }
}

const plain = (items: Array<StoredObject | CachedObject>): StoredObject[] => items.map(o => ({ key: o.key, revision: o.revision, json: o.json }))

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
