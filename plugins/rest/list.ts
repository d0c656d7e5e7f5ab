// Lists: from the watch cache (one synchronous snapshot) or from the log at an exact revision
// (continue pages, Exact matches), filtered by selectors above storage, paged by key.
import { expired, tooLargeResourceVersion } from '../../resources/status.js'
import type { AnyObject } from '../../resources/define.js'
import { StorageError, type CachedObject, type ObjectAttrs, type Storage, type StoredObject, type WatchCache } from '../../storage/interface.js'
import { matchesFields, matchesLabels, type FieldSelector, type LabelSelector } from '../../machinery/selectors.js'
import { encodeContinue } from './continue.js'

export interface ListResult {
  items: Array<{ key: string, json: string }>
  revision: number
  continue?: string
  remaining?: number
}

export interface Selection { labels: LabelSelector, fields: FieldSelector }

const selects = (sel: Selection, a: ObjectAttrs): boolean => matchesLabels(sel.labels, a.labels) && matchesFields(sel.fields, a.fields)

export function listFromCache (cache: WatchCache, prefix: string, limit: number | undefined, sel: Selection, filtered: boolean): ListResult {
  // The cache's objects and revision are read in one synchronous step: one snapshot.
  const revision = cache.revision
  const all = cache.list(prefix)
  const items: CachedObject[] = []
  let i = 0
  for (; i < all.length; i++) {
    const o = all[i]!
    if (filtered && !selects(sel, o.attrs)) continue
    if (limit !== undefined && items.length === limit) break
    items.push(o)
  }
  const result: ListResult = { items, revision }
  if (limit !== undefined && i < all.length) {
    const hasMore = !filtered || all.slice(i).some(o => selects(sel, o.attrs))
    if (hasMore) {
      result.continue = encodeContinue(revision, items[items.length - 1]!.key.slice(prefix.length))
      if (!filtered) result.remaining = all.length - i
    }
  }
  return result
}

export interface StorageListing {
  storage: Storage
  attrs: (obj: AnyObject) => ObjectAttrs
  /** Renders storage errors other than Compacted and TooLarge. */
  translateError: (err: unknown) => Error
}

export async function listFromStorage (from: StorageListing, prefix: string, revision: number, limit: number | undefined,
  after: string | undefined, sel: Selection, filtered: boolean, fromContinue: boolean): Promise<ListResult> {
  const items: StoredObject[] = []
  let cursor = after
  let remaining: number | undefined
  let more = false
  for (;;) {
    const want = limit === undefined ? undefined : (filtered ? Math.max(limit - items.length, 500) : limit - items.length)
    let page
    try {
      page = await from.storage.list({ prefix, revision, limit: want, continueAfterKey: cursor })
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
      if (!filtered) remaining = page.remaining
      break
    }
    cursor = page.continueAfterKey
  }
  const result: ListResult = { items, revision }
  if (more && items.length > 0) {
    result.continue = encodeContinue(revision, items[items.length - 1]!.key.slice(prefix.length))
    if (!filtered && remaining !== undefined && remaining > 0) result.remaining = remaining
  }
  return result
}
