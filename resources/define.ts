// What a kind is: a declarative definition the generic REST machinery serves.
import type { Static, TObject } from '@sinclair/typebox'
import type { FieldError, GroupResource } from './status.js'
import type { UserInfo } from './user-info.js'
import type { Attributes, RuleSet, Verdict } from './authorization.js'
import type { FeatureGates, FeatureName } from './feature-gates.js'

export type Scope = 'Namespaced' | 'Cluster'
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection'
export const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']

/** Who is asking and how: passed to every strategy hook. */
export interface RequestContext {
  namespace?: string
  user?: { username: string, groups: string[], uid?: string, extra?: Record<string, string[]> }
  dryRun: boolean
  /** Warnings to return in `Warning: 299` headers. */
  warnings: string[]
  /** --feature-gates: gated behaviour of a kind asks here. */
  features: FeatureGates
  /** The group/version the request named (`v1`, `events.svc.io/v1`): a kind served in several validates by it. */
  requestVersion?: string
  /** The server's value pools (addresses, ports), for the begin hooks. */
  pools: Pools
  /** The storage key of the object written: the owner its pool claims are recorded under. */
  owner?: string
}

/** Why a pool refused a value. */
export type PoolRefusal = 'taken' | 'outside' | 'full'

export class PoolError extends Error {
  constructor (readonly refusal: PoolRefusal, message: string) { super(message); this.name = 'PoolError' }
}

/**
 * A range of values no two objects may hold at once, on any replica: each claim is a record in
 * the database that exists once (storage/value-pools.ts). Under dry run a claim only checks.
 */
export interface ValuePool {
  readonly name: string
  /** The range as configured (`10.96.0.0/12`, `30000-32767`). */
  readonly range: string
  contains (value: string): boolean
  /** Claims `value` for `owner`; throws PoolError 'outside' or 'taken'. */
  claim (value: string, owner: string, dryRun: boolean): Promise<void>
  /** Claims some free value for `owner`; throws PoolError 'full'. */
  claimAny (owner: string, dryRun: boolean): Promise<string>
  /** Releases `value` when `owner` holds it (without owner: whoever does). */
  release (value: string, owner?: string): Promise<void>
}

export interface Pools {
  /** The pool of that name, undefined when the server has none configured. */
  get (name: string): ValuePool | undefined
  /** Every configured pool's name, in the order configured. */
  names (): string[]
}

/** A value an object holds in a pool (for release on delete and for repair). */
export interface HeldValue { pool: string, value: string }

/** Runs once the write a begin hook prepared is known to have succeeded or failed. */
export type FinishWrite = (written: boolean) => Promise<void>

// Kinds operate on plain JSON objects; each hook receives its kind's Static type.
export type AnyObject = Record<string, any>

/** All hooks optional; without them a kind behaves like a schema-only custom resource. */
export interface Strategy<T = AnyObject> {
  /** Before validation on create; may normalise `obj` (defaults, derived labels). Status is already cleared when the kind has a status subresource. */
  prepareForCreate?(obj: T, ctx: RequestContext): void
  /**
   * Before validation on update; may copy fields from `old` that this path may not change, and
   * may raise metadata.generation past the stored one (kept, whatever the spec did).
   */
  prepareForUpdate?(obj: T, old: T, ctx: RequestContext): void
  /** Field errors of a new object; must not mutate. Generic metadata rules are checked separately. */
  validate?(obj: T, ctx: RequestContext): FieldError[]
  /** Field errors only a new object can have (rules for creates alone); `validate` runs too. */
  validateCreate?(obj: T, ctx: RequestContext): FieldError[]
  /** Field errors of an update (immutability); `validate` runs too. */
  validateUpdate?(obj: T, old: T, ctx: RequestContext): FieldError[]
  /**
   * After a create passed validation (upstream's WarningsOnCreate): messages for the client's
   * `Warning: 299` headers about deprecated or ineffective content; must not mutate.
   */
  warningsOnCreate?(obj: T, ctx: RequestContext): string[]
  /** As warningsOnCreate, for an update of the main resource (not its subresources). */
  warningsOnUpdate?(obj: T, old: T, ctx: RequestContext): string[]
  /** After validation, before persisting; may mutate (drop write-only fields). */
  canonicalize?(obj: T): void
  /** Called when a delete is first requested of an object that cannot go at once; may mutate (phase Terminating). */
  prepareForDelete?(obj: T): void
  /** Finalizers of the kind's own beyond metadata.finalizers that hold a deleted object (Namespace spec.finalizers). */
  pendingFinalizers?(obj: T): string[]
  /** Whether PUT may create the object. Default false. */
  allowCreateOnUpdate?: boolean
  /**
   * After prepareForCreate, before validation (upstream's BeginCreate): claims from
   * `ctx.pools` what the object needs (a Service's addresses and ports) and writes them into
   * it; may throw ApiError. The function returned runs once the write succeeded or failed
   * (releasing the claims then), also under dry run, when nothing was claimed.
   */
  beginCreate?(obj: T, ctx: RequestContext): Promise<FinishWrite | undefined>
  /** As beginCreate, on update: claims what the new object adds; releases what it gives up once written. */
  beginUpdate?(obj: T, old: T, ctx: RequestContext): Promise<FinishWrite | undefined>
  /** Values the stored object holds in pools: released when it is deleted, recorded by the repair pass. */
  heldValues?(obj: T): HeldValue[]
}

