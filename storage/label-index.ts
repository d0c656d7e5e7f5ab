// An index of a watch cache's objects by label key and value, for lists whose label selector
// selects few: the page then reads the keys the index names, not the collection. Built for the
// first such list (it needs every object's labels, which the cache otherwise never parses), a
// slice at a time so that other requests are served meanwhile, and kept current lazily: a write
// only marks its key, and the next look-up re-reads the marked keys.
import type { CachedObject, LabelTerm } from './interface.js'
import { nextTurn, sliceClock } from './slices.js'

export class LabelIndex {
  /** label key -> label value -> object keys. */
  private readonly byLabel = new Map<string, Map<string, Set<string>>>()
  /** The labels each object key is indexed under (to unindex it on change). */
  private readonly indexed = new Map<string, Record<string, string>>()
  private readonly changed = new Set<string>()
  private building?: Promise<void>
  /** Whether every object has been indexed (candidates may be asked for). */
  built = false

  /** `labelsOf` reads an object's labels (without keeping its parsed attributes on it: the index holds what it needs). */
  constructor (private readonly objects: ReadonlyMap<string, CachedObject>,
    private readonly labelsOf: (o: CachedObject) => Record<string, string>) {}

  /** Indexes every object, once; resolves when `built`. */
  build (): Promise<void> {
    return (this.building ??= this.indexAll())
  }

  private async indexAll (): Promise<void> {
    const clock = sliceClock()
    // A Map's iterator survives writes between slices: a key deleted before it is reached is
    // skipped, one added is reached; a key written after it was indexed is marked and caught up.
    for (const [key, o] of this.objects) {
      if (!this.indexed.has(key)) this.index(key, this.labelsOf(o))
      if (clock.spent()) {
        await nextTurn()
        clock.restart()
      }
    }
    this.built = true
  }

  /** The object at `key` was written or deleted. */
  touch (key: string): void { this.changed.add(key) }

  /**
   * The keys of every object that may meet all the terms, read from the term that selects
   * fewest, when that term selects at most `max` objects; undefined when none does (a scan is
   * then as cheap).
   */
  candidates (terms: readonly LabelTerm[], max: number): Iterable<string> | undefined {
    this.catchUp()
    let best: Array<Set<string>> | undefined
    let bestSize = Infinity
    for (const term of terms) {
      const values = this.byLabel.get(term.key)
      const sets: Array<Set<string>> = []
      let size = 0
      if (values !== undefined) {
        if (term.values === undefined) {
          for (const set of values.values()) { sets.push(set); size += set.size }
        } else {
          for (const v of new Set(term.values)) {
            const set = values.get(v)
            if (set !== undefined) { sets.push(set); size += set.size }
          }
        }
      }
      if (size < bestSize) { best = sets; bestSize = size }
    }
    if (best === undefined || bestSize > max) return undefined
    return union(best)
  }

  private catchUp (): void {
    for (const key of this.changed) {
      const was = this.indexed.get(key)
      if (was !== undefined) this.unindex(key, was)
      const o = this.objects.get(key)
      if (o !== undefined) this.index(key, this.labelsOf(o))
    }
    this.changed.clear()
  }

  private index (key: string, labels: Record<string, string>): void {
    this.indexed.set(key, labels)
    for (const name in labels) {
      if (!Object.hasOwn(labels, name)) continue
      let values = this.byLabel.get(name)
      if (values === undefined) this.byLabel.set(name, values = new Map())
      const value = labels[name]!
      let set = values.get(value)
      if (set === undefined) values.set(value, set = new Set())
      set.add(key)
    }
  }

  private unindex (key: string, labels: Record<string, string>): void {
    this.indexed.delete(key)
    for (const name in labels) {
      if (!Object.hasOwn(labels, name)) continue
      const values = this.byLabel.get(name)
      const set = values?.get(labels[name]!)
      if (set === undefined) continue
      set.delete(key)
      if (set.size === 0) {
        values!.delete(labels[name]!)
        if (values!.size === 0) this.byLabel.delete(name)
      }
    }
  }
}

function * union (sets: Array<Set<string>>): Generator<string> {
  // A key holds one value per label key, so the sets of one term never share a key.
  for (const set of sets) yield * set
}
