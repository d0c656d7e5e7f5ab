// Watch caches (the k8s cacher): per resource prefix, the current objects and a sliding window
// of recent events, kept current from the one shared log subscription, so that watches, lists
// at resourceVersion 0 and consistent reads need no SQL.
import {
  type CacheEvent, type CachedObject, type CachePage, type LogEvent, type ObjectAttrs, type PageQuery, type Storage, StorageError,
  type WatchCache, type WatchHandle
} from './interface.js'
import { Entry, Event } from './cache-entries.js'
import { countUnder, PastState, readPage } from './cache-pages.js'
import { LabelIndex } from './label-index.js'
import { PageMemo } from './page-memo.js'
import { SortedKeys } from './sorted-keys.js'
import { markStartUp } from '../resources/start-up-timeline.js'

export type ExtractAttrs = (obj: any) => ObjectAttrs

export interface WatchCacheOptions {
  /** Events kept per cache for watches to resume from. Default 10,000. */
  windowSize?: number
  /**
   * Rewrites the stored objects' JSON as the cache fills (a custom kind's defaults, filled in
   * objects stored before they existed); every read from the cache then sees it. Objects written
   * later were written under the current definition and enter as they are.
   */
  transform?: (json: string) => string
}

export interface WatchCaches {
  /**
   * Adds the cache of one prefix (ending in '/'). Call it before start(); a cache registered
   * later fills on its own and its `ready` resolves when that is done.
   */
  register (prefix: string, extractAttrs: ExtractAttrs, opts?: WatchCacheOptions): WatchCache
  get (prefix: string): WatchCache | undefined
  /** Drops the cache of a prefix no kind serves any longer (a deleted CustomResourceDefinition's); its watches end. */
  unregister (prefix: string): void
  all (): WatchCache[]
  /** Subscribes to the log and fills every cache; resolves when all are ready. */
  start (): Promise<void>
  /** Ends the subscription; open watches get StorageError('Unavailable'), pending waits too. */
  stop (): void
}

export interface WatchCachesOptions {
  /** How often to learn the compacted revision, below which windows are trimmed. Default 10 s. */
  compactionCheckMs?: number
  logger?: { warn (obj: object, msg: string): void }
}

const DEFAULT_WINDOW = 10_000
/** Past states kept per cache (one per paged walk in progress), and how long one unused is kept. */
const PAST_STATES = 4
const PAST_STATE_IDLE_MS = 60_000
/** A label index serves a list when its terms select at most this share of the listed range. */
const INDEX_SHARE = 1 / 4
const RESYNC_MAX_BACKOFF_MS = 5000

/**
 * The caches fill from one subscription. Start takes the current revision R0, subscribes after
 * it, then lists each prefix at its newest state (revision Ri >= R0): log events up to Ri are
 * already in that list, so each cache applies only the events after its own Ri.
 */
