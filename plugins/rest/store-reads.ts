// The generic store's reads: gets, lists and the freshness rules writes and admission rely on
// (a read as fresh as every write this process has acknowledged).
import { badRequest, notFound, tooLargeResourceVersion } from '../../resources/status.js'
import { keyPrefix, storageKey, type AnyObject, type Resource } from '../../resources/define.js'
import { StorageError, type CachedObject, type ObjectAttrs, type Storage, type StoredObject, type WatchCache, type WriteOp } from '../../storage/interface.js'
import { listFromCache, listFromStorage, usesLabelIndex, type ListResult, type Selection, type StorageListing } from './list.js'
import { storageErrorToStatus } from './storage-errors.js'
import { parseFieldSelector, parseLabelSelector, type FieldSelector, type LabelSelector } from '../../machinery/selectors.js'
import { decodeContinue } from './continue.js'
import type { ListOptions } from './options.js'
import type { ResourceStores } from '../../storage/resource-store.js'

const RV_WAIT_MS = 3000
/** A consistent read waits this long for the watch cache before it reads the database instead. */
const CACHE_READ_WAIT_MS = 1000

export class StoreReads {
  readonly gr: { group: string, resource: string }
  readonly prefix: string
  private readonly supportedFields: ReadonlySet<string>
  /** The newest revision this process has written to this kind (readRecent waits for it). */
  protected lastWritten = 0
  private readonly listing: StorageListing

  constructor (
    readonly resource: Resource,
    protected readonly storage: Storage,
    readonly cache: WatchCache,
    protected readonly registry: ResourceStores
  ) {
    this.gr = { group: resource.group, resource: resource.plural }
    this.prefix = keyPrefix(resource)
    this.supportedFields = new Set(['metadata.name', 'metadata.namespace', ...Object.keys(resource.fieldSelectors ?? {})])
    this.listing = { storage, attrs: this.attrs, translateError: (err) => this.translateError(err, ''), remainingAfter: new Map() }
  }

  key (namespace: string, name: string): string { return storageKey(this.resource, this.resource.namespaced ? namespace : '', name) }

  /** The prefix of a list: one namespace, or all of them. */
  listPrefix (namespace: string): string { return this.resource.namespaced && namespace !== '' ? `${this.prefix}${namespace}/` : this.prefix }

  /** Selector attributes of an object, as the watch cache keeps them. */
  attrs = (obj: AnyObject): ObjectAttrs => {
    const fields: Record<string, string> = {
      'metadata.name': obj.metadata?.name ?? '',
      'metadata.namespace': obj.metadata?.namespace ?? ''
    }
    for (const [field, get] of Object.entries(this.resource.fieldSelectors ?? {})) fields[field] = get(obj) ?? ''
    return { labels: obj.metadata?.labels ?? {}, fields }
  }

  selectors (o: { labelSelector?: string, fieldSelector?: string }): { labels: LabelSelector, fields: FieldSelector } {
    return { labels: parseLabelSelector(o.labelSelector), fields: parseFieldSelector(o.fieldSelector, this.supportedFields) }
  }

  // ---- reads -------------------------------------------------------------------------------

  cachedObjects (namespace = ''): AnyObject[] {
    return this.cache.list(this.listPrefix(namespace)).map(o => JSON.parse(o.json) as AnyObject)
  }

  cachedObject (namespace: string, name: string): AnyObject | undefined {
    const found = this.cache.get(this.key(namespace, name))
    return found === undefined ? undefined : JSON.parse(found.json) as AnyObject
  }

  async get (namespace: string, name: string, resourceVersion?: string): Promise<StoredObject> {
    const key = this.key(namespace, name)
    let found: StoredObject | CachedObject | undefined
    if (resourceVersion === undefined || resourceVersion === '') {
      found = await this.readCurrent(key, name)
    } else {
      const rv = Number(resourceVersion)
      if (!Number.isSafeInteger(rv) || rv < 0) throw badRequest(`invalid resource version "${resourceVersion}"`)
      if (rv > 0) await this.waitFor(rv)
      found = this.cache.get(key)
    }
    if (found === undefined) throw notFound(this.gr, name)
    return found
  }

  /**
   * The newest state of a key, as a database read would give it: from the watch cache once it
   * has applied the database's current revision (one revision query, shared by concurrent
   * callers), or at least `atLeast` when the caller knows that revision already. From the
   * database itself when the cache lags too long.
   */
  async readCurrent (key: string, name: string, atLeast?: number): Promise<StoredObject | CachedObject | undefined> {
    try {
      const rev = atLeast ?? await this.storage.currentRevision()
      if (this.cache.revision < rev) await this.cache.waitForRevision(rev, CACHE_READ_WAIT_MS)
      return this.cache.get(key)
    } catch (err) {
      if (!(err instanceof StorageError && err.code === 'TooLarge')) throw this.translateError(err, name)
    }
    return await this.translate(() => this.storage.get(key), name)
  }

