// The seats of the server's concurrency limit, by priority level, and the fair queues of each
// limited level (the reference's queueset): a request waits in one queue of its flow's hand
// (shuffle sharding), queues take turns by the seats they have been given (fair queuing), and
// a full queue, a Reject level without a free seat, or a wait past the limit is a rejection.
//
// Lending: each level keeps nominal − lendable seats for itself; the lendable seats of every
// level form one pool that any level (its owner included) may draw on, up to its own upper
// bound (nominal + borrowing limit). The reference re-divides the seats every ten seconds from
// the levels' recent demand; here the pool is drawn on at dispatch, so an idle level's seats
// serve a busy one at once, and come back as soon as their requests finish.
import type { FlowConfig, PriorityLevelEntry } from './classify.js'

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled'

/** What the metrics are told: every change of a level's or flow's counts. */
export interface DispatchObserver {
  enqueued (level: string, schema: string, seats: number, queueLength: number): void
  dequeued (level: string, schema: string, seats: number): void
  dispatched (level: string, schema: string, seats: number, waitedMs: number): void
  /** `watch`: the request was a watch, whose execution ends when its stream starts. */
  finished (level: string, schema: string, seats: number, executedMs: number, watch: boolean): void
  rejected (level: string, schema: string, reason: RejectReason, waitedMs: number): void
  /** A level's totals changed: seats in use, requests executing, requests and seats waiting. */
  changed (s: LevelState): void
  /** The head of a level's queues could not be given its seats (the reference's no-accommodation). */
  unaccommodated (level: string, schema: string): void
  /** The levels were (re)configured; `serverLimit` is the server's seats. */
  configured (levels: ReadonlyMap<string, LevelState>, serverLimit: number): void
}

/** A request's hold on its seats; released once, when it is done (or its watch has started). */
export interface Grant { release (): void }

export interface Rejection { rejected: RejectReason }

/** A request waiting in a queue: its outcome, and how to leave the queue (the client went away). */
export interface Waiting { outcome: Promise<Grant | Rejection>, cancel (): void }

/** Seats a request keeps after it is answered, and for how long (a write's watch fan-out). */
export interface Afterwards { seats: number, ms: number }

interface Waiter {
  schema: string
  seats: number
  afterwards: Afterwards | undefined
  watch: boolean
  enqueuedAt: number
  queue: Queue
  settle (result: Grant | Rejection): void
  timer: NodeJS.Timeout | undefined
}

interface Queue {
  waiters: Waiter[]
  /** Seats queued here, and seats of this queue's requests executing: what the hand compares. */
  queuedSeats: number
  executingSeats: number
  /** Seats given out from this queue so far, normalised to the level's clock: fair queuing's finish tag. */
  virtualTime: number
}

export interface LevelLimits {
  nominal: number
  lendable: number
  /** Seats never lent: nominal − lendable. */
  guaranteed: number
  /** The most the level may hold, borrowing included. */
  upper: number
}

export class LevelState {
  entry: PriorityLevelEntry
  limits: LevelLimits
  queues: Queue[] = []
  inUseSeats = 0
  executing = 0
  waiting = 0
  waitingSeats = 0
  /** The finish tag of the last dispatch: an idle queue starts again from here. */
  clock = 0
  private readonly hands = new Map<string, number[]>()

  constructor (entry: PriorityLevelEntry, limits: LevelLimits) {
    this.entry = entry
    this.limits = limits
    this.resize()
  }

  /** Takes a new spec; returns the waiters the new queues have no place for (a level that no longer queues). */
  reconfigure (entry: PriorityLevelEntry, limits: LevelLimits): Waiter[] {
    const before = this.entry.queuing
    this.entry = entry
    this.limits = limits
    if (before?.queues === entry.queuing?.queues && before?.handSize === entry.queuing?.handSize) return []
    return this.resize()
  }

  /** New queue count or hand size: waiters move to the first new queue, their order kept. */
  private resize (): Waiter[] {
    const waiters = this.queues.flatMap(q => q.waiters)
    this.hands.clear()
    const count = this.entry.queuing?.queues ?? 0
    this.queues = Array.from({ length: count }, () => ({ waiters: [], queuedSeats: 0, executingSeats: 0, virtualTime: this.clock }))
    const q = this.queues[0]
    if (q === undefined) return waiters
    for (const w of waiters) {
      w.queue = q
      q.waiters.push(w)
      q.queuedSeats += w.seats
    }
    return []
  }

  /** The queues a flow may use: handSize of them, dealt from the flow's hash as the reference's dealer deals. */
  hand (flow: string): number[] {
    let cards = this.hands.get(flow)
    if (cards !== undefined) return cards
    const deck = this.queues.length
    const size = Math.max(1, Math.min(this.entry.queuing?.handSize ?? 1, deck))
    let value = flowHash(flow)
    cards = []
    for (let i = 0; i < size; i++) {
      const remaining = deck - i
      let card = value % remaining
      value = Math.floor(value / remaining)
      // Skip the cards already dealt, so the hand has no repeats.
      for (const taken of [...cards].sort((a, b) => a - b)) if (card >= taken) card++
      cards.push(card)
    }
    if (this.hands.size >= 10_000) this.hands.clear()
    this.hands.set(flow, cards)
    return cards
  }
}

