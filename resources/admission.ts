// The vocabulary of admission, shared by the store that runs the chain, the chain and its
// plugins: what a plugin sees of a request, what a plugin is, and the chain it joins.
import type { AnyObject, Resource } from './define.js'
import type { UserInfo } from './user-info.js'
import type { GroupResource } from './status.js'

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT'

export interface AdmissionAttributes {
  operation: Operation
  /** The kind as stored. */
  resource: Resource
  /**
   * The group (as the path spells it) and version the request came through, when not the stored
   * kind's own: an upstream spelling, an older version, another group's form (resource-forms.ts).
   */
  requestedAs?: { group: string, version: string }
  subresource: string
  namespace: string
  name: string
  /** The object being written (undefined for DELETE); mutate may change it. */
  object?: AnyObject
  /** The stored object (UPDATE, DELETE). */
  oldObject?: AnyObject
  user: UserInfo
  dryRun: boolean
  /**
   * Reads a stored object of any kind for lookups (namespaces, classes): from the kind's watch
   * cache, as fresh as this process's own writes (a consistent read when the cache lacks it).
   * The object is shared and frozen: read it, never change it.
   */
  lookup (gr: GroupResource, namespace: string, name: string): Promise<Readonly<AnyObject> | undefined>
  /** Lists the current objects of a kind (from the watch cache). */
  list (gr: GroupResource, namespace?: string): AnyObject[]
  /** Lists the current objects of a kind from the watch cache, as fresh as this process's own writes to it (as lookup). */
  listRecent (gr: GroupResource, namespace?: string): Promise<AnyObject[]>
  /** Lists the objects of a kind as of the database's newest revision (waits for the watch cache to catch up). */
  listConsistent (gr: GroupResource, namespace?: string): Promise<AnyObject[]>
  /** Warnings for the client. */
  warnings: string[]
  /** Kept on the request for the audit log (webhook mutations). */
  auditAnnotations: Record<string, string>
  /** The request's field manager (webhooks see it in the operation's options). */
  fieldManager?: string
  /** Set by the chain's mutate: whether this run is the second one, and the plugins' state across both. */
  reinvocation?: Reinvocation
}

/**
 * The mutating phase runs a second time when a plugin (a mutating webhook) asks for it after
 * changing the object: the built-in mutating plugins then see the webhook's changes, and
 * webhooks with reinvocationPolicy IfNeeded see the built-ins'.
 */
export interface Reinvocation {
  readonly isReinvoke: boolean
  /** Asks for the second run (no effect during it). */
  requestReinvoke (): void
  /** A plugin's own state, kept across both runs. */
  readonly state: Map<string, unknown>
}

export interface AdmissionPlugin {
  /** Its entry's name in the admission plugins list (admission/index.ts). */
  name: string
  /** Not in the list but added at run time (a test's probe): runs whatever the flags say. */
  alwaysOn?: boolean
  /** Whether this plugin looks at the request at all. */
  handles (a: AdmissionAttributes): boolean
  /** Mutating phase: may change a.object. Throw an ApiError to reject. */
  mutate?(a: AdmissionAttributes): Promise<void> | void
  /** Validating phase: must not mutate. Throw an ApiError to reject. */
  validate?(a: AdmissionAttributes): Promise<void> | void
}

export interface AdmissionChain {
  /** Registers a plugin; it runs only when enabled by the flags. */
  add (plugin: AdmissionPlugin): void
  mutate (a: AdmissionAttributes): Promise<void>
  validate (a: AdmissionAttributes): Promise<void>
  enabled (): string[]
  /** Whether the flags turn a plugin on (for plugins that read their configuration at start only when they run). */
  wants (plugin: string): boolean
  /** A plugin's configuration from --admission-control-config-file (with `baseDir`, the directory of the file that held it, and `source`, that file). */
  configuration (plugin: string): Record<string, any> | undefined
  /** The options the chain was built with, for plugins that take settings from flags. */
  readonly options: AdmissionOptions
  /**
   * Declares that audit annotations whose key starts with `prefix` belong only in events of
   * `level` or above, as the reference's AddAnnotationWithLevel: a webhook's patch may carry
   * what a Metadata event must not show (a Secret's data).
   */
  annotationLevel (prefix: string, level: AuditLevel): void
  /** The level an audit annotation needs: Metadata unless a plugin declared its prefix. */
  auditLevel (key: string): AuditLevel
}

export type AuditLevel = 'Metadata' | 'Request' | 'RequestResponse'

export interface AdmissionOptions {
  /** --enable-admission-plugins: added to the defaults. */
  enable?: string[]
  /** --disable-admission-plugins: removed even when on by default. */
  disable?: string[]
  /** --admission-control-config-file: an AdmissionConfiguration. */
  configFile?: string
  /** --admission-webhook-service-address: `<name>.<namespace>.svc[:port]` → `host:port`, for webhooks named by service. */
  webhookServiceAddresses?: Record<string, string>
  /** --default-not-ready-toleration-seconds (DefaultTolerationSeconds; 300 when unset). */
  defaultNotReadyTolerationSeconds?: number
  /** --default-unreachable-toleration-seconds (DefaultTolerationSeconds; 300 when unset). */
  defaultUnreachableTolerationSeconds?: number
  /** Milliseconds since the epoch for the plugins that keep time (EventRateLimit's buckets, ImagePolicyWebhook's answers); tests pass their own clock. */
  now?: () => number
}