export function createWatchCaches (storage: Storage, opts: WatchCachesOptions = {}): WatchCaches {
  const caches = new Map<string, Cache>()
  const memo = new PageMemo()
  let unsubscribe: (() => void) | undefined
  let starting: Promise<void> | undefined
  let stopped = false
  let timer: NodeJS.Timeout | undefined

  function dispatch (events: LogEvent[], position: number): void {
    const routed = new Map<Cache, LogEvent[]>()
    for (const e of events) {
      // Every prefix of the key that ends in '/' may be a cache's prefix.
      for (let i = e.key.indexOf('/'); i !== -1; i = e.key.indexOf('/', i + 1)) {
        const cache = caches.get(e.key.slice(0, i + 1))
        if (cache === undefined) continue
        const list = routed.get(cache)
        if (list === undefined) routed.set(cache, [e])
        else list.push(e)
      }
    }
    for (const cache of caches.values()) cache.onLog(routed.get(cache) ?? [], position)
  }

  /** Subscribes after the current revision, then (re)fills every cache. */
  async function connect (): Promise<void> {
    const r0 = await storage.currentRevision()
    if (stopped) return
    for (const cache of caches.values()) cache.holdLog()
    unsubscribe = storage.subscribe(r0, dispatch, (err) => {
      unsubscribe = undefined
      void resync(err)
    })
    markStartUp('fill-begin')
    await Promise.all([...caches.values()].map(c => c.fill().then(() => { if (c.size > 1000) markStartUp(`filled ${c.prefix} ${c.size}`) })))
    markStartUp('fill-done')
  }

  /** The log lost events this process had not read: every watcher starts over, the caches refill. */
  async function resync (err: Error): Promise<void> {
    opts.logger?.warn({ err }, 'watch caches lost their log position; refilling')
    for (const cache of caches.values()) cache.failWatchers(err)
    let delay = 100
    while (!stopped) {
      try {
        await connect()
        return
      } catch (e) {
        unsubscribe?.()
        unsubscribe = undefined
        opts.logger?.warn({ err: e }, 'refilling the watch caches failed; retrying')
        await new Promise(resolve => setTimeout(resolve, delay).unref())
        delay = Math.min(delay * 2, RESYNC_MAX_BACKOFF_MS)
      }
    }
  }

  async function trimToCompaction (): Promise<void> {
    try {
      const compacted = await storage.compactedRevision()
      for (const cache of caches.values()) cache.trimTo(compacted)
    } catch {
      // The next check retries; an untrimmed window only serves a little more history.
    }
  }

  return {
    register (prefix, extractAttrs, o = {}) {
      if (caches.has(prefix)) throw new Error(`watch cache for ${prefix} already registered`)
      const cache = new Cache(storage, prefix, extractAttrs, o.windowSize ?? DEFAULT_WINDOW, memo, opts.logger, o.transform)
      caches.set(prefix, cache)
      // Before the subscription exists, connect() fills it with the others.
      if (unsubscribe !== undefined) {
        cache.holdLog()
        cache.fill().catch(() => {})
      }
      return cache
    },
    get: prefix => caches.get(prefix),
    unregister (prefix) {
      caches.get(prefix)?.stop(new StorageError('Removed', prefix, 'the resource is no longer served here'))
      caches.delete(prefix)
      memo.dropUnder(prefix)
    },
    all: () => [...caches.values()],
    start () {
      starting ??= (async () => {
        timer = setInterval(() => { void trimToCompaction() }, opts.compactionCheckMs ?? 10_000)
        timer.unref()
        await connect()
      })()
      return starting
    },
    stop () {
      stopped = true
      clearInterval(timer)
      unsubscribe?.()
      unsubscribe = undefined
      for (const cache of caches.values()) cache.stop()
    }
  }
}

interface Watcher {
  prefix: string
  /** The newest revision given to this watcher (dedupe: nothing at or below it is sent). */
  pos: number
  onEvent: (e: CacheEvent) => void
  onError: (err: Error) => void
  /** pending: replay not begun; replaying: reading the log, live events are held; live. */
  state: 'pending' | 'replaying' | 'live'
  held: CacheEvent[]
  done: boolean
}

interface Waiter { rev: number, resolve: () => void, reject: (err: Error) => void, timer: NodeJS.Timeout }

class Cache implements WatchCache {
  revision = 0
  windowStart = 0
  readonly ready: Promise<void>
  private resolveReady!: () => void
  private rejectReady!: (err: unknown) => void
  /** Settles when the fill in flight is done; watches wait for it (a refill resets the window). */
  private fillDone: Promise<void>
  private settleFill?: { resolve: () => void, reject: (err: unknown) => void }
  private filled = false
  objects = new Map<string, CachedObject>()
  readonly keys = new SortedKeys()
  /** The states at past revisions that continue pages were read at, most recently used last. */
  private pasts: PastState[] = []
  /** Built for the first list with a label selector (indexLabels). */
  private labels?: LabelIndex
  /** The window: events[head..] in revision order. */
  private events: Event[] = []
  private head = 0
  /** Log batches held while a fill is in flight. */
  private heldLog?: Array<[LogEvent[], number]>
  private readonly watchers = new Set<Watcher>()
  private waiters: Waiter[] = []

