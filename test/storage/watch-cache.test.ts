import assert from 'node:assert/strict'
import { describe, it, type TestContext } from 'node:test'
import { type CacheEvent, type Storage, StorageError, type WatchCache } from '../../storage/interface.js'
import { createWatchCaches, type WatchCaches } from '../../storage/watch-cache.js'
import { PREFIX, configMap, eventually, extractAttrs, key, testDatabase } from './fixtures.js'

interface Setup { storage: Storage, caches: WatchCaches, cache: WatchCache }

async function setup (t: TestContext, opts: { windowSize?: number, compactionCheckMs?: number, before?: (s: Storage) => Promise<void> } = {}): Promise<Setup> {
  const storage = await (await testDatabase(t)).open()
  await opts.before?.(storage)
  const caches = createWatchCaches(storage, { compactionCheckMs: opts.compactionCheckMs })
  t.after(() => caches.stop())
  const cache = caches.register(PREFIX, extractAttrs, { windowSize: opts.windowSize })
  await caches.start()
  return { storage, caches, cache }
}

function watchAll (cache: WatchCache, prefix: string, after: number): { events: CacheEvent[], errors: Error[], stop (): void } {
  const events: CacheEvent[] = []
  const errors: Error[] = []
  const handle = cache.watch(prefix, after, e => events.push(e), err => errors.push(err))
  return { events, errors, stop: () => handle.stop() }
}

const create = (s: Storage, ns: string, name: string, labels: Record<string, string> = {}) =>
  s.write({ type: 'create', key: key(ns, name), value: configMap(ns, name, {}, labels) })