/** What a CONNECT subresource may read while it locates its stream. */
export interface ConnectContext {
  /** A stored object of any kind (the parent's node), or undefined when there is none. */
  lookup (gr: GroupResource, namespace: string, name: string): Promise<Readonly<AnyObject> | undefined>
  /** The name as the path gave it: a proxy's may carry a scheme and port (`https:web:8443`). */
  name: string
  /** --kubelet-preferred-address-types: which of a Node's addresses its agent is dialled at, in order (default the kind's). */
  nodeAddressTypes?: readonly string[]
}

/**
 * Where a subresource's stream goes. `agent` streams go to a node agent over its transport (the
 * client certificate of --kubelet-client-*); `proxy` ones to a pod or a port of a node over the
 * proxy transport (TLS unverified, as the reference's proxy transport).
 */
export interface StreamLocation {
  host: string
  port: number | undefined
  path: string
  /** The backend's query, without `?`; the request's own query is passed on when absent. */
  query?: string
  scheme: 'https' | 'http'
  transport: 'agent' | 'agent-insecure' | 'proxy'
}

/**
 * How a query parameter of a CONNECT subresource becomes a field of its options object:
 * `boolean` is false only for `0` and `false`, as the reference server's query conversion;
 * `integer` is one int64, `time` an RFC 3339 time.
 */
export type ConnectParameter = 'string' | 'boolean' | 'strings' | 'integers' | 'integer' | 'time'

/**
 * How a stream subresource is carried: `upgrade` (exec, attach, portforward: GET or POST that
 * switches protocols), `proxy` (every method, the path past the subresource is the options'
 * `path`), `read` (a GET answered with the backend's body: pods/log).
 */
export type StreamCarriage = 'upgrade' | 'proxy' | 'read'

/** A subresource whose answer comes from elsewhere (pods/exec, pods/log, nodes/proxy). */
export interface ConnectDefinition<T = AnyObject> {
  /** The kind of the options object admission sees (PodExecOptions), built from the query. */
  optionsKind: string
  parameters: Record<string, ConnectParameter>
  /** Default `upgrade`. Only `upgrade` and `proxy` requests pass admission (operation CONNECT). */
  carries?: StreamCarriage
  /** The parent's name from the path's (a proxy's `https:web:8443` names `web`); throws ApiError for a malformed one. */
  parentName? (name: string): string
  /** The options' errors (422 Invalid of the options kind), before the parent is read. */
  validate? (options: AnyObject): FieldError[]
  /**
   * Where the stream of `parent` goes; throws ApiError when it has nowhere to go, undefined when
   * there is nothing to stream (the log of a pod on no node: an empty answer).
   */
  locate (parent: T, options: AnyObject, ctx: ConnectContext): Promise<StreamLocation | undefined>
}

