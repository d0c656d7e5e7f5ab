// Lists: a page of the watch cache (at its newest revision, or at a past one its window still
// reaches: continue pages, Exact lists), else from the database at the exact revision; filtered
// by selectors above storage, paged by key.
import { expired, tooLargeResourceVersion } from '../../resources/status.js'
import type { AnyObject } from '../../resources/define.js'
import { StorageError, type CachedObject, type LabelTerm, type ObjectAttrs, type Storage, type StoredObject, type WatchCache } from '../../storage/interface.js'
import { matchesFields, matchesLabels, type FieldSelector, type LabelSelector } from '../../machinery/selectors.js'
import { encodeContinue } from './continue.js'

export interface ListResult {
  items: ReadonlyArray<{ key: string, json: string }>
  revision: number
  continue?: string
  remaining?: number
  /** The items array is shared while the listed state holds (CachePage.shared). */
  shared?: true
}

export interface Selection { labels: LabelSelector, fields: FieldSelector }

const selects = (sel: Selection, a: ObjectAttrs): boolean => matchesLabels(sel.labels, a.labels) && matchesFields(sel.fields, a.fields)

/** What an index of label keys can narrow by: the requirements that need the label present. */
function labelTerms (sel: LabelSelector): LabelTerm[] {
  const terms: LabelTerm[] = []
  for (const r of sel) {
    if (r.op === '=' || r.op === 'in') terms.push({ key: r.key, values: r.values })
    else if (r.op === 'exists' || r.op === 'gt' || r.op === 'lt') terms.push({ key: r.key })
  }
  return terms
}

/** Whether a list selects by labels the cache's label index can narrow by. */
export const usesLabelIndex = (sel: Selection, filtered: boolean): boolean => filtered && labelTerms(sel.labels).length > 0

/**
 * A page from the watch cache, at its newest revision (`revision` undefined) or at a past one;
 * undefined when the cache cannot answer at that revision.
 */
export function listFromCache (cache: WatchCache, prefix: string, limit: number | undefined, sel: Selection, filtered: boolean,
  revision?: number, after?: string): ListResult | undefined {
  const page = cache.page({
    prefix,
    after,
    limit,
    revision,
    filter: filtered ? (o: CachedObject) => selects(sel, o.attrs) : undefined,
    labels: filtered ? labelTerms(sel.labels) : undefined,
    selection: filtered ? JSON.stringify([sel.labels, sel.fields]) : undefined
  })
  if (page === undefined) return undefined
  const result: ListResult = { items: page.items, revision: page.revision }
  if (page.shared === true) result.shared = true
  if (page.more) {
    result.continue = encodeContinue(page.revision, page.items[page.items.length - 1]!.key.slice(prefix.length))
    if (!filtered) result.remaining = page.remaining
  }
  return result
}

export interface StorageListing {
  storage: Storage
  attrs: (obj: AnyObject) => ObjectAttrs
  /** Renders storage errors other than Compacted and TooLarge. */
  translateError: (err: unknown) => Error
  /**
   * How many items follow a key at a revision (`prefix\0revision\0key`), learnt from the page
   * before: a walk's pages then count the rest once, not at every page.
   */
  remainingAfter: Map<string, number>
}

const REMAINING_KEPT = 1024
const remainingKey = (prefix: string, revision: number, after: string | undefined): string => `${prefix}\0${revision}\0${after ?? ''}`

export async function listFromStorage (from: StorageListing, prefix: string, revision: number, limit: number | undefined,
  after: string | undefined, sel: Selection, filtered: boolean, fromContinue: boolean): Promise<ListResult> {
  const items: StoredObject[] = []
  let cursor = after
  let remaining: number | undefined
  let more = false
  // An unfiltered page's count of what follows: from the page before it, else counted once.
  const known = filtered || limit === undefined ? undefined : from.remainingAfter.get(remainingKey(prefix, revision, after))
  if (known !== undefined) from.remainingAfter.delete(remainingKey(prefix, revision, after))
  for (;;) {
    const want = limit === undefined ? undefined : (filtered ? Math.max(limit - items.length, 500) : limit - items.length)
    let page
    try {
      page = await from.storage.list({ prefix, revision, limit: want, continueAfterKey: cursor, count: !filtered && limit !== undefined && known === undefined })
    } catch (err) {
      if (err instanceof StorageError && err.code === 'Compacted') {
        throw fromContinue
          ? expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.')
          : expired(`too old resource version: ${revision} (${err.revision ?? 0})`)
      }
      if (err instanceof StorageError && err.code === 'TooLarge') throw tooLargeResourceVersion(revision, await from.storage.currentRevision())
      throw from.translateError(err)
    }
    let stoppedAt = -1
    for (let i = 0; i < page.items.length; i++) {
      const item = page.items[i]!
      if (filtered && !selects(sel, from.attrs(JSON.parse(item.json)))) continue
      if (limit !== undefined && items.length === limit) { stoppedAt = i; break }
      items.push(item)
    }
    if (stoppedAt >= 0) { more = true; break }
    if (page.continueAfterKey === undefined) break
    if (limit !== undefined && items.length === limit) {
      more = true
      if (!filtered) remaining = known === undefined ? page.remaining : known - items.length
      break
    }
    cursor = page.continueAfterKey
  }
  const result: ListResult = { items, revision }
  if (more && items.length > 0) {
    const last = items[items.length - 1]!.key
    result.continue = encodeContinue(revision, last.slice(prefix.length))
    if (!filtered && remaining !== undefined && remaining > 0) {
      result.remaining = remaining
      from.remainingAfter.set(remainingKey(prefix, revision, last), remaining)
      if (from.remainingAfter.size > REMAINING_KEPT) from.remainingAfter.delete(from.remainingAfter.keys().next().value!)
    }
  }
  return result
}
