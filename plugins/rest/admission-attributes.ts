// What an admission plugin sees of a request, with look-ups into other kinds' caches.
import type { AnyObject, Resource } from '../../resources/define.js'
import type { CachedObject, StoredObject } from '../../storage/interface.js'
import type { AdmissionAttributes, Operation } from '../../resources/admission.js'
import type { Caller, ResourceStores } from '../../storage/resource-store.js'

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

export function admissionAttributes (resource: Resource, registry: ResourceStores, r: AdmissionRequest): AdmissionAttributes {
  return {
    operation: r.operation, resource, requestedAs: r.caller.requestedAs, subresource: r.subresource, namespace: resource.namespaced ? r.namespace : '', name: r.name,
    object: r.object, oldObject: r.oldObject, user: r.caller.user, dryRun: r.dryRun, warnings: r.caller.warnings,
    auditAnnotations: r.caller.auditAnnotations ??= {}, fieldManager: r.caller.manager,
    lookup: async (gr, ns, n) => {
      const store = registry.find(gr)
      if (store === undefined) return undefined
      // As fresh as this process's own writes: a namespace it marked terminating a moment
      // ago refuses new objects, and no create waits on a revision query.
      const found = await store.readRecent(store.key(ns, n), n)
      return found === undefined ? undefined : parsedLookup(found)
    },
    list: (gr, ns) => registry.find(gr)?.cachedObjects(ns) ?? [],
    listRecent: async (gr, ns) => {
      const store = registry.find(gr)
      await store?.caughtUp()
      return store?.cachedObjects(ns) ?? []
    },
    listConsistent: async (gr, ns) => {
      const store = registry.find(gr)
      await store?.freshen(undefined)
      return store?.cachedObjects(ns) ?? []
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

