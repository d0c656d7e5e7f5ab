// Resource-quota controller: keeps each quota's status current — hard as its spec says, used
// as counted from the objects in its namespace (through the evaluators admission charges
// with). A quota is recounted when its spec's limits differ from its status (new or edited),
// when something in its namespace is deleted or stops counting (a pod that finished, a claim
// or service that changed), and at a full resync every five minutes, which also gives back
// charges admission made for objects that were never written. Admission's own status updates
// trigger nothing: they keep spec and status limits equal.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { evaluatorFor, quotaIgnores, quotaScopes } from '../resources/quota-evaluators.js'
import { addLists, listsEqual, maskList, type ResourceList } from '../resources/quantity.js'
import type { AnyObject } from '../resources/define.js'
import type { ResourceStore } from '../storage/resource-store.js'
import type { CacheEvent } from '../storage/interface.js'
import { controllerLoop, writeStatusIfUnchanged } from './loop.js'

const NAME = 'resourcequota'
const MANAGER = 'resourcequota-controller'
/** The reference controller manager's --resource-quota-sync-period. */
const FULL_RESYNC_MS = 5 * 60_000
const TERMINAL_PHASES = ['Succeeded', 'Failed']

/** Whether the controller has yet to bring a quota's status in line with its spec. */
const unsynced = (q: AnyObject): boolean => q.status?.hard === undefined || q.status?.used === undefined || !listsEqual(q.spec?.hard, q.status?.hard)

export default fp(async function resourceQuotaController (fastify: FastifyInstance) {
  const quotas = (): ResourceStore => fastify.resources.find({ group: '', resource: 'resourcequotas' })!
  const counted = (): ResourceStore[] => fastify.resources.all().filter(s => !quotaIgnores(s.resource))
  /** Namespaces whose quotas the next sync recounts. */
  const dirty = new Set<string>()
  let nextFull = 0

  const namespaceOf = (store: ResourceStore, key: string): string => key.slice(store.prefix.length).split('/')[0] ?? ''
  const hasQuota = (namespace: string): boolean => quotas().cache.list(quotas().listPrefix(namespace)).length > 0

  /** Whether an event can lower what a quota counts: a deletion, or an object that stopped counting. */
  function releases (store: ResourceStore, e: CacheEvent): boolean {
    if (e.type !== 'DELETED' && e.type !== 'MODIFIED') return false
    const { plural, group } = store.resource
    if (e.type === 'MODIFIED') {
      if (group !== '') return false
      if (plural === 'pods') { if (!TERMINAL_PHASES.includes(JSON.parse(e.json).status?.phase)) return false } else if (plural !== 'services' && plural !== 'persistentvolumeclaims') return false
    }
    const namespace = namespaceOf(store, e.key)
    if (!hasQuota(namespace)) return false
    dirty.add(namespace)
    return true
  }

  /** What a namespace uses of the quota's hard resources, counted from the caches. */
  function usage (q: AnyObject, hard: ResourceList): ResourceList {
    const names = Object.keys(hard)
    const scopes = quotaScopes(q)
    let used: ResourceList = {}
    for (const store of counted()) {
      const e = evaluatorFor(store.resource.plural, store.resource.group)
      const matched = e.matchingResources(names)
      if (matched.length === 0) continue
      for (const n of matched) used[n] ??= '0'
      for (const obj of store.cachedObjects(q.metadata.namespace)) {
        if (scopes.every(s => e.matchesScope(s, obj))) used = addLists(used, maskList(e.usage(obj), matched))
      }
    }
    return used
  }

  /** Writes a quota's status when it changed; false when the quota changed meanwhile. */
  async function syncQuota (q: AnyObject): Promise<boolean> {
    const hard: ResourceList = { ...(q.spec?.hard ?? {}) }
    const used = maskList({ ...(q.status?.used ?? {}), ...usage(q, hard) }, Object.keys(hard))
    if (!unsynced(q) && listsEqual(used, q.status.used)) return true
    // Conditional on the status read: a charge admission made since is never overwritten.
    return await writeStatusIfUnchanged(quotas(), q, { hard, used }, MANAGER)
  }

  controllerLoop(fastify, {
    name: NAME,
    resyncMs: FULL_RESYNC_MS,
    watch: () => [
      { store: quotas(), when: (e) => e.type !== 'DELETED' && unsynced(JSON.parse(e.json)) },
      ...counted().map(store => ({ store, when: (e: CacheEvent) => releases(store, e) }))
    ],
    async sync () {
      const full = Date.now() >= nextFull
      if (full) nextFull = Date.now() + FULL_RESYNC_MS
      const namespaces = new Set(dirty)
      dirty.clear()
      let again: number | undefined
      for (const q of quotas().cachedObjects()) {
        if (!full && !namespaces.has(q.metadata.namespace) && !unsynced(q)) continue
        if (!await syncQuota(q)) {
          dirty.add(q.metadata.namespace)
          again = 100
        }
      }
      return again
    }
  })
}, { name: 'controller:resourcequota', dependencies: ['rest'] })
