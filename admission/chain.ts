// The admission chain: enabled plugins' mutate phase, then their validate phase, run inside the
// generic store with the old object at hand. Any rejection fails the whole request.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject, Resource } from '../resources/define.js'
import type { UserInfo } from '../resources/user-info.js'
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
  /** Lists the objects of a kind as of the database's newest revision (waits for the watch cache to catch up). */
  listConsistent (plural: string, group: string, namespace?: string): Promise<AnyObject[]>
  /** Warnings for the client. */
  warnings: string[]
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
  mutate (a: AdmissionAttributes): Promise<void>
  validate (a: AdmissionAttributes): Promise<void>
  enabled (): string[]
  /** The options the chain was built with, for plugins that take settings from flags. */
  readonly options: AdmissionOptions
}

export interface AdmissionOptions {
  /** --enable-admission-plugins: added to the defaults. */
  enable?: string[]
  /** --disable-admission-plugins: removed even when on by default. */
  disable?: string[]
  /** --default-not-ready-toleration-seconds (DefaultTolerationSeconds; 300 when unset). */
  defaultNotReadyTolerationSeconds?: number
  /** --default-unreachable-toleration-seconds (DefaultTolerationSeconds; 300 when unset). */
  defaultUnreachableTolerationSeconds?: number
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
  const plugins: AdmissionPlugin[] = []
  const chain: AdmissionChain = {
    add (plugin) { if (plugin.alwaysOn === true || wanted.has(plugin.name)) plugins.push(plugin) },
    async mutate (a) {
      for (const p of plugins) if (p.mutate !== undefined && p.handles(a)) await p.mutate(a)
    },
    async validate (a) {
      for (const p of plugins) if (p.validate !== undefined && p.handles(a)) await p.validate(a)
    },
    enabled: () => plugins.map(p => p.name),
    options: opts
  }
  fastify.decorate('admission', chain)
}, { name: 'admission' })
