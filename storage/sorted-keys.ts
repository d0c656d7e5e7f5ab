// The keys of a watch cache in code-unit order, for prefix-range lists. Writes only append or
// mark: keeping one array sorted on every create costs a memmove of the whole array, which at
// tens of thousands of keys cost more than the rest of the cache's work on that event. The
// order is restored, in one merge, by the next list that needs it.

export class SortedKeys {
  private sorted: string[] = []
  /** Keys added since the last merge that did not sort after every key already there. */
  private added: string[] = []
  /** Keys removed since the last merge; they stay in `sorted` until then and are skipped. */
  private removed = 0

  /** `live(key)`: whether the key is still present; ranges skip the others. */
  constructor (private readonly live: (key: string) => boolean) {}

  reset (keys: string[]): void {
    // The database orders bytes, JS orders UTF-16 code units; range() searches in the latter.
    this.sorted = keys.sort()
    this.added = []
    this.removed = 0
  }

  add (key: string): void {
    const last = this.sorted.length === 0 ? undefined : this.sorted[this.sorted.length - 1]
    if (this.added.length === 0 && (last === undefined || key > last)) this.sorted.push(key)
    else this.added.push(key)
  }

  remove (): void {
    this.removed++
  }

  /** The live keys starting with `prefix`, in order. */
  range (prefix: string): string[] {
    if (this.added.length > 0 || (this.removed > 1024 && this.removed * 4 > this.sorted.length)) this.merge()
    const out: string[] = []
    const keys = this.sorted
    for (let i = lowerBound(keys, prefix); i < keys.length && keys[i].startsWith(prefix); i++) {
      if (this.live(keys[i])) out.push(keys[i])
    }
    return out
  }

  private merge (): void {
    const a = this.sorted
    const b = this.added.sort()
    const out: string[] = []
    let i = 0
    let j = 0
    while (i < a.length || j < b.length) {
      const key = j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++]
      // A key removed and added again since the last merge is in both.
      if (out.length > 0 && out[out.length - 1] === key) continue
      if (this.live(key)) out.push(key)
    }
    this.sorted = out
    this.added = []
    this.removed = 0
  }
}

function lowerBound (keys: string[], key: string): number {
  let lo = 0
  let hi = keys.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (keys[mid] < key) lo = mid + 1
    else hi = mid
  }
  return lo
}
