// The keys of a watch cache in code-unit order, for prefix-range lists and pages. A list of
// sorted chunks (at most CHUNK_MAX keys each): a write inserts or removes in one chunk, a memmove
// of at most a few thousand pointers whatever the collection's size, and a page starts at its
// key by two binary searches (the chunk, then the key in it) and reads on in order, so a list
// costs what it returns, not the collection. Ranks (how many keys lie before a key) add the
// sizes of the chunks before it: a hundred additions at 100,000 keys.
import { nextTurn, sliceClock } from './slices.js'

const CHUNK_MAX = 2048
const CHUNK_MIN = 256
/** Keys sorted in one slice before the merges (a few milliseconds of sorting). */
const SORT_RUN = 4096

export class SortedKeys {
  /** Non-empty chunks in order, each sorted; `firsts[i]` is `chunks[i][0]`. */
  private chunks: string[][] = []
  private firsts: string[] = []
  private count = 0
  /** The keys a reset gave, not sorted yet: sorted by the first use that needs the order. */
  private unsorted?: string[]

  /**
   * Takes `keys` (in any order) as the whole set. They are sorted at first use, not here: a
   * watch cache's fill resets its keys, and at 100,000 keys the sort (a quarter of a second of
   * CPU on a busy machine) would otherwise hold the server's readiness back.
   */
  reset (keys: string[]): void {
    this.unsorted = keys
    this.chunks = []
    this.firsts = []
    this.count = keys.length
  }

  /** Sorts and chunks what the last reset gave, once. */
  private settle (): void {
    const keys = this.unsorted
    if (keys === undefined) return
    // The database orders bytes, JS orders UTF-16 code units; the searches use the latter.
    this.install(keys.sort())
  }

  private install (sorted: string[]): void {
    this.unsorted = undefined
    for (let i = 0; i < sorted.length; i += CHUNK_MAX / 2) this.chunks.push(sorted.slice(i, i + CHUNK_MAX / 2))
    this.firsts = this.chunks.map(c => c[0]!)
  }

  /**
   * Sorts what the last reset gave a slice at a time (runs sorted, then merged pairwise), so that
   * the sort of a large collection never holds the event loop; the first use before it is done
   * sorts the rest at once, and a reset meanwhile makes it give up.
   */
  async settleInSlices (): Promise<void> {
    const keys = this.unsorted
    if (keys === undefined) return
    const clock = sliceClock()
    /** Lets the event loop turn when the slice is spent; false once the keys are no longer the ones being sorted. */
    const pause = async (): Promise<boolean> => {
      if (clock.spent()) {
        await nextTurn()
        clock.restart()
      }
      return this.unsorted === keys
    }
    let runs: string[][] = []
    for (let i = 0; i < keys.length; i += SORT_RUN) {
      runs.push(keys.slice(i, i + SORT_RUN).sort())
      if (!await pause()) return
    }
    while (runs.length > 1) {
      const merged: string[][] = []
      for (let i = 0; i < runs.length; i += 2) {
        merged.push(i + 1 < runs.length ? mergeSorted(runs[i]!, runs[i + 1]!) : runs[i]!)
        if (!await pause()) return
      }
      runs = merged
    }
    if (this.unsorted !== keys) return
    this.install(runs[0] ?? [])
  }

  get size (): number { return this.count }

  /** Adds a key not present. */
  add (key: string): void {
    this.settle()
    if (this.chunks.length === 0) {
      this.chunks.push([key])
      this.firsts.push(key)
      this.count++
      return
    }
    const c = Math.max(0, this.chunkOf(key))
    const chunk = this.chunks[c]!
    const at = lowerBound(chunk, key)
    if (chunk[at] === key) return
    // Appending at the end (names that grow) is the common case: push, no memmove.
    if (at === chunk.length) chunk.push(key)
    else chunk.splice(at, 0, key)
    if (at === 0) this.firsts[c] = key
    this.count++
    if (chunk.length > CHUNK_MAX) {
      const upper = chunk.splice(CHUNK_MAX / 2)
      this.chunks.splice(c + 1, 0, upper)
      this.firsts.splice(c + 1, 0, upper[0]!)
    }
  }

  /** Removes a key if present. */
  remove (key: string): void {
    this.settle()
    const c = this.chunkOf(key)
    if (c < 0) return
    const chunk = this.chunks[c]!
    const at = lowerBound(chunk, key)
    if (chunk[at] !== key) return
    chunk.splice(at, 1)
    this.count--
    if (chunk.length === 0) {
      this.chunks.splice(c, 1)
      this.firsts.splice(c, 1)
      return
    }
    if (at === 0) this.firsts[c] = chunk[0]!
    // A small chunk joins its neighbour, so a collection that shrank keeps few chunks.
    if (chunk.length < CHUNK_MIN && c + 1 < this.chunks.length && chunk.length + this.chunks[c + 1]!.length <= CHUNK_MAX) {
      this.chunks[c] = chunk.concat(this.chunks[c + 1]!)
      this.chunks.splice(c + 1, 1)
      this.firsts.splice(c + 1, 1)
    }
  }

  /** The keys starting with `prefix`, in order. */
  range (prefix: string): string[] {
    this.settle()
    const out: string[] = []
    for (const key of this.from(prefix)) {
      if (!key.startsWith(prefix)) break
      out.push(key)
    }
    return out
  }

  /** The keys at or after `start`, in order (the caller stops when it leaves its range). */
  * from (start: string): Generator<string> {
    this.settle()
    let c = Math.max(0, this.chunkOf(start))
    if (c >= this.chunks.length) return
    let i = lowerBound(this.chunks[c]!, start)
    for (; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c]!
      for (; i < chunk.length; i++) yield chunk[i]!
    }
  }

  /** Calls `visit` with the keys at or after `start`, in order, until it returns false. */
  scan (start: string, visit: (key: string) => boolean): void {
    this.settle()
    let c = Math.max(0, this.chunkOf(start))
    if (c >= this.chunks.length) return
    let i = lowerBound(this.chunks[c]!, start)
    for (; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c]!
      for (; i < chunk.length; i++) if (!visit(chunk[i]!)) return
    }
  }

  /** How many keys sort before `key` (the key itself not counted). */
  rank (key: string): number {
    this.settle()
    const c = this.chunkOf(key)
    if (c < 0) return 0
    let n = 0
    for (let i = 0; i < c; i++) n += this.chunks[i]!.length
    return n + lowerBound(this.chunks[c]!, key)
  }

  /** The index of the last chunk whose first key is <= key; -1 when key sorts before every key. */
  private chunkOf (key: string): number {
    let lo = 0
    let hi = this.firsts.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.firsts[mid]! <= key) lo = mid + 1
      else hi = mid
    }
    return lo - 1
  }
}

/** Two sorted arrays as one, in code-unit order. */
function mergeSorted (a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length)
  let i = 0
  let j = 0
  let k = 0
  while (i < a.length && j < b.length) out[k++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!
  while (i < a.length) out[k++] = a[i++]!
  while (j < b.length) out[k++] = b[j++]!
  return out
}

export function lowerBound (keys: readonly string[], key: string): number {
  let lo = 0
  let hi = keys.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (keys[mid]! < key) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The smallest string above every string starting with `prefix` (its last code unit incremented). */
export function prefixEnd (prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)
}
