// What an admission plugin sees of a request, with look-ups into other kinds' caches.
import type { AnyObject, Resource } from '../../resources/define.js'
import type { CachedObject, StoredObject, WatchCache } from '../../storage/interface.js'
import type { AdmissionAttributes, Operation } from '../../admission/chain.js'
import type { Caller } from './store.js'

/** A kind's store, as look-ups reach it. */
export interface LookupTarget {
  readonly cache: WatchCache
  key (namespace: string, name: string): string
  listPrefix (namespace: string): string
  readRecent (key: string, name: string): Promise<StoredObject | CachedObject | undefined>
  freshen (rv: number | undefined): Promise<void>
  caughtUp (): Promise<void>
}

/** How the store reaches other kinds (admission look-ups). */
export interface LookupRegistry {
  find (plural: string, group: string): LookupTarget | undefined
}

export interface AdmissionRequest {
  operation: Operation
  namespace: string
  name: string
  subresource: string
  caller: Caller
  dryRun: boolean
  object?: AnyObject
  oldObject?: AnyObject
}

export function admissionAttributes (resource: Resource, registry: LookupRegistry, r: AdmissionRequest): AdmissionAttributes {
  return {
    operation: r.operation, resource, subresource: r.subresource, namespace: resource.namespaced ? r.namespace : '', name: r.name,
    object: r.object, oldObject: r.oldObject, user: r.caller.user, dryRun: r.dryRun, warnings: r.caller.warnings,
    auditAnnotations: r.caller.auditAnnotations ??= {}, fieldManager: r.caller.manager,
    lookup: async (plural, group, ns, n) => {
      const store = registry.find(plural, group)
      if (store === undefined) return undefined
      // As fresh as this process's own writes: a namespace it marked terminating a moment
      // ago refuses new objects, and no create waits on a revision query.
      const found = await store.readRecent(store.key(ns, n), n)
      return found === undefined ? undefined : parsedLookup(found)
    },
    list: (plural, group, ns) => {
      const store = registry.find(plural, group)
      if (store === undefined) return []
      return store.cache.list(store.listPrefix(ns ?? '')).map(o => JSON.parse(o.json))
    },
    listRecent: async (plural, group, ns) => {
      const store = registry.find(plural, group)
      if (store === undefined) return []
      await store.caughtUp()
      return store.cache.list(store.listPrefix(ns ?? '')).map(o => JSON.parse(o.json))
    },
    listConsistent: async (plural, group, ns) => {
      const store = registry.find(plural, group)
      if (store === undefined) return []
      await store.freshen(undefined)
      return store.cache.list(store.listPrefix(ns ?? '')).map(o => JSON.parse(o.json))
    }
  }
}

/**
 * Lookups parse each cached object once: every create in a namespace looks the namespace up.
 * Frozen, because every caller shares the one copy.
 */
const lookups = new WeakMap<StoredObject | CachedObject, AnyObject>()
function parsedLookup (found: StoredObject | CachedObject): AnyObject {
  let obj = lookups.get(found)
  if (obj === undefined) {
    obj = deepFreeze(JSON.parse(found.json) as AnyObject)
    lookups.set(found, obj)
  }
  return obj
}
function deepFreeze<T> (value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