  /**
   * A key as fresh as every write this process has acknowledged to this kind, from the watch
   * cache, without a revision query; a key the cache lacks is read consistently. The read an
   * update starts from and admission's lookups (the upstream cacher and listers): a stale
   * answer there costs a precondition conflict and a retry, never a lost write.
   */
  async readRecent (key: string, name: string): Promise<StoredObject | CachedObject | undefined> {
    if (this.cache.revision < this.lastWritten) {
      try {
        await this.cache.waitForRevision(this.lastWritten, CACHE_READ_WAIT_MS)
      } catch (err) {
        if (!(err instanceof StorageError && err.code === 'TooLarge')) throw this.translateError(err, name)
        return await this.readCurrent(key, name)
      }
    }
    return this.cache.get(key) ?? await this.readCurrent(key, name)
  }

  /**
   * Waits until the watch cache holds every write this process has made to the kind (at once
   * when it does): lists as fresh as readRecent's reads, without a revision query.
   */
  async caughtUp (): Promise<void> {
    if (this.cache.revision >= this.lastWritten) return
    try {
      await this.cache.waitForRevision(this.lastWritten, CACHE_READ_WAIT_MS)
    } catch (err) {
      if (!(err instanceof StorageError && err.code === 'TooLarge')) throw this.translateError(err, '')
      await this.consistent()
    }
  }

  /** Every write goes through here, so that readRecent knows what this process has written. */
  protected async write (op: WriteOp): Promise<StoredObject> {
    const stored = await this.storage.write(op)
    if (stored.revision > this.lastWritten) this.lastWritten = stored.revision
    return stored
  }

  private async waitFor (rv: number): Promise<void> {
    if (this.cache.revision >= rv) return
    try {
      await this.cache.waitForRevision(rv, RV_WAIT_MS)
    } catch (err) {
      if (err instanceof StorageError && err.code === 'TooLarge') throw tooLargeResourceVersion(rv, this.cache.revision)
      throw err
    }
  }

  /** Revisions below this one can no longer be watched from. */
  async compactedRevision (): Promise<number> {
    return await this.translate(() => this.storage.compactedRevision(), '')
  }

  /** Waits until the cache is at least at `rv`, or (undefined) at the database's newest revision. */
  async freshen (rv: number | undefined): Promise<void> {
    if (rv === undefined) await this.consistent()
    else if (rv > 0) await this.waitFor(rv)
  }

  /** A consistent read: the cache once it has caught up with the database's newest revision. */
  private async consistent (): Promise<void> {
    const current = await this.translate(() => this.storage.currentRevision(), '')
    await this.waitFor(current)
  }

  async list (namespace: string, o: ListOptions): Promise<ListResult> {
    const sel = this.selectors(o)
    const prefix = this.listPrefix(namespace)
    const filtered = sel.labels.length > 0 || sel.fields.length > 0
    if (o.continue !== undefined) {
      if (o.resourceVersion !== undefined && o.resourceVersion !== '0') {
        throw badRequest('specifying resource version is not allowed when using continue')
      }
      const token = decodeContinue(o.continue)
      return await this.listAt(prefix, token.rv, o.limit, `${prefix}${token.start}`, sel, filtered, true)
    }
    const rv = o.resourceVersion === undefined ? undefined : Number(o.resourceVersion)
    const exact = rv !== undefined && rv > 0 && (o.resourceVersionMatch === 'Exact' || (o.resourceVersionMatch === undefined && o.limit !== undefined))
    if (exact) return await this.listAt(prefix, rv, o.limit, undefined, sel, filtered, false)
    // ConsistentListFromCache off: a consistent list reads the database at its newest revision.
    if (rv === undefined && !this.registry.features.enabled('ConsistentListFromCache')) {
      const current = await this.translate(() => this.storage.currentRevision(), '')
      return await listFromStorage(this.listing, prefix, current, o.limit, undefined, sel, filtered, false)
    }
    await this.freshen(rv)
    if (usesLabelIndex(sel, filtered)) await this.cache.indexLabels()
    return listFromCache(this.cache, prefix, o.limit, sel, filtered)!
  }

  /**
   * A list at an exact revision (a continue page, an Exact list): from the watch cache while its
   * window reaches back to the revision, else from the database's log.
   */
  private async listAt (prefix: string, revision: number, limit: number | undefined, after: string | undefined,
    sel: Selection, filtered: boolean, fromContinue: boolean): Promise<ListResult> {
    if (usesLabelIndex(sel, filtered)) await this.cache.indexLabels()
    // The cache learns of a compaction another connection made only at its next log read; asked
    // here, a page below a compaction that committed before the request answers 410 at once,
    // as the database's own read would.
    await this.compactedRevision()
    return listFromCache(this.cache, prefix, limit, sel, filtered, revision, after) ??
      await listFromStorage(this.listing, prefix, revision, limit, after, sel, filtered, fromContinue)
  }

  protected translateError (err: unknown, name: string): Error { return storageErrorToStatus(err, this.gr, name, this.cache.revision) }

  protected async translate<T> (fn: () => Promise<T>, name: string): Promise<T> {
    try { return await fn() } catch (err) { throw this.translateError(err, name) }
  }
}

/** Whether a client's resourceVersion names a revision after `revision`. */
export function newerThan (resourceVersion: unknown, revision: number): boolean {
  if (typeof resourceVersion !== 'string' || !/^[0-9]{1,15}$/.test(resourceVersion)) return false
  return Number(resourceVersion) > revision
}
