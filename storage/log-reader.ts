// The one reader of the revision log per Storage: every subscriber shares it, so the database
// sees one poll per process however many watches are open (kine's broadcaster, one poller).
import { type LogEvent, StorageError } from './interface.js'

/** What the reader needs from the database. */
export interface LogSource {
  /**
   * Up to `limit` events with after < revision <= until (no bound when until is undefined), in
   * revision order, read in one snapshot together with the compacted revision.
   */
  readAfter (after: number, until: number | undefined, limit: number): Promise<{ events: LogEvent[], compacted: number }>
  /**
   * Opens a connection that calls `onNotify` on each write notification (with the revision it
   * carries, when it carries one) and `onLost` (at most once) when the connection fails.
   * Rejects when it cannot connect.
   */
  listen (onNotify: (revision?: number) => void, onLost: (err: unknown) => void): Promise<{ close (): Promise<void> }>
}

export interface LogReaderOptions {
  /** The slow poll that covers a silent channel (lost notifications, a listener reconnecting). */
  pollIntervalMs: number
  batchSize: number
  logger?: { warn (obj: object, msg: string): void }
}

type OnEvents = (events: LogEvent[], revision: number) => void

interface Subscriber {
  /** The log position this subscriber has been given. */
  pos: number
  onEvents: OnEvents
  onError?: (err: Error) => void
  /** Live batches held back while this subscriber catches up on its own. */
  held?: Array<[LogEvent[], number]>
  closed: boolean
}

const MAX_BACKOFF_MS = 5000
/** Own commits kept while an earlier one is still to come (the write pipeline's depth is far less). */
const MAX_PENDING_OFFERS = 16
/**
 * How long a notification waits for this process's own batches to answer: under a steady write
 * load they are nearly always in flight, and another writer's commits are then read this late
 * at most.
 */
const NOTIFY_DEFER_MS = 5

/**
 * Delivers the log to subscribers in revision order, each event exactly once.
 *
 * The rule for `afterRevision`: a subscriber may join at any position. When the reader has no
 * subscriber it simply starts at the joiner's position. A joiner behind the shared position
 * gets its own catch-up read up to that position first, while the live batches it would have
 * missed are held back for it; a joiner ahead of it is skipped until the log passes it.
 */
export class LogReader {
  private readonly subs = new Set<Subscriber>()
  private position = 0
  /** Bumped when the position is reset, so a read in flight from the old one is dropped. */
  private generation = 0
  private reading = false
  private readAgain = false
  private started = false
  private closed = false
  private timer?: NodeJS.Timeout
  private listener?: { close (): Promise<void> }
  private connecting?: Promise<void>
  private readonly sleeps = new Set<() => void>()
  /** Offered commits that do not continue the log yet, by their first revision. */
  private readonly pending = new Map<number, LogEvent[]>()
  /** This process's write batches in flight, whose commits will be offered. */
  private awaitedOffers = 0
  /** The highest revision notified while batches were in flight, not read for yet (0: none). */
  private deferredUpTo = 0
  private deferTimer?: NodeJS.Timeout

  constructor (private readonly source: LogSource, private readonly opts: LogReaderOptions) {}

  subscribe (afterRevision: number, onEvents: OnEvents, onError?: (err: Error) => void): () => void {
    const sub: Subscriber = { pos: afterRevision, onEvents, onError, closed: false }
    if (this.closed) {
      queueMicrotask(() => onError?.(new StorageError('Unavailable', '', 'storage is closed')))
      return () => {}
    }
    if (this.subs.size === 0) {
      this.position = afterRevision
      this.generation++
      this.pending.clear()
    }
    this.subs.add(sub)
    if (afterRevision < this.position) {
      sub.held = []
      void this.catchUp(sub, this.position)
    }
    this.start()
    this.wake()
    return () => {
      sub.closed = true
      this.subs.delete(sub)
    }
  }

