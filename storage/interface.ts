// The store's contract: kind-agnostic, key/value, one global revision, compare-and-swap.
// Nothing outside storage/ may assume PostgreSQL.

/** One object as stored. */
export interface StoredObject {
  /** "/registry/<group-or-core>/<plural>/<namespace>/<name>" or without the namespace segment. */
  key: string
  /** The revision of the write that produced this value (its resourceVersion). */
  revision: number
  /**
   * The exact JSON bytes served to clients, with `metadata.resourceVersion` already set to
   * `String(revision)`. Never re-serialised by the store.
   */
  json: string
}

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED'

/** One entry of the revision log. */
export interface LogEvent {
  type: EventType
  key: string
  revision: number
  /** For DELETED: the object's last state, with resourceVersion set to the deletion revision. */
  json: string
  /**
   * The value this event replaced (undefined for ADDED). Filled by Storage.readLog; the
   * subscribe reader leaves it out (the watch cache knows the replaced value itself).
   */
  prevJson?: string
}

/** A write the store performs inside one transaction, possibly batched with others. */
export type WriteOp =
  | { type: 'create', key: string, value: ApiObject }
  | { type: 'update', key: string, value: ApiObject, expectRevision: number }
  | { type: 'delete', key: string, value: ApiObject, expectRevision: number }

/** An API object as far as the store cares: it has metadata it may stamp the revision into. */
export interface ApiObject {
  metadata: { resourceVersion?: string, [k: string]: unknown }
  [k: string]: unknown
}

export type StorageErrorCode =
  | 'KeyExists' // create of a key that exists
  | 'NotFound' // update/delete of a key that does not exist
  | 'Conflict' // update/delete whose expectRevision differs from the current revision
  | 'Compacted' // a read or watch below the compacted revision
  | 'TooLarge' // a revision the store has not reached in time
  | 'Unavailable' // the database cannot be reached
  | 'Removed' // the kind's watch cache was dropped: its definition changed or went (a CRD's)

export class StorageError extends Error {
  constructor (readonly code: StorageErrorCode, readonly key: string, message?: string,
    /** For Conflict: the key's current revision. For Compacted: the compacted revision. */
    readonly revision?: number) {
    super(message ?? `${code}: ${key}`)
    this.name = 'StorageError'
  }
}

export interface ListPage {
  items: StoredObject[]
  /** The revision the page was read at; every page of one list shares it. */
  revision: number
  /** The key after which the next page starts; undefined on the last page. */
  continueAfterKey?: string
  /** Items after this page (only computed when `count` was asked). */
  remaining?: number
}

export interface RangeOptions {
  /** Key prefix, ending in '/'. */
  prefix: string
  /** Read at exactly this revision (from the log); undefined reads the newest state. */
  revision?: number
  limit?: number
  /** Start strictly after this key. */
  continueAfterKey?: string
  /**
   * Count the items after the page (`remaining`): a pass over the rest of the range, so asked only
   * when the caller has no count of its own.
   */
  count?: boolean
}

/**
 * The database-backed store. Every method may throw StorageError('Unavailable').
 */
export interface Storage {
  /** The newest state of one key, read from the database. */
  get (key: string): Promise<StoredObject | undefined>
  /**
   * A range of keys in key order, at the newest revision or at an exact revision still in the
   * retention window (throws Compacted below it, TooLarge above the current revision).
   */
  list (opts: RangeOptions): Promise<ListPage>
  /**
   * Every object under a prefix at the newest revision, in one snapshot and in no particular
   * order (a cache's fill, which orders its keys itself): each is handed to `onObject` as its
   * row arrives, so neither the rows nor a page of them are ever held at once, and the database
   * need not sort the range. Resolves with the revision read at. An exception from `onObject`
   * rejects the scan once the rest has been read past.
   */
  scan (prefix: string, onObject: (key: string, revision: number, json: string) => void): Promise<number>
  /**
   * Applies one write. Concurrent calls are batched into one transaction (group commit); each
   * keeps its own precondition and result. Stamps `metadata.resourceVersion` with the new
   * revision. Throws KeyExists, NotFound or Conflict, decided in the database.
   */
  write (op: WriteOp): Promise<StoredObject>
  /** The newest committed revision in the database. */
  currentRevision (): Promise<number>
  /** Revisions at or below this one can no longer be read or watched from. */
  compactedRevision (): Promise<number>
  /**
   * The highest compacted revision this process has learnt of (its own compactions, and every
   * read that reports it), without asking: what a cache answering at past revisions must not
   * reach below, as the database would refuse it.
   */
  knownCompactedRevision (): number
  /** Drops history at or below `upToRevision` (keeping each live key's newest value). Returns the new compacted revision. */
  compact (upToRevision: number): Promise<number>
  /**
   * Log events with revision > afterRevision and <= untilRevision whose key starts with prefix,
   * in revision order. Throws Compacted when afterRevision is below the compacted revision.
   */
  readLog (prefix: string, afterRevision: number, untilRevision: number): Promise<LogEvent[]>
  /**
   * Subscribes to the whole log in revision order, starting after `afterRevision`: one reader per
   * process, woken by NOTIFY, catching up after reconnects, polling slowly when the channel is
   * silent. `onEvents` is called with consecutive batches; `revision` is the log position reached
   * (it advances even when a batch holds no events for a caller). Returns an unsubscribe function.
   * `onError` receives StorageError('Compacted') when events after the subscriber's position were
   * compacted away before it read them (it must start over); the subscription then ends.
   */
  subscribe (afterRevision: number, onEvents: (events: LogEvent[], revision: number) => void,
    onError?: (err: Error) => void): () => void
  close (): Promise<void>
}

