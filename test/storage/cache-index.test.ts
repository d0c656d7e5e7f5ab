import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { CacheIndex } from '../../storage/cache-index.js'
import { StorageError, type CacheEvent, type CachedObject, type WatchCache } from '../../storage/interface.js'

/** A watch cache the test drives by hand: `put` applies a write, `fail` ends every watch. */
function fakeCache (prefix: string) {
  const objects = new Map<string, CachedObject>()
  const watchers = new Set<{ onEvent: (e: CacheEvent) => void, onError: (err: Error) => void }>()
  const waiters: Array<{ rev: number, resolve: () => void }> = []
  let revision = 0
  let watchCount = 0
  const cache: WatchCache = {
    prefix,
    get revision () { return revision },
    ready: Promise.resolve(),
    async waitForRevision (rev, timeoutMs) {
      if (revision >= rev) return
      await new Promise<void>((resolve, reject) => {
        waiters.push({ rev, resolve })
        setTimeout(() => reject(new StorageError('TooLarge', `not at ${rev}`)), timeoutMs)
      })
    },
    get: (key) => objects.get(key),
    list: (p) => [...objects.values()].filter(o => o.key.startsWith(p)).sort((a, b) => a.key < b.key ? -1 : 1),
    page: () => undefined,
    indexLabels: async () => {},
    settleKeys: async () => {},
    watch (_p, _after, onEvent, onError) {
      watchCount++
      const w = { onEvent, onError }
      watchers.add(w)
      return { stop: () => { watchers.delete(w) } }
    },
    windowStart: 0,
    get size () { return objects.size }
  }
  return {
    cache,
    prefix,
    get watchCount () { return watchCount },
    get watching () { return watchers.size },
    /** Applies a write at the next revision and tells the watchers, as the real cache does. */
    put (name: string, value: unknown): void {
      const key = `${prefix}${name}`
      const entry: CachedObject = { key, revision: ++revision, json: JSON.stringify(value), attrs: { labels: {}, fields: {} } }
      objects.set(key, entry)
      for (const w of watchers) w.onEvent({ type: 'ADDED', ...entry })
      for (const w of waiters.splice(0)) if (w.rev <= revision) w.resolve(); else waiters.push(w)
    },
    fail (): void { for (const w of [...watchers]) { watchers.delete(w); w.onError(new StorageError('Compacted', 'compacted')) } }
  }
}

const tick = (ms = 0): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** An index of every value in the sources, counting its builds. */
function valuesIndex (sources: Array<ReturnType<typeof fakeCache>>, currentRevision: () => Promise<number> = async () => 0, resubscribeMs = 1000) {
  let builds = 0
  const ended: string[] = []
  const index = new CacheIndex({
    sources: () => sources,
    build: () => {
      builds++
      return sources.flatMap(s => s.cache.list(s.prefix).map(o => JSON.parse(o.json) as string))
    },
    currentRevision,
    catchUpTimeoutMs: 50,
    resubscribeMs,
    onWatchEnded: (_err, s) => { ended.push(s.prefix) }
  })
  return { index, builds: () => builds, ended }
}

describe('cache index', () => {
  it('builds on first use and again only after an event in one of its sources', async () => {
    const a = fakeCache('/a/')
    const b = fakeCache('/b/')
    a.put('x', 'ax')
    const { index, builds } = valuesIndex([a, b])
    await index.start()
    assert.deepEqual(index.current(), ['ax'])
    assert.deepEqual(index.current(), ['ax'])
    assert.equal(builds(), 1)
    b.put('y', 'by')
    assert.deepEqual(index.current(), ['ax', 'by'])
    assert.equal(builds(), 2)
    index.stop()
  })

  it('stops following its sources once stopped', async () => {
    const a = fakeCache('/a/')
    const { index, builds } = valuesIndex([a])
    await index.start()
    assert.equal(a.watching, 1)
    index.current()
    index.stop()
    assert.equal(a.watching, 0)
    a.put('x', 'ax')
    assert.deepEqual(index.current(), [])
    assert.equal(builds(), 1)
  })

  it('drops its value when a watch ends, says so, and follows the source again', async () => {
    const a = fakeCache('/a/')
    const { index, builds, ended } = valuesIndex([a], async () => 0, 5)
    await index.start()
    index.current()
    a.fail()
    assert.deepEqual(ended, ['/a/'])
    index.current()
    assert.equal(builds(), 2)
    await tick(30)
    assert.equal(a.watchCount, 2)
    a.put('x', 'ax')
    assert.deepEqual(index.current(), ['ax'])
    index.stop()
  })

  it('catches up with a lagging cache before it rebuilds, and keeps its value when none lags', async () => {
    const a = fakeCache('/a/')
    let newest = 0
    const { index, builds } = valuesIndex([a], async () => newest)
    await index.start()
    index.current()
    await index.catchUp()
    index.current()
    assert.equal(builds(), 1)
    // A write committed but not yet in the cache: catchUp waits for it.
    newest = 1
    const caughtUp = index.catchUp()
    setTimeout(() => a.put('x', 'ax'), 5)
    await caughtUp
    assert.deepEqual(index.current(), ['ax'])
    index.stop()
  })

  it('answers from the caches when the database cannot say how far it is, or a cache stays behind', async () => {
    const a = fakeCache('/a/')
    a.put('x', 'ax')
    const unreachable = valuesIndex([a], async () => { throw new Error('connection refused') })
    await unreachable.index.start()
    unreachable.index.current()
    await unreachable.index.catchUp()
    unreachable.index.current()
    assert.equal(unreachable.builds(), 1)
    unreachable.index.stop()

    const behind = valuesIndex([a], async () => 99)
    await behind.index.start()
    await behind.index.catchUp()
    assert.deepEqual(behind.index.current(), ['ax'])
    behind.index.stop()
  })
})
