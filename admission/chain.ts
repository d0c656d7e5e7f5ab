// The admission chain: enabled plugins' mutate phase, then their validate phase, run inside the
// generic store with the old object at hand. Any rejection fails the whole request.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject, Resource } from '../resources/define.js'
import type { UserInfo } from '../resources/user-info.js'
import { dedupOwnerReferences } from '../resources/owner-references.js'
import { readAdmissionConfigFile } from './config-file.js'
import { checkPluginNames } from './plugin-names.js'

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT'

export interface AdmissionAttributes {
  operation: Operation
  resource: Resource
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
  lookup (plural: string, group: string, namespace: string, name: string): Promise<Readonly<AnyObject> | undefined>
  /** Lists the current objects of a kind (from the watch cache). */
  list (plural: string, group: string, namespace?: string): AnyObject[]
  /** Lists the current objects of a kind from the watch cache, as fresh as this process's own writes to it (as lookup). */
  listRecent (plural: string, group: string, namespace?: string): Promise<AnyObject[]>
  /** Lists the objects of a kind as of the database's newest revision (waits for the watch cache to catch up). */
  listConsistent (plural: string, group: string, namespace?: string): Promise<AnyObject[]>
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
  name: string
  /** Runs whatever the flags say (checks that are part of a kind's storage upstream, such as RBAC escalation). */
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
  /** The mutating phase; on a create or update, repeated owner references are removed before and after it (with a warning). */
  mutate (a: AdmissionAttributes): Promise<void>
  validate (a: AdmissionAttributes): Promise<void>
  enabled (): string[]
  /** Whether the flags turn a plugin on (for plugins that read their configuration at start only when they run). */
  wants (plugin: string): boolean
  /** A plugin's configuration from --admission-control-config-file (with `baseDir`, the directory of the file that held it, and `source`, that file). */
  configuration (plugin: string): Record<string, any> | undefined
  /** The options the chain was built with, for plugins that take settings from flags. */
  readonly options: AdmissionOptions
}

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

/** Plugins on by default, as the reference server has them (those this server implements register themselves). */
export const DEFAULT_ENABLED = [
  'NamespaceLifecycle', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction',
  'DefaultIngressClass', 'DefaultStorageClass', 'DefaultTolerationSeconds', 'LimitRanger',
  'MutatingAdmissionWebhook', 'PersistentVolumeClaimResize', 'PodSecurity', 'Priority', 'ResourceQuota',
  'RuntimeClass', 'ServiceAccount', 'StorageObjectInUseProtection', 'TaintNodesByCondition',
  'ValidatingAdmissionWebhook'
]

declare module 'fastify' {
  interface FastifyInstance { admission: AdmissionChain }
}

export default fp(async function admission (fastify: FastifyInstance, opts: AdmissionOptions) {
  checkPluginNames(opts)
  const wanted = new Set([...DEFAULT_ENABLED, ...(opts.enable ?? [])])
  for (const name of opts.disable ?? []) wanted.delete(name)
  const configurations = opts.configFile === undefined ? new Map<string, Record<string, any>>() : readAdmissionConfigFile(opts.configFile)
  const plugins: AdmissionPlugin[] = []
  const mutateOnce = async (a: AdmissionAttributes): Promise<void> => {
    for (const p of plugins) if (p.mutate !== undefined && p.handles(a)) await p.mutate(a)
  }
  // apiserver_admission_step_admission_duration_seconds: each phase timed whole, rejected or not.
  const timed = async (type: 'admit' | 'validate', a: AdmissionAttributes, run: () => Promise<void>): Promise<void> => {
    const start = performance.now()
    let rejected = true
    try {
      await run()
      rejected = false
    } finally {
      fastify.metrics?.admissionStep(a.operation, type, rejected, (performance.now() - start) / 1000)
    }
  }
  const chain: AdmissionChain = {
    add (plugin) { if (plugin.alwaysOn === true || wanted.has(plugin.name)) plugins.push(plugin) },
    async mutate (a) {
      // The reference's create and update handlers bracket mutating admission so: plugins never
      // see repeated owner references, and repeats they add are removed too.
      const writes = a.operation === 'CREATE' || a.operation === 'UPDATE'
      if (writes) dedupOwnerReferences(a.object, a.warnings, false)
      await timed('admit', a, async () => {
        let again = false
        const state = new Map<string, unknown>()
        a.reinvocation = { isReinvoke: false, requestReinvoke: () => { again = true }, state }
        await mutateOnce(a)
        if (!again) return
        a.reinvocation = { isReinvoke: true, requestReinvoke: () => {}, state }
        await mutateOnce(a)
      })
      if (writes) dedupOwnerReferences(a.object, a.warnings, true)
    },
    validate (a) {
      return timed('validate', a, async () => {
        for (const p of plugins) if (p.validate !== undefined && p.handles(a)) await p.validate(a)
      })
    },
    enabled: () => plugins.map(p => p.name),
    wants: (name) => wanted.has(name),
    configuration: (name) => configurations.get(name),
    options: opts
  }
  fastify.decorate('admission', chain)
}, { name: 'admission' })