/** A subresource served on `<item>/<name>`: which part of an incoming object it may change. */
export interface SubresourceDefinition<T = AnyObject> {
  /** A CONNECT subresource instead: verbs get and create (GET and POST), admission operation CONNECT. */
  connect?: ConnectDefinition<T>
  /**
   * The object to store: `existing` with the part this subresource owns taken from `incoming`;
   * absent for create-only subresources. Its metadata is the request's whatever merge returns,
   * but for `resetMetadata` (run after mutating admission, as the reference's PrepareForUpdate).
   */
  merge? (incoming: T, existing: T, ctx: RequestContext): T
  /** Metadata fields a write through this subresource cannot change (kept as stored). */
  resetMetadata?: readonly string[]
  /**
   * The update rules of a write through this subresource, in place of the kind's validateUpdate
   * (the reference's per-subresource strategy: pods/ephemeralcontainers may add containers the
   * main resource may not); the kind's validate runs too.
   */
  validateUpdate? (obj: T, old: T, ctx: RequestContext): FieldError[]
  /**
   * POST on `<item>/<sub>` (verb create, e.g. serviceaccounts/token): answers a request object
   * about the stored `parent` without storing either. Returns the response object (201); throws
   * ApiError for bad requests.
   */
  create? (ctx: RequestContext, parent: T, body: AnyObject): Promise<AnyObject> | AnyObject
  /**
   * POST on `<item>/<sub>` that changes the stored parent by a request object (pods/binding
   * takes a Binding): the parent with the request applied, or an ApiError thrown (409 when the
   * parent cannot take it). Stored by compare-and-swap without the kind's update rules, as the
   * reference's subresource storage writes it (this hook is the whole rule), and answered with a
   * Success Status (201).
   */
  changeParent? (request: AnyObject, parent: T, ctx: RequestContext): T
  /**
   * The type of what `create` takes when it is another kind than the parent's (serviceaccounts/token
   * takes an authentication-group TokenRequest): request bodies are decoded and checked as it.
   */
  requestKind?: {
    apiVersion: string
    kind: string
    /** Other versions of the kind also taken, alike in their fields (pods/eviction's policy/v1beta1 Eviction). */
    alsoAccepted?: readonly string[]
  }
  /** The verbs served; default get, update, patch. */
  verbs?: Verb[]
  /** The main resource keeps this part from the stored object on update (status). */
  ownedByMainResource?: false
  /** Create keeps the status the client sent (Node: its agent reports status when registering). */
  keepOnCreate?: boolean
  /** Its bodies carry credentials (issued tokens): the audit log records at most their metadata. */
  sensitive?: boolean
  /**
   * Served as another kind than its parent (`<item>/scale` as autoscaling/v1 Scale): reads
   * answer the view of the stored parent; writes take a view and are stored through `merge`.
   */
  view?: SubresourceView<T>
}

/** How a subresource of another kind reads its parent and writes into it. */
export interface SubresourceView<T = AnyObject> {
  apiVersion: string
  kind: string
  /** The view of a stored parent, its metadata (name, namespace, uid, resourceVersion) the parent's. */
  toView (parent: T): AnyObject
  /** The parent with the view written into it; throws ApiError (422) for a view it refuses. */
  fromView (view: AnyObject, parent: T): T
}

export interface Column<T = AnyObject> {
  name: string
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date'
  format?: string
  priority?: 0 | 1
  description?: string
  /**
   * The cell. One that depends on the time reads it with `now()` (resources/duration.ts): a
   * list's Table rows are kept without their ages, and a row whose cells read the clock otherwise
   * is known by that and made afresh at every answer. Type 'date' cells are ages already.
   */
  value: (obj: T) => string | number | boolean | null | undefined
  /** A missing value stays null, shown empty (a CRD's printer column), rather than `<none>`. */
  nullWhenMissing?: boolean
}

