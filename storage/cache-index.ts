// A value derived from watch caches (an authorizer's in-memory index): built on first use and
// dropped on any event in its sources, so a read between changes costs nothing and the first
// read after a change rebuilds it from the caches, never from the database.
import type { WatchCache } from './interface.js'

/** What an index follows: a watch cache and the prefix within it (a kind's store is one). */
export interface IndexSource {
  readonly cache: WatchCache
  readonly prefix: string
}

export interface CacheIndexOptions<T> {
  /**
   * The caches the value derives from, asked at start and at each catch-up: a kind the server
   * does not serve is left out and contributes nothing.
   */
  sources: () => IndexSource[]
  /** Builds the value from the caches as they are now. */
  build: () => T
  /** The database's newest revision, for catchUp; a failure leaves the caches' answer standing. */
  currentRevision: () => Promise<number>
  /** How long catchUp waits for a lagging cache before it answers from what it has. */
  catchUpTimeoutMs?: number
  /** How soon a watch that ended (compaction, a lost subscription) is taken up again. */
  resubscribeMs?: number
  /** Told when a source's watch ends; it is resubscribed after resubscribeMs either way. */
  onWatchEnded?: (err: Error, source: IndexSource) => void
}

const CATCH_UP_TIMEOUT_MS = 3000
const RESUBSCRIBE_MS = 1000

export class CacheIndex<T> {
  private value: { current: T } | undefined
  private watches: Array<{ stop (): void }> = []
  private stopped = false

  constructor (private readonly o: CacheIndexOptions<T>) {}

  /** The value as the caches now stand: the one built before, unless a source changed since. */
  current (): T {
    this.value ??= { current: this.o.build() }
    return this.value.current
  }

  /** Drops the value: the next read rebuilds it. */
  invalidate (): void { this.value = undefined }

  /** Follows every source (once its cache is filled); until then reads build from what is there. */
  async start (): Promise<void> {
    for (const s of this.o.sources()) {
      await s.cache.ready
      this.subscribe(s)
    }
    this.invalidate()
  }

  /**
   * Waits until every source cache holds the writes committed so far (read-your-writes before
   * a denial); the value is rebuilt when a cache had to catch up. Best effort: with the
   * database unreachable, or a cache slower than catchUpTimeoutMs, the caches' answer stands.
   */
  async catchUp (): Promise<void> {
    const sources = this.o.sources()
    if (sources.length === 0) return
    const revision = await this.o.currentRevision().catch(() => undefined)
    if (revision === undefined) return
    let waited = false
    for (const s of sources) {
      if (s.cache.revision >= revision) continue
      await s.cache.waitForRevision(revision, this.o.catchUpTimeoutMs ?? CATCH_UP_TIMEOUT_MS).catch(() => undefined)
      waited = true
    }
    if (waited) this.invalidate()
  }

  /** Stops following the sources (the value stays as it is). */
  stop (): void {
    this.stopped = true
    for (const w of this.watches) w.stop()
  }

  private subscribe (s: IndexSource): void {
    if (this.stopped) return
    this.watches.push(s.cache.watch(s.prefix, s.cache.revision, () => this.invalidate(), (err) => {
      this.invalidate()
      if (this.stopped) return
      this.o.onWatchEnded?.(err, s)
      setTimeout(() => this.subscribe(s), this.o.resubscribeMs ?? RESUBSCRIBE_MS).unref()
    }))
  }
}