/** What a watch cache keeps of each object besides its bytes, extracted once on insert. */
export interface ObjectAttrs {
  labels: Record<string, string>
  /** Field-selector values: metadata.name, metadata.namespace and the kind's own fields. */
  fields: Record<string, string>
}

export interface CachedObject {
  key: string
  revision: number
  json: string
  attrs: ObjectAttrs
}

export interface CacheEvent {
  type: EventType
  key: string
  revision: number
  json: string
  attrs: ObjectAttrs
  /** The attributes of the value this event replaced (MODIFIED and DELETED). */
  prevAttrs?: ObjectAttrs
}

/** What an index of label keys can narrow a list by: objects with label `key`, one of `values` when given. */
export interface LabelTerm { key: string, values?: readonly string[] }

export interface PageQuery {
  /** This cache's prefix or a namespace inside it. */
  prefix: string
  /** Start strictly after this key. */
  after?: string
  limit?: number
  /** The state at this revision (a continue page, an Exact list); undefined: the newest the cache holds. */
  revision?: number
  /** Only the objects it accepts are listed; `more` then says whether another accepted one follows. */
  filter?: (o: CachedObject) => boolean
  /** Terms every accepted object meets (all of them): an index of label keys narrows the scan when they select few. */
  labels?: readonly LabelTerm[]
  /**
   * What `filter` accepts, as text: two queries with the same text select the same objects. A
   * filtered first page of the newest state is shared (CachePage.shared) only when it is given.
   */
  selection?: string
}

export interface CachePage {
  readonly items: readonly CachedObject[]
  revision: number
  /** Whether another object (another accepted one, with a filter) follows the page. */
  more: boolean
  /** Without a filter, and when `more`: how many objects follow the page, from the index's ranks. */
  remaining?: number
  /**
   * The items array is the one every list of this page shares until something under its prefix
   * changes (storage/page-memo.ts): a reader may key what it derives from the page on it.
   */
  shared?: true
}

export interface WatchHandle {
  stop (): void
}

/**
 * The watch cache of one resource type (one key prefix): its current objects plus a sliding
 * window of recent events, kept current from Storage.subscribe.
 */
export interface WatchCache {
  readonly prefix: string
  /** The log position this cache has applied (advances with every log batch, even one without events for it). */
  readonly revision: number
  /** Resolves once the initial fill is done. */
  readonly ready: Promise<void>
  /**
   * Resolves once `revision >= rev`; throws StorageError('TooLarge') after timeoutMs.
   */
  waitForRevision (rev: number, timeoutMs: number): Promise<void>
  get (key: string): CachedObject | undefined
  /** Current objects under `prefix` (this cache's prefix or a namespace inside it), in key order. */
  list (prefix: string): CachedObject[]
  /**
   * A page of the objects under `q.prefix` in key order, at the newest revision or at an older
   * one its window of events still reaches back to (and not below the known compaction); in time
   * proportional to the page (and to the changes since that revision), not to the collection.
   * undefined when it cannot answer at that revision: the caller reads the database.
   */
  page (q: PageQuery): CachePage | undefined
  /**
   * Builds the index of labels that pages with `labels` terms read from (once, a slice at a
   * time; until it is built such pages scan); resolves when it is built.
   */
  indexLabels (): Promise<void>
  /** Sorts the keys a fill gave, a slice at a time (else the first page or write sorts them at once). */
  settleKeys (): Promise<void>
  /**
   * Streams events with revision > afterRevision for keys under `prefix`, in revision order,
   * without gap or duplicate: from the window when it reaches back far enough, else replayed
   * from Storage.readLog first. `onError` receives StorageError('Compacted') when afterRevision
   * is below the compacted revision; no event follows an error.
   */
  watch (prefix: string, afterRevision: number, onEvent: (e: CacheEvent) => void,
    onError: (err: Error) => void): WatchHandle
  /** The oldest revision the in-memory window can replay after. */
  readonly windowStart: number
  /** How many objects the cache holds (apiserver_storage_objects). */
  readonly size: number
}