/** What a virtual kind's create sees: the caller, the path's namespace, the authenticators and the authorizers. */
export interface VirtualContext {
  user: UserInfo
  /** The namespace in the request path ('' for cluster-scoped kinds). */
  namespace: string
  /** Runs the authorization chain on attributes (the caller's own or another user's). */
  authorize (attrs: Attributes): Promise<Verdict>
  /** The union of every authorization mode's rules for a user in a namespace. */
  rules (user: UserInfo, namespace: string): Promise<RuleSet>
  /**
   * Runs the bearer-token authenticators on a token for `audiences` (default the server's):
   * undefined when none recognises it; throws when one recognises it and finds it invalid.
   */
  authenticateToken (token: string, audiences?: string[]): Promise<{ user: UserInfo, audiences?: string[] } | undefined>
  /**
   * Admits `request` as a create of the virtual kind (named by its metadata.name), then applies
   * another kind's `changeParent` subresource to that kind's object of the same name in the
   * path's namespace (core `bindings` is pods/binding by another path).
   */
  changeParent (target: { group: string, version: string, plural: string, subresource: string }, request: AnyObject): Promise<void>
}

/** A kind that is never stored: POST answers with what `create` returns (access reviews, token reviews). */
export interface VirtualKind {
  /** Returns the answer object (its status filled); throws ApiError for bad input. */
  create (body: AnyObject, ctx: VirtualContext): Promise<AnyObject>
}

/** A named rule, or a function returning the problems of a name (kinds with names of their own, as CSIDriver). */
export type NameRule = 'DNSSubdomain' | 'DNSLabel' | 'PathSegment' | ((name: string) => Array<{ type: 'Invalid' | 'TooLong', detail: string }>)

export interface ResourceDefinition<S extends TObject = TObject> {
  /** '' for the core group (/api/v1). */
  group: string
  version: string
  kind: string
  /** URL segment, lower-case plural. */
  plural: string
  singular: string
  shortNames?: string[]
  categories?: string[]
  scope: Scope
  /** The whole object, metadata included. Yields validation, OpenAPI and apply markers. */
  schema: S
  /** Default: DNSSubdomain. */
  nameRule?: NameRule
  /** Default: all verbs. */
  verbs?: Verb[]
  /** `status` gets the generic treatment (main resource ignores it, /status changes only it). */
  subresources?: Record<string, SubresourceDefinition<Static<S>>>
  strategy?: Strategy<Static<S>>
  /** Table columns after Name; Age is added last. Without columns: Name and Created At. */
  columns?: Column<Static<S>>[]
  /** The Name cell of a table row when it is more than metadata.name (a default StorageClass shows `fast (default)`). */
  tableName?: (obj: Static<S>) => string
  /**
   * The pod template a workload kind holds (its spec.template; a CronJob's in its job template):
   * admission looks at the pods it will make (PodSecurity warns about them).
   */
  podTemplate?: (obj: Static<S>) => AnyObject | undefined
  /** Field selectors beyond metadata.name and metadata.namespace. */
  fieldSelectors?: Record<string, (obj: Static<S>) => string | undefined>
  /** What DELETE answers: a Status (default) or the object itself (200, or 202 while finalizers hold it). */
  deleteReturns?: 'Status' | 'Object'
  /** Whether metadata.generation is kept; default: when the schema has `spec`. */
  generation?: boolean
  /** Create-only and never stored; verbs default to ['create']. */
  virtual?: VirtualKind
  /**
   * What a DELETE without propagationPolicy does to the object's dependents (the reference
   * strategy's DefaultGarbageCollectionPolicy): `Background` (default), `Orphan`, or
   * `Unsupported` (no policy is ever acted on: no orphan or foregroundDeletion finalizer).
   */
  defaultPropagationPolicy?: 'Background' | 'Orphan' | 'Unsupported'
  /** The garbage collector neither follows nor collects this kind (the reference controller manager ignores events). */
  ignoredByGarbageCollector?: boolean
  /** Its bodies carry credentials (Secret data, tokens): the audit log records at most their metadata. */
  sensitive?: boolean
  /**
   * Older versions served beside `version` over the same stored objects (the same fields; only
   * apiVersion differs), with the releases of their lifecycle. A removed one is off unless
   * --runtime-config turns it on.
   */
  olderVersions?: VersionLifecycle[]
  /**
   * The main version's own lifecycle once it is deprecated (core v1 Endpoints in 1.33): every
   * request to it is warned about as a deprecated older version's are.
   */
  lifecycle?: VersionLifecycle
  /**
   * The same stored objects served as a version of another group, with fields of their own
   * (core v1 Event as events.svc.io/v1 Event): a lossless conversion each way.
   */
  servedAs?: ConvertedVersion[]
  /**
   * A minimal valid object of the main version, as a user would write it (metadata.name set):
   * the conformance suite (test/conformance) runs every generic behaviour on it. Its `status`,
   * for a kind with a status subresource, is what the suite writes through /status (it creates
   * the object without it), so it must differ from the status a new object gets.
   */
  example?: KindExample
  /**
   * The example under another name, for a kind whose name derives from its fields (a
   * CustomResourceDefinition's is `<plural>.<group>`); without it the conformance suite only
   * changes metadata.name.
   */
  exampleNamed?: (name: string) => KindExample
  /**
   * The body check in place of the schema pass over `schema` (a kind whose schema users write,
   * a custom resource's): fills defaults and drops (or, `dropUnknown` false, only reports) the
   * fields it does not declare, in place. Returns their paths (`spec.foo`) and decoding errors.
   */
  checkBody?: (obj: AnyObject, dropUnknown: boolean) => { unknown: string[], errors: FieldError[] }
  /** Whether strategic merge patches apply; false for kinds without Go types (custom resources). Default true. */
  strategicMerge?: boolean
  /** The columns are the whole table after Name: no Age column is added (a CRD's printer columns). */
  completeColumns?: boolean
  /**
   * The feature gate the kind is behind (an alpha kind of the reference): while it is off no
   * version of the kind is served, whatever --runtime-config says.
   */
  featureGate?: FeatureName
  /** Whether `version` itself is served; false when only its olderVersions are (a CRD's storage version with served false). Default true. */
  versionServed?: boolean
  /**
   * Converts objects between the kind's versions out of process (a CRD's conversion webhook):
   * each object, in any of its versions, into `apiVersion`; throws ApiError when it cannot.
   * Without it an older version differs from the stored one in its apiVersion only.
   */
  convertVersions?: (objects: AnyObject[], apiVersion: string) => Promise<AnyObject[]>
  /**
   * Fills, in place, what a stored object lacks that the kind now defaults (a CRD default added
   * after the object was written). Applied as the kind's watch cache fills, so every read sees it.
   */
  defaultOnRead?: (obj: AnyObject) => void
}