/** 52 bits of FNV-1a over the flow's name (two 32-bit passes with different offsets). */
function flowHash (text: string): number {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x5bd1e995
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x01000193)
  }
  return (a >>> 0) * 0x100000 + ((b >>> 0) & 0xfffff)
}

/** The reference's seat arithmetic: nominal by shares (ceil), lendable and borrowing limits by percent (round). */
export function levelLimits (config: FlowConfig, serverLimit: number): Map<string, LevelLimits> {
  let shares = 0
  for (const l of config.levels.values()) shares += l.nominalConcurrencyShares
  const out = new Map<string, LevelLimits>()
  for (const l of config.levels.values()) {
    const nominal = shares === 0 ? 0 : Math.ceil(serverLimit * l.nominalConcurrencyShares / shares)
    const lendable = Math.round(nominal * l.lendablePercent / 100)
    const borrowing = l.borrowingLimitPercent === undefined ? serverLimit : Math.round(nominal * l.borrowingLimitPercent / 100)
    out.set(l.name, { nominal, lendable, guaranteed: nominal - lendable, upper: nominal + borrowing })
  }
  return out
}

export class Dispatcher {
  readonly levels = new Map<string, LevelState>()
  /** Seats lent into the pool by every limited level, and how many of them are in use. */
  private pool = 0
  private borrowed = 0

  constructor (private serverLimit: number, private readonly observer: DispatchObserver, private readonly now: () => number = () => performance.now()) {}

  configure (config: FlowConfig): void {
    const limits = levelLimits(config, this.serverLimit)
    let pool = 0
    for (const [name, entry] of config.levels) {
      const l = limits.get(name)!
      const state = this.levels.get(name)
      if (state === undefined) this.levels.set(name, new LevelState(entry, l))
      else {
        for (const w of state.reconfigure(entry, l)) {
          // The level no longer queues: rejected as a Reject level rejects (the old queue still lists it).
          this.drop(state, w, 'concurrency-limit')
        }
      }
      if (!entry.exempt) pool += l.lendable
    }
    // A level gone from the configuration keeps serving what it holds; it gets nothing new.
    for (const [name, state] of this.levels) {
      if (!config.levels.has(name) && state.executing === 0 && state.waiting === 0) this.levels.delete(name)
    }
    this.pool = pool
    this.recountBorrowed()
    this.observer.configured(this.levels, this.serverLimit)
    this.dispatchWaiting()
  }

  private recountBorrowed (): void {
    let borrowed = 0
    for (const s of this.levels.values()) if (!s.entry.exempt) borrowed += Math.max(0, s.inUseSeats - s.limits.guaranteed)
    this.borrowed = borrowed
  }

  /** The seats a request of this level asks, bounded by what the level could ever hold. */
  seatsFor (level: string, seats: number): number {
    const s = this.levels.get(level)
    return s === undefined ? seats : Math.max(1, Math.min(seats, s.limits.upper))
  }

  private fits (s: LevelState, seats: number): boolean {
    if (s.inUseSeats + seats > s.limits.upper) return false
    const extra = Math.max(0, s.inUseSeats + seats - s.limits.guaranteed) - Math.max(0, s.inUseSeats - s.limits.guaranteed)
    return this.borrowed + extra <= this.pool
  }

  /** Returns `seats` of `s` (and of `queue`) to the level. */
  private giveBack (s: LevelState, seats: number, queue: Queue | undefined): void {
    const was = Math.max(0, s.inUseSeats - s.limits.guaranteed)
    s.inUseSeats -= seats
    if (!s.entry.exempt) this.borrowed -= was - Math.max(0, s.inUseSeats - s.limits.guaranteed)
    if (queue !== undefined) queue.executingSeats -= seats
    this.observer.changed(s)
  }

