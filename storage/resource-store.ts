// The store contract: how code above the REST layer (controllers, authorizers, admission
// plugins) reads and writes a kind's objects, without knowing the class that serves them.
// plugins/rest implements it (GenericStore); everything else codes against this file.
import type { AnyObject, Resource } from '../resources/define.js'
import type { GroupResource } from '../resources/status.js'
import type { UserInfo } from '../resources/user-info.js'
import type { FeatureGates } from '../resources/feature-gates.js'
import type { CachedObject, StoredObject, WatchCache } from './interface.js'

export type { GroupResource } from '../resources/status.js'

/** Who writes, and where the answer's warnings go. */
export interface Caller {
  user: UserInfo
  manager: string
  warnings: string[]
  /** Audit annotations admission adds (webhook mutations), for the audit log. */
  auditAnnotations?: Record<string, string>
  /** The group/version of the request's path, when the kind is served in more than one. */
  requestVersion?: string
  /** The group as the path spells it (upstream twin included) and the version: what admission matches webhooks on. */
  requestedAs?: { group: string, version: string }
  /**
   * Under fieldValidation=Strict: the body's repeated keys, refused together with the unknown
   * fields once the object is checked, in one strict decoding error as the reference's decoder
   * gives. `patch`: the error of a patched object, which does not name the kind.
   */
  strict?: { duplicates: string[], patch: boolean }
}

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore'

/** CreateOptions, UpdateOptions and PatchOptions as a write carries them. */
export interface WriteOptions {
  dryRun: boolean
  fieldManager?: string
  fieldValidation: FieldValidation
  force: boolean
}

/** A write whose metadata.managedFields the caller has already settled (server-side apply). */
export interface Ownership { managedFieldsSet?: boolean }

/** What an update needs besides the change: which subresource it writes, and what it may create. */
export interface UpdateOptions extends WriteOptions, Ownership {
  /** '' for the object itself, else the subresource written ('status', 'finalize', ...). */
  subresource: string
  /** PUT of a missing object: the body to create, when the kind allows create on update. */
  createBody?: AnyObject
  /** Server-side apply of a missing object: builds the object to create. */
  applyCreate?: () => AnyObject
}

export interface DeleteOptions {
  dryRun: boolean
  gracePeriodSeconds?: number
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground'
  /** The deprecated spelling of Orphan (true) or Background (false); never set with propagationPolicy. */
  orphanDependents?: boolean
  preconditions?: { uid?: string, resourceVersion?: string }
}

/**
 * One kind's objects. Reads come from the kind's watch cache (an in-memory copy of the
 * database that follows its revision log), so they cost no SQL; the freshness methods say
 * how far behind the database a read may be. Writes run the whole request path a client's
 * write runs (admission, the kind's strategy, validation, managed fields), as `caller`.
 *
 * Keys: every object lives at one storage key, `key(namespace, name)`; the keys of one
 * namespace share `listPrefix(namespace)` and all of the kind's keys share `prefix`. For a
 * cluster-scoped kind the namespace is ignored.
 */
export interface ResourceStore {
  /** The kind's definition (as registered: its subresource table included). */
  readonly resource: Resource
  /** The kind's group and plural, as Status errors name it. */
  readonly gr: GroupResource
  /** The prefix of all the kind's keys. */
  readonly prefix: string
  /**
   * The kind's watch cache: `cache.get(key)`, `cache.list(prefix)`, `cache.watch(...)` for
   * event streams, `cache.ready` before the first read, `cache.revision` for how far it is.
   */
  readonly cache: WatchCache

  /** The storage key of an object. */
  key (namespace: string, name: string): string
  /** The prefix of one namespace's keys ('' or a cluster-scoped kind: every key). */
  listPrefix (namespace: string): string

  // ---- reads from the cache ------------------------------------------------------------------

  /**
   * The objects the cache holds in `namespace` ('' for all), parsed, in key order: what a
   * controller's pass over a kind reads. As fresh as the cache; call `freshen` or `caughtUp`
   * first when the pass must see a recent write.
   */
  cachedObjects (namespace?: string): AnyObject[]
  /** The object the cache holds at `namespace`/`name`, parsed; undefined when it holds none. */
  cachedObject (namespace: string, name: string): AnyObject | undefined

  // ---- reads with a freshness promise --------------------------------------------------------

  /** A GET: the newest state (no `resourceVersion`), or one at least as new as it; 404 when absent. */
  get (namespace: string, name: string, resourceVersion?: string): Promise<StoredObject>
  /**
   * The newest state of a key, as a database read would give it (at least revision `atLeast`
   * when the caller knows one); undefined when absent. `name` words the errors.
   */
  readCurrent (key: string, name: string, atLeast?: number): Promise<StoredObject | CachedObject | undefined>
  /**
   * A key as fresh as every write this process has acknowledged to the kind, without a
   * revision query: the read admission's look-ups make. undefined when absent.
   */
  readRecent (key: string, name: string): Promise<StoredObject | CachedObject | undefined>
  /** Waits until the cache holds every write this process has made to the kind. */
  caughtUp (): Promise<void>
  /** Waits until the cache is at least at revision `rv`, or (undefined) at the database's newest. */
  freshen (rv: number | undefined): Promise<void>

  // ---- writes ------------------------------------------------------------------------------

  /** Creates an object in `namespace` (ignored for cluster-scoped kinds); 409 when it exists. */
  create (namespace: string, body: AnyObject, opts: WriteOptions & Ownership, caller: Caller): Promise<{ json: string, object: AnyObject }>
  /**
   * Read-modify-write with compare-and-swap: `change` gets a copy of the stored object and
   * returns the new one (it may throw to give up). When the new object carries no
   * resourceVersion the write is unconditional and conflicts are retried with a fresh read;
   * with one, a stale read is a 409. `created`: the update created the object (see
   * UpdateOptions). 404 when absent.
   */
  update (namespace: string, name: string, change: (old: AnyObject) => AnyObject, opts: UpdateOptions, caller: Caller): Promise<{ json: string, created: boolean }>
  /**
   * Deletes an object: at once when no finalizer holds it, else marks it terminating
   * (`deleted` false). Returns the object as last stored. 404 when absent.
   */
  delete (namespace: string, name: string, opts: DeleteOptions, caller: Caller): Promise<{ json: string, object: AnyObject, deleted: boolean }>
  /** The finalizers that keep an object from being deleted: its own and the kind's. */
  pendingFinalizers (obj: AnyObject): string[]
}

/**
 * The registered kinds, by group and resource (plural). One argument order everywhere: a
 * group-resource pair is one `{ group, resource }` value, and group/version/resource paths
 * name the group first.
 */
export interface ResourceStores {
  /**
   * The store of a kind, by its group ('' for core) and plural, or by a group that serves it
   * in another form; undefined when the server does not register it (a controller or
   * authorizer asked for a kind it cannot do without may assert; one that can, contributes
   * nothing for it).
   */
  find (gr: GroupResource): ResourceStore | undefined
  /**
   * Every registered kind's store, in registration order: virtual kinds (reviews, nothing
   * stored) included, so passes over stored objects skip `resource.virtual`.
   */
  all (): ResourceStore[]
  /**
   * Calls `listener` after the registered kinds changed (a CustomResourceDefinition served,
   * replaced or gone), so passes over every kind follow the new ones; returns the unsubscribe.
   */
  onChange (listener: () => void): () => void
  /** --feature-gates. */
  readonly features: FeatureGates
}