/** A kind's example object: what `kubectl apply` would be given, apiVersion and kind optional. */
export interface KindExample extends AnyObject {
  metadata: AnyObject & { name: string }
}

/** A kind served in another group version over its stored objects, converted in and out. */
export interface ConvertedVersion extends VersionLifecycle {
  group: string
  kind: string
  /** The served form: OpenAPI, unknown fields and patches of requests through this version. */
  schema: TObject
  /** The stored object in the served form (apiVersion and kind are set by the caller). */
  fromStored (obj: AnyObject): AnyObject
  /** A served object in the stored form; `fromStored(toStored(x))` is `x`. */
  toStored (obj: AnyObject): AnyObject
  /** Field selector labels of the served form and the stored labels they select on. */
  fieldLabels?: Record<string, string>
  /** Table columns over the served form; default none beyond Name. */
  columns?: Column[]
  /**
   * The stored kind's subresources served through this form too (autoscaling/v1's
   * horizontalpodautoscalers/status), their bodies converted as the main resource's; default none.
   */
  subresources?: readonly string[]
}

/**
 * A conversion that renames top-level fields (`served name → stored name`) and keeps the rest:
 * lossless both ways as long as no served name is also a stored name it does not map to.
 */
export function renamedFields (renames: Readonly<Record<string, string>>): Pick<ConvertedVersion, 'fromStored' | 'toStored'> {
  const toServed = new Map(Object.entries(renames).map(([served, stored]) => [stored, served]))
  const toStoredName = new Map(Object.entries(renames))
  const rename = (obj: AnyObject, names: Map<string, string>, shadowed: Map<string, string>): AnyObject => {
    const out: AnyObject = {}
    for (const [key, value] of Object.entries(obj)) {
      // A name the other form renames away is not a field of this form: dropped, as a decoder
      // drops a field its type lacks (schema checks before the conversion report it).
      if (shadowed.has(key) && !names.has(key)) continue
      Object.defineProperty(out, names.get(key) ?? key, { value, enumerable: true, writable: true, configurable: true })
    }
    return out
  }
  return {
    fromStored: (obj) => rename(obj, toServed, toStoredName),
    toStored: (obj) => rename(obj, toStoredName, toServed)
  }
}