describe('watch cache', () => {
  it('fills from the store and lists by namespace prefix in key order', async (t) => {
    const { storage, cache } = await setup(t, {
      async before (s) {
        for (const [ns, name] of [['b', 'x'], ['a', 'z'], ['ab', 'y'], ['a', 'y']]) await create(s, ns, name, { app: name })
        await s.write({ type: 'create', key: '/registry/core/secrets/a/s', value: configMap('a', 's') })
      }
    })
    await cache.ready
    assert.equal(cache.revision, await storage.currentRevision())
    assert.deepEqual(cache.list(`${PREFIX}a/`).map(o => o.key), [key('a', 'y'), key('a', 'z')])
    assert.deepEqual(cache.list(PREFIX).map(o => o.key), [key('a', 'y'), key('a', 'z'), key('ab', 'y'), key('b', 'x')])
    const stored = await storage.get(key('a', 'z'))
    assert.deepEqual(cache.get(key('a', 'z')), {
      ...stored, attrs: { labels: { app: 'z' }, fields: { 'metadata.name': 'z', 'metadata.namespace': 'a' } }
    })
  })

  it('follows writes: waitForRevision, then get and list see them', async (t) => {
    const { storage, cache } = await setup(t)
    const a = await create(storage, 'a', 'one')
    await cache.waitForRevision(a.revision, 5000)
    assert.equal(cache.get(a.key)?.json, a.json)
    await storage.write({ type: 'delete', key: a.key, value: configMap('a', 'one'), expectRevision: a.revision })
    const b = await create(storage, 'a', 'two')
    await cache.waitForRevision(b.revision, 5000)
    assert.equal(cache.get(a.key), undefined)
    assert.deepEqual(cache.list(`${PREFIX}a/`).map(o => o.key), [b.key])
  })

  it('answers waitForRevision beyond the log with TooLarge after the timeout', async (t) => {
    const { cache } = await setup(t)
    await assert.rejects(cache.waitForRevision(cache.revision + 100, 50),
      (err: unknown) => err instanceof StorageError && err.code === 'TooLarge')
  })

  it('watches from the window, with prevAttrs for MODIFIED and DELETED', async (t) => {
    const { storage, cache } = await setup(t)
    const from = cache.revision
    const one = await create(storage, 'a', 'one', { v: '1' })
    await create(storage, 'b', 'other')
    const updated = await storage.write({ type: 'update', key: one.key, value: configMap('a', 'one', {}, { v: '2' }), expectRevision: one.revision })
    const deleted = await storage.write({ type: 'delete', key: one.key, value: configMap('a', 'one', {}, { v: '2' }), expectRevision: updated.revision })
    await cache.waitForRevision(deleted.revision, 5000)
    assert.ok(cache.windowStart <= from)

    const w = watchAll(cache, `${PREFIX}a/`, from)
    await eventually(() => w.events.length === 3, 5000, 'the replay')
    assert.deepEqual(w.events.map(e => [e.type, e.revision, e.attrs.labels.v, e.prevAttrs?.labels.v]),
      [['ADDED', one.revision, '1', undefined], ['MODIFIED', updated.revision, '2', '1'], ['DELETED', deleted.revision, '2', '2']])
    assert.equal(w.events[2].json, deleted.json)

    const live = await create(storage, 'a', 'again')
    await create(storage, 'b', 'ignored')
    await eventually(() => w.events.length === 4, 5000, 'the live event')
    assert.equal(w.events[3].revision, live.revision)
    w.stop()
    await create(storage, 'a', 'after-stop')
    await new Promise(resolve => setTimeout(resolve, 100))
    assert.equal(w.events.length, 4)
    assert.deepEqual(w.errors, [])
  })

  it('watches from before the window: log replay, then live, without gap or duplicate', async (t) => {
    const { storage, cache } = await setup(t, { windowSize: 3 })
    const from = cache.revision
    for (let i = 0; i < 8; i++) await create(storage, i % 2 === 0 ? 'a' : 'b', `o${i}`)
    const updated = await storage.write({ type: 'update', key: key('a', 'o0'), value: configMap('a', 'o0'), expectRevision: from + 1 })
    await cache.waitForRevision(updated.revision, 5000)
    assert.ok(cache.windowStart > from, 'the window no longer reaches back')

    const w = watchAll(cache, `${PREFIX}a/`, from)
    // Writes racing the replay land on either side of the seam.
    const racing = Array.from({ length: 10 }, (_, i) => create(storage, 'a', `race${i}`))
    const written = await Promise.all(racing)
    await eventually(() => w.events.length === 5 + 10, 5000, 'replay and live events')
    await new Promise(resolve => setTimeout(resolve, 100))
    const revisions = w.events.map(e => e.revision)
    assert.deepEqual(revisions, [from + 1, from + 3, from + 5, from + 7, updated.revision, ...written.map(x => x.revision)])
    assert.equal(w.events[4].type, 'MODIFIED')
    assert.deepEqual(w.events[4].prevAttrs, { labels: {}, fields: { 'metadata.name': 'o0', 'metadata.namespace': 'a' } })
    assert.deepEqual(w.errors, [])
  })

  it('fails a watch from below the compacted revision with Compacted and no event', async (t) => {
    const { storage, cache } = await setup(t, { windowSize: 2 })
    const from = cache.revision
    for (let i = 0; i < 5; i++) await create(storage, 'a', `o${i}`)
    const compacted = await storage.compact(from + 3)
    await cache.waitForRevision(from + 5, 5000)
    const w = watchAll(cache, PREFIX, from + 1)
    await eventually(() => w.errors.length === 1, 5000, 'the error')
    const [err] = w.errors
    assert.ok(err instanceof StorageError && err.code === 'Compacted' && err.revision === compacted)
    await create(storage, 'a', 'later')
    await new Promise(resolve => setTimeout(resolve, 100))
    assert.deepEqual(w.events, [])
  })

  it('trims the window so it never reaches below the compacted revision', async (t) => {
    const { storage, cache } = await setup(t, { compactionCheckMs: 20 })
    const from = cache.revision
    for (let i = 0; i < 5; i++) await create(storage, 'a', `o${i}`)
    await cache.waitForRevision(from + 5, 5000)
    assert.equal(cache.windowStart, from)
    await storage.compact(from + 3)
    await eventually(() => cache.windowStart === from + 3, 5000, 'the trim')
    const w = watchAll(cache, PREFIX, from + 3)
    await eventually(() => w.events.length === 2, 5000, 'the window replay')
  })

  it('routes each event to its own cache, and fills a cache registered after start', async (t) => {
    const { storage, caches, cache } = await setup(t)
    const secretsPrefix = '/registry/core/secrets/'
    await storage.write({ type: 'create', key: `${secretsPrefix}a/s1`, value: configMap('a', 's1') })
    const secrets = caches.register(secretsPrefix, extractAttrs)
    await secrets.ready
    const cm = await create(storage, 'a', 'cm')
    const s2 = await storage.write({ type: 'create', key: `${secretsPrefix}a/s2`, value: configMap('a', 's2') })
    await secrets.waitForRevision(s2.revision, 5000)
    await cache.waitForRevision(s2.revision, 5000)
    assert.deepEqual(secrets.list(secretsPrefix).map(o => o.key), [`${secretsPrefix}a/s1`, `${secretsPrefix}a/s2`])
    assert.deepEqual(cache.list(PREFIX).map(o => o.key), [cm.key])
    assert.equal(caches.get(secretsPrefix), secrets)
    assert.deepEqual(caches.all(), [cache, secrets])
  })

  it('ends open watches with Unavailable on stop', async (t) => {
    const { caches, cache } = await setup(t)
    const w = watchAll(cache, PREFIX, cache.revision)
    caches.stop()
    assert.equal(w.errors.length, 1)
    assert.ok(w.errors[0] instanceof StorageError && w.errors[0].code === 'Unavailable')
  })
})