  /**
   * The events of a transaction this process committed itself: consecutive revisions with no
   * one else's among them (every writer allocates under one lock, held to its commit). When they
   * continue the log where the reader stands they are delivered at once, without reading them
   * back; otherwise they wait for the commit before them, and the log read delivers them anyway
   * if that never comes. Events the reader has passed are ignored, so offering is never wrong.
   */
  offer (events: LogEvent[]): void {
    if (this.closed || this.subs.size === 0 || events.length === 0) return
    const first = events[0].revision
    for (let i = 1; i < events.length; i++) if (events[i].revision !== first + i) return
    if (first > this.position + 1) {
      if (this.pending.size >= MAX_PENDING_OFFERS) this.pending.delete(this.pending.keys().next().value!)
      this.pending.set(first, events)
      return
    }
    this.advance(events)
  }

  /**
   * Announces a write batch of this process: until the returned function is called (once its
   * commits are offered, or it failed), a notification is most likely that batch's own commit,
   * whose events the offer delivers without reading them back. Such a notification waits for the
   * batches in flight (at most NOTIFY_DEFER_MS), and the log is read only for what they did not
   * deliver.
   */
  expectOffer (): () => void {
    this.awaitedOffers++
    let settled = false
    return () => {
      if (settled) return
      settled = true
      this.awaitedOffers--
      if (this.awaitedOffers === 0) this.readDeferred()
    }
  }

  private notified (revision: number | undefined): void {
    if (revision !== undefined && revision <= this.position) return
    if (revision === undefined || this.awaitedOffers === 0) {
      this.wake()
      return
    }
    if (revision > this.deferredUpTo) this.deferredUpTo = revision
    this.deferTimer ??= setTimeout(() => {
      this.deferTimer = undefined
      this.readDeferred()
    }, NOTIFY_DEFER_MS).unref()
  }

  private readDeferred (): void {
    if (this.deferTimer !== undefined) {
      clearTimeout(this.deferTimer)
      this.deferTimer = undefined
    }
    if (this.deferredUpTo > this.position) this.wake()
    this.deferredUpTo = 0
  }

  /** Reads the log now (a notification arrived, or the poll fired). */
  wake (): void {
    if (this.closed) return
    if (this.reading) {
      this.readAgain = true
      return
    }
    void this.read()
  }

  async close (): Promise<void> {
    this.closed = true
    clearInterval(this.timer)
    clearTimeout(this.deferTimer)
    this.subs.clear()
    for (const cancel of this.sleeps) cancel()
    await this.connecting
    await this.listener?.close().catch(() => {})
    this.listener = undefined
  }

  private start (): void {
    if (this.started) return
    this.started = true
    this.timer = setInterval(() => this.wake(), this.opts.pollIntervalMs)
    this.timer.unref()
    this.connecting = this.connect()
  }

  /** (Re)opens the LISTEN connection with backoff, then reads what was written meanwhile. */
  private async connect (): Promise<void> {
    let delay = 100
    while (!this.closed) {
      let lost = false
      try {
        // A notification of a revision already delivered (this process's own commit) needs no read.
        const onNotify = (revision?: number): void => { this.notified(revision) }
        // A source may report the loss before its listen() has even resolved (the connection
        // ended during the LISTEN): the listener is not known yet then, and the reconnect
        // below is already under way.
        let listener: { close (): Promise<void> } | undefined
        listener = await this.source.listen(onNotify, (err) => {
          if (lost) return
          lost = true
          if (listener !== undefined && this.listener === listener) this.listener = undefined
          void listener?.close().catch(() => {})
          if (this.closed) return
          this.opts.logger?.warn({ err }, 'log listener lost; reconnecting')
          this.connecting = this.connect()
        })
        if (this.closed || lost) {
          await listener.close().catch(() => {})
          return
        }
        this.listener = listener
        // Events committed while no one listened are read by position: nothing is lost.
        this.wake()
        return
      } catch (err) {
        if (this.closed) return
        this.opts.logger?.warn({ err }, 'log listener cannot connect; retrying')
        await this.sleep(delay)
        delay = Math.min(delay * 2, MAX_BACKOFF_MS)
      }
    }
  }

