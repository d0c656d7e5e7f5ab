// The newest state's first pages, kept while nothing under their prefix changes: a namespace
// (or a selection) listed again and again (kubectl in a loop, a dashboard, informers relisting)
// is then answered without scanning its keys or matching its objects, and its items are one
// array every such list shares, so an encoder may keep that array's bytes beside it
// (plugins/rest/encode.ts) for as long as the page stays. Shared by every cache of a process
// under one budget of the items' characters.
import type { CachedObject } from './interface.js'

export interface MemoPage {
  /** Frozen: every list of this state reads the same array. */
  readonly items: readonly CachedObject[]
  readonly more: boolean
  readonly remaining?: number
}

/** The items' characters kept at most, over all pages; a page of more than a quarter of it is not kept. */
export const PAGE_MEMO_CHARS = 16 * 1024 * 1024
/** Pages kept at most (empty ones cost no characters, but each costs its entry). */
export const PAGE_MEMO_PAGES = 512
/** What a page is kept under beside its prefix (its limit, its selectors): longer ones are not kept. */
const MAX_VARIANT = 1024

export class PageMemo {
  /** prefix -> variant (the page's limit and selectors) -> page; the outer order is least recently used first. */
  private readonly pages = new Map<string, Map<string, MemoPage & { chars: number }>>()
  private chars = 0
  private count = 0

  constructor (private readonly budget = PAGE_MEMO_CHARS, private readonly maxPages = PAGE_MEMO_PAGES) {}

  /** How many prefixes have pages kept. */
  get size (): number { return this.pages.size }

  get (prefix: string, variant: string): MemoPage | undefined {
    const byVariant = this.pages.get(prefix)
    const page = byVariant?.get(variant)
    if (page !== undefined) {
      this.pages.delete(prefix)
      this.pages.set(prefix, byVariant!)
    }
    return page
  }

  /** Keeps `page` (its items frozen) if it fits the budget; returns what lists now share. */
  keep (prefix: string, variant: string, items: readonly CachedObject[], more: boolean, remaining: number | undefined): MemoPage | undefined {
    if (variant.length > MAX_VARIANT) return undefined
    // A page too large to keep is known as soon as its items pass the limit, not at their end.
    let chars = 0
    for (const item of items) if ((chars += item.json.length) > this.budget / 4) return undefined
    const page = { items: Object.freeze(items), more, remaining, chars }
    const byVariant = this.pages.get(prefix) ?? new Map<string, MemoPage & { chars: number }>()
    this.pages.delete(prefix)
    this.pages.set(prefix, byVariant)
    const replaced = byVariant.get(variant)
    this.chars += chars - (replaced?.chars ?? 0)
    if (replaced === undefined) this.count++
    byVariant.set(variant, page)
    for (const [oldest, pages] of this.pages) {
      if ((this.chars <= this.budget && this.count <= this.maxPages) || oldest === prefix) break
      this.drop(oldest, pages)
    }
    return page
  }

  /** A key under `cachePrefix` changed: the pages of every prefix above it are stale. */
  changed (cachePrefix: string, key: string): void {
    if (this.pages.size === 0) return
    for (let i = cachePrefix.length - 1; i !== -1; i = key.indexOf('/', i + 1)) {
      const prefix = key.slice(0, i + 1)
      const pages = this.pages.get(prefix)
      if (pages !== undefined) this.drop(prefix, pages)
    }
  }

  /** Every page under `cachePrefix` (a refill, a cache removed). */
  dropUnder (cachePrefix: string): void {
    for (const [prefix, pages] of this.pages) if (prefix.startsWith(cachePrefix)) this.drop(prefix, pages)
  }

  private drop (prefix: string, pages: Map<string, { chars: number }>): void {
    for (const page of pages.values()) this.chars -= page.chars
    this.count -= pages.size
    this.pages.delete(prefix)
  }
}