  /**
   * `seats` are held while the request runs; `afterwards.seats` of them (at most `seats`, which
   * the caller makes the larger of the two, as the reference reserves a request's most) for
   * `afterwards.ms` after it is released.
   */
  private take (s: LevelState, schema: string, seats: number, queue: Queue | undefined, waitedMs: number, afterwards?: Afterwards, watch = false): Grant {
    // Exempt levels hold no seats of the limit: they are counted, never lent or borrowed.
    const lends = !s.entry.exempt
    const before = Math.max(0, s.inUseSeats - s.limits.guaranteed)
    s.inUseSeats += seats
    s.executing++
    if (lends) this.borrowed += Math.max(0, s.inUseSeats - s.limits.guaranteed) - before
    if (queue !== undefined) queue.executingSeats += seats
    this.observer.dispatched(s.entry.name, schema, seats, waitedMs)
    this.observer.changed(s)
    const started = this.now()
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        s.executing--
        this.observer.finished(s.entry.name, schema, seats, this.now() - started, watch)
        const kept = afterwards === undefined || afterwards.ms <= 0 ? 0 : Math.min(afterwards.seats, seats)
        this.giveBack(s, seats - kept, queue)
        if (kept > 0) {
          setTimeout(() => {
            this.giveBack(s, kept, queue)
            this.dispatchWaiting()
          }, afterwards!.ms).unref()
        }
        this.dispatchWaiting()
      }
    }
  }

  /**
   * Admits a request of `level` in `flow` (schema name and distinguisher) asking `seats`: a grant
   * at once, a rejection at once, or a promise of either after waiting at most `waitLimitMs`.
   */
  admit (level: string, schema: string, flow: string, seats: number, waitLimitMs: number, afterwards?: Afterwards, watch = false): Grant | Rejection | Waiting {
    const s = this.levels.get(level)
    if (s === undefined || s.entry.exempt) {
      // Exempt levels never wait; they are counted, not limited.
      const exempt = s ?? new LevelState({ name: level, uid: '', exempt: true, nominalConcurrencyShares: 0, lendablePercent: 0, borrowingLimitPercent: 0, queuing: undefined }, { nominal: 0, lendable: 0, guaranteed: Infinity, upper: Infinity })
      return this.take(exempt, schema, seats, undefined, 0, undefined, watch)
    }
    const queuing = s.entry.queuing
    if (queuing === undefined || s.queues.length === 0) {
      if (this.fits(s, seats)) return this.take(s, schema, seats, undefined, 0, afterwards, watch)
      this.observer.rejected(level, schema, 'concurrency-limit', 0)
      return { rejected: 'concurrency-limit' }
    }
    const hand = s.hand(flow)
    let queue = s.queues[hand[0]!]!
    for (const i of hand) {
      const q = s.queues[i]!
      if (q.queuedSeats + q.executingSeats < queue.queuedSeats + queue.executingSeats) queue = q
    }
    // Nothing waits in this level and the seats are free: no queue to go through.
    if (s.waiting === 0 && this.fits(s, seats)) return this.take(s, schema, seats, queue, 0, afterwards, watch)
    if (queue.waiters.length >= queuing.queueLengthLimit) {
      this.observer.rejected(level, schema, 'queue-full', 0)
      return { rejected: 'queue-full' }
    }
    let settle!: (result: Grant | Rejection) => void
    const outcome = new Promise<Grant | Rejection>((resolve) => { settle = resolve })
    const waiter: Waiter = { schema, seats, afterwards, watch, enqueuedAt: this.now(), queue, settle, timer: undefined }
    if (queue.waiters.length === 0 && queue.executingSeats === 0) queue.virtualTime = Math.max(queue.virtualTime, s.clock)
    queue.waiters.push(waiter)
    queue.queuedSeats += seats
    s.waiting++
    s.waitingSeats += seats
    this.observer.enqueued(level, schema, seats, queue.waiters.length)
    this.observer.changed(s)
    waiter.timer = setTimeout(() => { this.drop(s, waiter, 'time-out') }, Math.max(0, waitLimitMs))
    this.dispatchWaiting()
    return { outcome, cancel: () => { this.drop(s, waiter, 'cancelled') } }
  }

  /** Removes a waiter and rejects it. */
  private drop (s: LevelState, w: Waiter, reason: RejectReason): void {
    const q = w.queue
    const i = q.waiters.indexOf(w)
    if (i === -1) return
    q.waiters.splice(i, 1)
    q.queuedSeats -= w.seats
    s.waiting--
    s.waitingSeats -= w.seats
    if (w.timer !== undefined) clearTimeout(w.timer)
    const waited = this.now() - w.enqueuedAt
    this.observer.dequeued(s.entry.name, w.schema, w.seats)
    this.observer.changed(s)
    this.observer.rejected(s.entry.name, w.schema, reason, waited)
    w.settle({ rejected: reason })
  }

  /** Gives free seats to waiters: within a level, the queue furthest behind in seats served goes first. */
  private dispatchWaiting (): void {
    for (const s of this.levels.values()) {
      while (s.waiting > 0) {
        let next: Queue | undefined
        for (const q of s.queues) {
          if (q.waiters.length > 0 && (next === undefined || q.virtualTime < next.virtualTime)) next = q
        }
        if (next === undefined) break
        const w = next.waiters[0]!
        if (!this.fits(s, w.seats)) {
          this.observer.unaccommodated(s.entry.name, w.schema)
          break
        }
        next.waiters.shift()
        next.queuedSeats -= w.seats
        s.waiting--
        s.waitingSeats -= w.seats
        if (w.timer !== undefined) clearTimeout(w.timer)
        s.clock = next.virtualTime
        next.virtualTime += w.seats
        this.observer.dequeued(s.entry.name, w.schema, w.seats)
        w.settle(this.take(s, w.schema, w.seats, next, this.now() - w.enqueuedAt, w.afterwards, w.watch))
      }
    }
  }
}