  private async read (): Promise<void> {
    this.reading = true
    try {
      do {
        this.readAgain = false
        while (this.subs.size > 0 && !this.closed) {
          const generation = this.generation
          const from = this.position
          const { events, compacted } = await this.source.readAfter(from, undefined, this.opts.batchSize)
          if (this.closed) return
          if (generation !== this.generation) continue
          if (compacted > from) {
            // Events after our position may be gone: the subscribers must start over.
            this.failAll(new StorageError('Compacted', '', `log position ${from} is below the compacted revision ${compacted}`, compacted))
            break
          }
          if (events.length === 0) break
          this.advance(events)
          if (events.length < this.opts.batchSize) break
        }
      } while (this.readAgain && !this.closed)
    } catch (err) {
      // The poll timer retries; the reader's position is unchanged, so nothing is lost.
      if (!this.closed) this.opts.logger?.warn({ err }, 'reading the log failed; retrying on the next poll')
    } finally {
      this.reading = false
    }
  }

  /**
   * Moves the shared position past `events` (which start at or below position + 1) and hands
   * them to every subscriber; then does the same with each held offer that now continues the log.
   */
  private advance (events: LogEvent[]): void {
    for (let next: LogEvent[] | undefined = events; next !== undefined; next = this.takeContinuingOffer()) {
      const last = next[next.length - 1].revision
      // An offer may have passed some of what a read returns: each event still goes out once.
      if (last <= this.position) continue
      this.position = last
      for (const sub of [...this.subs]) {
        if (sub.held) sub.held.push([next, last])
        else this.deliver(sub, next, last)
      }
    }
  }

  private takeContinuingOffer (): LogEvent[] | undefined {
    for (const [first, offered] of this.pending) {
      if (first > this.position + 1) continue
      this.pending.delete(first)
      return offered
    }
    return undefined
  }

  private async catchUp (sub: Subscriber, until: number): Promise<void> {
    let delay = 100
    while (!sub.closed && sub.pos < until) {
      try {
        const { events, compacted } = await this.source.readAfter(sub.pos, until, this.opts.batchSize)
        if (sub.closed) return
        if (compacted > sub.pos) {
          this.fail(sub, new StorageError('Compacted', '', `revision ${sub.pos} is below the compacted revision ${compacted}`, compacted))
          return
        }
        // No gap can exist below a revision the reader has passed, so an empty read means done.
        this.deliver(sub, events, events.length > 0 ? events[events.length - 1].revision : until)
        delay = 100
      } catch (err) {
        if (this.closed || sub.closed) return
        this.opts.logger?.warn({ err }, 'log catch-up read failed; retrying')
        await this.sleep(delay)
        delay = Math.min(delay * 2, MAX_BACKOFF_MS)
      }
    }
    const held = sub.held ?? []
    sub.held = undefined
    for (const [events, position] of held) this.deliver(sub, events, position)
  }

  private deliver (sub: Subscriber, events: LogEvent[], position: number): void {
    if (sub.closed || position <= sub.pos) return
    const fresh = events.length > 0 && events[0].revision <= sub.pos
      ? events.filter(e => e.revision > sub.pos)
      : events
    sub.pos = position
    try {
      sub.onEvents(fresh, position)
    } catch (err) {
      this.opts.logger?.warn({ err }, 'log subscriber threw')
    }
  }

  /** A backoff pause that close() cuts short. */
  private async sleep (ms: number): Promise<void> {
    await new Promise<void>(resolve => {
      const done = (): void => {
        clearTimeout(timer)
        this.sleeps.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.sleeps.add(done)
    })
  }

  private fail (sub: Subscriber, err: Error): void {
    sub.closed = true
    this.subs.delete(sub)
    try {
      sub.onError?.(err)
    } catch (e) {
      this.opts.logger?.warn({ err: e }, 'log subscriber threw')
    }
  }

  private failAll (err: Error): void {
    for (const sub of [...this.subs]) this.fail(sub, err)
  }
}