  constructor (private readonly storage: Storage, readonly prefix: string, private readonly extract: ExtractAttrs,
    private readonly windowSize: number, private readonly memo: PageMemo, private readonly logger?: { warn (obj: object, msg: string): void },
    private readonly transform: (json: string) => string = json => json) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve
      this.rejectReady = reject
    })
    // A failed fill is reported by start(); no one need await `ready` to avoid an unhandled rejection.
    this.ready.catch(() => {})
    this.fillDone = this.ready
  }

  /** From now on, log batches (and new watches) wait until the next fill is done. */
  holdLog (): void {
    this.heldLog = []
    if (this.filled) {
      this.fillDone = new Promise<void>((resolve, reject) => { this.settleFill = { resolve, reject } })
      this.fillDone.catch(() => {})
    }
  }

  async fill (): Promise<void> {
    try {
      // Built aside as the rows arrive (a refill's readers see the old state until it is done),
      // each row's value kept as the entry's bytes: nothing else of the read is held.
      const objects = new Map<string, CachedObject>()
      const keys: string[] = []
      const revision = await this.storage.scan(this.prefix, (key, revision, json) => {
        objects.set(key, new Entry(key, revision, this.transform(json), this.parse))
        keys.push(key)
      })
      this.objects = objects
      this.keys.reset(keys)
      this.memo.dropUnder(this.prefix)
      this.pasts = []
      this.labels = undefined
      this.revision = revision
      this.events = []
      this.head = 0
      this.windowStart = revision
      const held = this.heldLog ?? []
      this.heldLog = undefined
      this.filled = true
      for (const [events, position] of held) this.apply(events, position)
      this.settleWaiters()
      this.resolveReady()
      this.settleFill?.resolve()
    } catch (err) {
      this.heldLog = undefined
      this.rejectReady(err)
      this.settleFill?.reject(err)
      throw err
    } finally {
      this.settleFill = undefined
    }
  }

  onLog (events: LogEvent[], position: number): void {
    if (this.heldLog !== undefined) this.heldLog.push([events, position])
    else if (this.filled) this.apply(events, position)
  }

  private apply (events: LogEvent[], position: number): void {
    for (const e of events) {
      if (e.revision <= this.revision) continue
      const prev = this.objects.get(e.key)
      const entry = new Entry(e.key, e.revision, e.json, this.parse)
      const ce = new Event(e.type, entry, e.type === 'ADDED' ? undefined : prev)
      if (e.type === 'DELETED') {
        if (prev !== undefined) {
          this.objects.delete(e.key)
          this.keys.remove(e.key)
        }
      } else {
        this.objects.set(e.key, entry)
        if (prev === undefined) this.keys.add(e.key)
      }
      this.labels?.touch(e.key)
      this.memo.changed(this.prefix, e.key)
      this.events.push(ce)
      if (this.events.length - this.head > this.windowSize) this.dropOldest()
      this.revision = e.revision
      for (const w of this.watchers) this.offer(w, ce)
    }
    if (position > this.revision) this.revision = position
    this.settleWaiters()
  }

  /** Drops window events at or below the compacted revision: the window never reaches below it. */
  trimTo (compacted: number): void {
    while (this.head < this.events.length && this.events[this.head].revision <= compacted) this.dropOldest()
    if (compacted > this.windowStart) this.windowStart = Math.min(compacted, this.revision)
    // Past states hold replaced values alive: those no walk has read for a while go.
    const idleSince = Date.now() - PAST_STATE_IDLE_MS
    this.pasts = this.pasts.filter(p => p.revision >= compacted && p.lastUsed >= idleSince)
  }

  private dropOldest (): void {
    this.windowStart = this.events[this.head].revision
    // The slot is reclaimed only at the next slice: until then it must not keep the event's
    // object and the one it replaced (a MODIFIED burst's old values) alive.
    ;(this.events as Array<Event | undefined>)[this.head] = undefined
    this.head++
    // Reclaim the dropped slots now and then rather than shifting on every event.
    if (this.head >= this.windowSize) {
      this.events = this.events.slice(this.head)
      this.head = 0
    }
  }

  get (key: string): CachedObject | undefined {
    return this.objects.get(key)
  }

  get size (): number { return this.objects.size }

  list (prefix: string): CachedObject[] {
    return this.keys.range(prefix).map(key => this.objects.get(key)!)
  }

  page (q: PageQuery): CachePage | undefined {
    const revision = q.revision ?? this.revision
    let past: PastState | undefined
    if (q.revision !== undefined) {
      // Below what the database still answers at, the database's answer (410) stands.
      if (!this.filled || revision > this.revision || revision < this.storage.knownCompactedRevision()) return undefined
      if (revision < this.revision && (this.heldLog !== undefined || revision < this.windowStart)) return undefined
      if (this.firstAfter(revision) < this.events.length) {
        past = this.pastAt(revision)
        if (past === undefined) return undefined
      }
    }
    // A first page of the newest state, which every such list shares while its prefix is unchanged.
    const variant = q.revision === undefined && q.after === undefined && (q.filter === undefined || q.selection !== undefined)
      ? `${q.limit ?? ''}\0${q.selection ?? ''}`
      : undefined
    const kept = variant === undefined ? undefined : this.memo.get(q.prefix, variant)
    if (kept !== undefined) return { items: kept.items, revision: this.revision, more: kept.more, remaining: kept.remaining, shared: true }
    let candidates: Iterable<string> | undefined
    if (q.labels !== undefined && q.labels.length > 0 && this.labels?.built === true) {
      candidates = this.labels.candidates(q.labels, Math.max(64, countUnder(this.keys, q.prefix) * INDEX_SHARE))
    }
    const page = readPage(this, q, revision, past, candidates)
    const shared = variant === undefined || !this.filled ? undefined : this.memo.keep(q.prefix, variant, page.items, page.more, page.remaining)
    return shared === undefined ? page : { ...page, items: shared.items, shared: true }
  }

  indexLabels (): Promise<void> {
    this.labels ??= new LabelIndex(this.objects, o => (o as Entry).attrsNotKept().labels)
    return this.labels.build()
  }

  settleKeys (): Promise<void> { return this.keys.settleInSlices() }

  /** The state at `revision` of the keys changed since, from the window (undefined when it no longer reaches back). */
  private pastAt (revision: number): PastState | undefined {
    let past = this.pasts.find(p => p.revision === revision)
    if (past !== undefined) {
      this.pasts = this.pasts.filter(p => p !== past)
      // Its changes up to upTo are in it; the window must still hold every one after.
      if (past.upTo < this.windowStart) past = undefined
    }
    if (past === undefined && revision < this.windowStart) return undefined
    past ??= new PastState(revision)
    for (let i = this.firstAfter(past.upTo); i < this.events.length; i++) {
      if (!past.add(this.events[i]) || past.states.size > this.windowSize) return undefined
    }
    past.upTo = this.revision
    past.lastUsed = Date.now()
    this.pasts.push(past)
    if (this.pasts.length > PAST_STATES) this.pasts.shift()
    return past
  }

  waitForRevision (rev: number, timeoutMs: number): Promise<void> {
    if (this.filled && this.revision >= rev) return Promise.resolve()
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        rev,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter(w => w !== waiter)
          reject(new StorageError('TooLarge', this.prefix,
            `revision ${rev} not reached within ${timeoutMs} ms (at ${this.revision})`))
        }, timeoutMs)
      }
      this.waiters.push(waiter)
    })
  }

  private settleWaiters (): void {
    if (!this.filled || this.waiters.length === 0) return
    const still: Waiter[] = []
    for (const w of this.waiters) {
      if (w.rev <= this.revision) {
        clearTimeout(w.timer)
        w.resolve()
      } else {
        still.push(w)
      }
    }
    this.waiters = still
  }

  /**
   * Replays from the window when it reaches back to afterRevision; else from the log up to
   * this cache's revision while live events are held back, then the held ones. Dedupe by
   * revision makes the seam exact whichever side an event arrives from.
   */
  watch (prefix: string, afterRevision: number, onEvent: (e: CacheEvent) => void,
    onError: (err: Error) => void): WatchHandle {
    const w: Watcher = { prefix, pos: afterRevision, onEvent, onError, state: 'pending', held: [], done: false }
    this.watchers.add(w)
    // Begin after returning, so the caller holds the handle before the first event.
    const begin = (): void => { if (!w.done) this.begin(w) }
    if (this.filled && this.heldLog === undefined) queueMicrotask(begin)
    else this.fillDone.then(begin, (err) => this.fail(w, err))
    return {
      stop: () => {
        w.done = true
        this.watchers.delete(w)
      }
    }
  }

  private begin (w: Watcher): void {
    if (w.pos >= this.windowStart) {
      for (let i = this.firstAfter(w.pos); i < this.events.length && !w.done; i++) this.emit(w, this.events[i])
      w.state = 'live'
      return
    }
    w.state = 'replaying'
    this.storage.readLog(w.prefix, w.pos, this.revision).then((events) => {
      for (const e of events) {
        if (w.done) return
        const prev = e.prevJson === undefined ? undefined : new Entry(e.key, 0, e.prevJson, this.parse)
        const ce = new Event(e.type, new Entry(e.key, e.revision, e.json, this.parse), prev)
        this.emit(w, ce)
      }
      for (const ce of w.held) this.emit(w, ce)
      w.held = []
      w.state = 'live'
    }).catch((err: unknown) => this.fail(w, err))
  }

  private offer (w: Watcher, ce: CacheEvent): void {
    if (w.state === 'live') this.emit(w, ce)
    else if (w.state === 'replaying' && ce.key.startsWith(w.prefix)) w.held.push(ce)
    // pending: begin() replays it from the window or reads it from the log.
  }

  private emit (w: Watcher, ce: CacheEvent): void {
    if (w.done || ce.revision <= w.pos || !ce.key.startsWith(w.prefix)) return
    w.pos = ce.revision
    try {
      w.onEvent(ce)
    } catch (err) {
      this.logger?.warn({ err }, 'watcher threw')
    }
  }

  private fail (w: Watcher, err: unknown): void {
    if (w.done) return
    w.done = true
    this.watchers.delete(w)
    try {
      w.onError(err instanceof Error ? err : new Error(String(err)))
    } catch (e) {
      this.logger?.warn({ err: e }, 'watcher threw')
    }
  }

  failWatchers (err: Error): void {
    for (const w of [...this.watchers]) this.fail(w, err)
  }

  stop (err = new StorageError('Unavailable', this.prefix, 'watch cache stopped')): void {
    this.failWatchers(err)
    for (const w of this.waiters) {
      clearTimeout(w.timer)
      w.reject(err)
    }
    this.waiters = []
  }

  /** The index of the first window event with revision > rev. */
  private firstAfter (rev: number): number {
    let lo = this.head
    let hi = this.events.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.events[mid].revision <= rev) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Parses once, only to extract the attributes; the parsed object is not kept. */
  private readonly parse = (json: string): ObjectAttrs => {
    try {
      return this.extract(JSON.parse(json))
    } catch (err) {
      this.logger?.warn({ err, prefix: this.prefix }, 'extracting object attributes failed')
      return { labels: {}, fields: {} }
    }
  }
}