/** One served version of a kind: the releases (`1.24`) it came in, was deprecated and removed in. */
export interface VersionLifecycle {
  version: string
  introduced: string
  deprecated?: string
  removed?: string
  /** What to use instead; default the kind's main version. */
  replacement?: string
  /** The whole deprecation warning, when the version's author wrote one (a CRD version's deprecationWarning). */
  warning?: string
  /** The version's own schema, as OpenAPI publishes it, when it is not the main version's (a CRD version's). */
  schema?: TObject
  /** The version's own table columns, when they are not the main version's (a CRD version's printer columns). */
  columns?: Column[]
}

/** A definition with its defaults filled, as the generic machinery uses it. */
export interface Resource extends ResourceDefinition<TObject> {
  verbs: Verb[]
  apiVersion: string
  listKind: string
  nameRule: NameRule
  generation: boolean
  deleteReturns: 'Status' | 'Object'
  defaultPropagationPolicy: 'Background' | 'Orphan' | 'Unsupported'
  subresources: Record<string, SubresourceDefinition<AnyObject>>
  strategy: Strategy<AnyObject>
  namespaced: boolean
}

export function defineResource<S extends TObject> (def: ResourceDefinition<S>): Resource {
  return {
    ...(def as unknown as ResourceDefinition<TObject>),
    verbs: def.verbs ?? (def.virtual !== undefined ? ['create'] : [...ALL_VERBS]),
    apiVersion: def.group === '' ? def.version : `${def.group}/${def.version}`,
    listKind: `${def.kind}List`,
    nameRule: def.nameRule ?? 'DNSSubdomain',
    generation: def.generation ?? ('spec' in def.schema.properties),
    deleteReturns: def.deleteReturns ?? 'Status',
    defaultPropagationPolicy: def.defaultPropagationPolicy ?? 'Background',
    subresources: (def.subresources ?? {}) as Record<string, SubresourceDefinition<AnyObject>>,
    strategy: (def.strategy ?? {}) as Strategy<AnyObject>,
    namespaced: def.scope === 'Namespaced'
  }
}

/**
 * The generic status subresource: /status changes status and the metadata it does not reset
 * (labels and annotations, as the reference's status strategies keep them); the main resource
 * never changes status.
 */
export const statusSubresource = (resetMetadata?: readonly string[]): SubresourceDefinition<any> => ({
  merge: (incoming, existing) => ({ ...existing, status: incoming.status }),
  ...(resetMetadata === undefined ? {} : { resetMetadata })
})

/** What the reference's metav1.ResetObjectMetaForStatus keeps as stored: a status write changes no metadata a user sets. */
export const STATUS_ONLY_METADATA = ['deletionTimestamp', 'generation', 'selfLink', 'labels', 'annotations', 'finalizers', 'ownerReferences'] as const

/** A CONNECT subresource, authorized as `create` (POST) and `get` (GET), as the reference server does. */
export const connectSubresource = <T = AnyObject>(connect: ConnectDefinition<T>): SubresourceDefinition<T> => ({
  connect,
  verbs: connect.carries === 'read' ? ['get'] : connect.carries === 'proxy' ? ['create', 'delete', 'get', 'patch', 'update'] : ['create', 'get']
})

/** The finalizers the garbage collector owns (metav1.FinalizerOrphanDependents, FinalizerDeleteDependents). */
export const GC_FINALIZERS = { orphan: 'orphan', foreground: 'foregroundDeletion' } as const

/** Storage key of an object; namespace '' for cluster-scoped kinds. */
export const storageKey = (r: Pick<Resource, 'group' | 'plural'>, namespace: string, name: string): string =>
  `${keyPrefix(r)}${namespace === '' ? '' : `${namespace}/`}${name}`

export const keyPrefix = (r: Pick<Resource, 'group' | 'plural'>): string =>
  `/registry/${r.group === '' ? 'core' : r.group}/${r.plural}/`

export const fieldError = (type: FieldError['type'], field: string, value?: unknown, detail?: string): FieldError =>
  ({ type, field, value, detail })
export type { FieldError }
