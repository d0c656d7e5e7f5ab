// Pages of a watch cache: its objects in key order from a page's first key, at the cache's
// newest revision or at an older one. The cache holds only the newest state, so an older
// revision R is read as the newest state with the keys changed since R put back as they were at
// R (PastState, built from the cache's window of events, whose MODIFIED and DELETED events
// carry the value they replaced). A page then costs its own items plus the changes since R,
// never the rest of the collection: the continue pages of a paged walk, and Exact lists, answer
// from memory while the window reaches back to their revision, and from the database after.
import type { CachedObject, CachePage, PageQuery } from './interface.js'
import { type SortedKeys, lowerBound, prefixEnd } from './sorted-keys.js'

/** What a page reads: the ordered keys and the objects of the newest state. */
export interface PageSource {
  readonly keys: SortedKeys
  readonly objects: ReadonlyMap<string, CachedObject>
}

/** One change of the window, as far as the state before it goes. */
export interface WindowChange {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'
  readonly key: string
  readonly revision: number
  /** The value it replaced (MODIFIED and DELETED). */
  readonly prev?: CachedObject
}

/**
 * The state at `revision` of every key changed after it (up to `upTo`): the value it had then,
 * or null where it was absent. The first change of a key after `revision` says it: an ADDED key
 * was absent, a MODIFIED or DELETED one held the value that change replaced.
 */
export class PastState {
  readonly states = new Map<string, CachedObject | null>()
  upTo: number
  lastUsed = Date.now()
  private sorted: string[] = []
  private unsorted = false

  constructor (readonly revision: number) { this.upTo = revision }

  /** Takes in a change after upTo; false when it lacks the value it replaced (the state at `revision` is then unknown). */
  add (c: WindowChange): boolean {
    if (!this.states.has(c.key)) {
      if (c.type !== 'ADDED' && c.prev === undefined) return false
      this.states.set(c.key, c.type === 'ADDED' ? null : c.prev!)
      this.sorted.push(c.key)
      this.unsorted = true
    }
    this.upTo = c.revision
    return true
  }

  /** The changed keys, in order. */
  keys (): string[] {
    if (this.unsorted) {
      this.sorted.sort()
      this.unsorted = false
    }
    return this.sorted
  }
}

/**
 * The page `q` asks for, from the newest state (`past` undefined) or at past.revision.
 * `candidates`: the only keys that can be accepted (from an index), when a label index narrowed them.
 */
export function readPage (src: PageSource, q: PageQuery, revision: number, past: PastState | undefined, candidates?: Iterable<string>): CachePage {
  const { prefix, after, limit, filter } = q
  const items: CachedObject[] = []
  let more = false
  if (past === undefined && candidates === undefined) {
    // The newest state, read straight off the key index: the common case, without a generator.
    src.keys.scan(after !== undefined && after > prefix ? after : prefix, (key) => {
      if (!key.startsWith(prefix)) return false
      if (key === after) return true
      const o = src.objects.get(key)!
      if (filter !== undefined && !filter(o)) return true
      if (limit !== undefined && items.length === limit) { more = true; return false }
      items.push(o)
      return true
    })
    return finish(src, q, revision, items, more, past)
  }
  const objects = candidates === undefined ? inOrder(src, prefix, after, past) : amongCandidates(src, prefix, after, past, candidates)
  for (const o of objects) {
    if (filter !== undefined && !filter(o)) continue
    if (limit !== undefined && items.length === limit) { more = true; break }
    items.push(o)
  }
  return finish(src, q, revision, items, more, past)
}

function finish (src: PageSource, q: PageQuery, revision: number, items: CachedObject[], more: boolean, past: PastState | undefined): CachePage {
  const page: CachePage = { items, revision, more }
  if (more && q.filter === undefined) page.remaining = countAfter(src, q.prefix, items[items.length - 1]!.key, past)
  return page
}

/** The objects under prefix after `after`, in key order, at the revision `past` stands for. */
function * inOrder (src: PageSource, prefix: string, after: string | undefined, past: PastState | undefined): Generator<CachedObject> {
  const start = after !== undefined && after > prefix ? after : prefix
  const current = src.keys.from(start)
  if (past === undefined) {
    for (const key of current) {
      if (!key.startsWith(prefix)) return
      if (key !== after) yield src.objects.get(key)!
    }
    return
  }
  const changed = past.keys()
  const states = past.states
  let j = lowerBound(changed, start)
  const nextCurrent = (): string | undefined => {
    for (;;) {
      const r = current.next()
      if (r.done === true || !r.value.startsWith(prefix)) return undefined
      if (r.value !== after && !states.has(r.value)) return r.value
    }
  }
  const nextChanged = (): string | undefined => {
    for (; j < changed.length; j++) {
      const key = changed[j]!
      if (!key.startsWith(prefix)) return undefined
      if (key !== after && states.get(key) !== null) return changed[j++]
    }
    return undefined
  }
  let c = nextCurrent()
  let p = nextChanged()
  while (c !== undefined || p !== undefined) {
    if (p === undefined || (c !== undefined && c < p)) {
      yield src.objects.get(c!)!
      c = nextCurrent()
    } else {
      yield states.get(p)!
      p = nextChanged()
    }
  }
}

/** Like inOrder, among the keys an index found (and the changed keys, whose past values it did not see). */
function * amongCandidates (src: PageSource, prefix: string, after: string | undefined, past: PastState | undefined, candidates: Iterable<string>): Generator<CachedObject> {
  const keys: string[] = []
  for (const key of candidates) {
    if (key.startsWith(prefix) && (after === undefined || key > after) && past?.states.has(key) !== true) keys.push(key)
  }
  if (past !== undefined) {
    for (const [key, state] of past.states) {
      if (state !== null && key.startsWith(prefix) && (after === undefined || key > after)) keys.push(key)
    }
  }
  keys.sort()
  for (const key of keys) {
    const state = past?.states.get(key)
    yield state ?? src.objects.get(key)!
  }
}

/** How many objects under prefix follow `last`, at the revision `past` stands for: from ranks, not by counting. */
function countAfter (src: PageSource, prefix: string, last: string, past: PastState | undefined): number {
  const successor = `${last}\u0000`
  let n = src.keys.rank(prefixEnd(prefix)) - src.keys.rank(successor)
  if (past !== undefined) {
    const changed = past.keys()
    for (let j = lowerBound(changed, successor); j < changed.length && changed[j]!.startsWith(prefix); j++) {
      const key = changed[j]!
      if (src.objects.has(key)) n--
      if (past.states.get(key) !== null) n++
    }
  }
  return n
}

/** How many objects lie under prefix in the newest state. */
export const countUnder = (keys: SortedKeys, prefix: string): number => keys.rank(prefixEnd(prefix)) - keys.rank(prefix)
