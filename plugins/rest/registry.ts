// The kinds the server knows (`fastify.resources`): each kind's store, and the paths that
// reach it — its own group version, its older versions, and other groups' forms of it.
import type { FastifyInstance } from 'fastify'
import { keyPrefix, type AnyObject, type Resource, type VersionLifecycle } from '../../resources/define.js'
import { featureGates, type FeatureGates } from '../../resources/feature-gates.js'
import type { StoragePools } from '../../storage/value-pools.js'
import { GenericStore } from './store.js'
import type { ConvertedServing, ResourceRegistry } from './resource-registry.js'

export interface RegistryOptions {
  /** Whether a kind's group version is served (--runtime-config); a kind not served is still stored. */
  served?: (group: string, version: string, plural: string, removed?: boolean) => boolean
  /** --feature-gates; every gate at its default when absent. */
  features?: FeatureGates
}

const pathOf = (group: string, version: string, plural: string): string => `${group}/${version}/${plural}`

/** A converted form as discovery lists it: the stored kind's endpoints under the form's names and schema. */
function convertedView (stored: Resource, conversion: ConvertedServing['conversion']): Resource {
  return {
    ...stored,
    group: conversion.group,
    version: conversion.version,
    apiVersion: `${conversion.group}/${conversion.version}`,
    kind: conversion.kind,
    listKind: `${conversion.kind}List`,
    schema: conversion.schema,
    columns: conversion.columns,
    fieldSelectors: undefined,
    subresources: Object.fromEntries((conversion.subresources ?? []).flatMap(name => stored.subresources[name] === undefined ? [] : [[name, stored.subresources[name]!]])),
    // A deprecated form lists itself, as the deprecation hooks look for.
    olderVersions: conversion.deprecated === undefined ? undefined : [conversion],
    servedAs: undefined
  }
}

export function createRegistry (fastify: FastifyInstance, pools: StoragePools, opts: RegistryOptions): ResourceRegistry {
  const stores: GenericStore[] = []
  const served: Resource[] = []
  const olderVersions = new Map<string, VersionLifecycle>()
  const convertedVersions = new Map<string, ConvertedServing>()
  const byPath = new Map<string, GenericStore>()
  const byGroupResource = new Map<string, GenericStore>()
  const isServed = (group: string, version: string, plural: string, removed?: boolean): boolean =>
    opts.served?.(group, version, plural, removed) !== false

  let generation = 0
  const listeners = new Set<() => void>()
  const changed = (): void => {
    generation++
    for (const listener of [...listeners]) listener()
  }
  // Each kind's paths, so a kind added at run time can be taken away again.
  const pathsOf = new Map<GenericStore, string[]>()
  const serve = (store: GenericStore, path: string, view: Resource): void => {
    served.push(view)
    byPath.set(path, store)
    pathsOf.get(store)!.push(path)
  }

  const registry: ResourceRegistry = {
    get generation () { return generation },
    add (resource) {
      const defaults = resource.defaultOnRead
      const transform = defaults === undefined
        ? undefined
        : (json: string): string => {
            const obj = JSON.parse(json) as AnyObject
            defaults(obj)
            // The same text when nothing was missing: the stored string is kept.
            const out = JSON.stringify(obj)
            return out === json ? json : out
          }
      const cache = fastify.watchCaches.register(keyPrefix(resource), (obj: AnyObject) => store.attrs(obj), { transform })
      // Its own subresource table: addSubresource must not reach kinds of other app instances.
      const store: GenericStore = new GenericStore({ ...resource, subresources: { ...resource.subresources } }, fastify.storage, cache, fastify.admission, registry, pools)
      stores.push(store)
      pathsOf.set(store, [])
      byGroupResource.set(`${resource.plural}.${resource.group}`, store)
      const gated = resource.featureGate !== undefined && !registry.features.enabled(resource.featureGate)
      if (gated) {
        changed()
        return store
      }
      if (resource.versionServed !== false && isServed(resource.group, resource.version, resource.plural)) {
        serve(store, pathOf(resource.group, resource.version, resource.plural), store.resource)
        if (resource.lifecycle?.deprecated !== undefined) olderVersions.set(pathOf(resource.group, resource.version, resource.plural), resource.lifecycle)
      }
      // Older versions: the same store, the objects' apiVersion rewritten on the way in and out.
      for (const older of resource.olderVersions ?? []) {
        if (!isServed(resource.group, older.version, resource.plural, older.removed !== undefined)) continue
        const path = pathOf(resource.group, older.version, resource.plural)
        serve(store, path, { ...store.resource, version: older.version, apiVersion: `${resource.group}/${older.version}`, ...(older.schema === undefined ? {} : { schema: older.schema }) })
        olderVersions.set(path, older)
      }
      // Other groups' forms of the kind: the same store, objects converted on the way in and out.
      for (const conversion of resource.servedAs ?? []) {
        if (!isServed(conversion.group, conversion.version, resource.plural, conversion.removed !== undefined)) continue
        const path = pathOf(conversion.group, conversion.version, resource.plural)
        const view = convertedView(store.resource, conversion)
        serve(store, path, view)
        // find() by the served group reaches the store too (discovery's storage version hash).
        byGroupResource.set(`${resource.plural}.${conversion.group}`, store)
        convertedVersions.set(path, { conversion, served: view })
        if (conversion.deprecated !== undefined) olderVersions.set(path, conversion)
      }
      changed()
      return store
    },
    onChange (listener) {
      listeners.add(listener)
      return () => { listeners.delete(listener) }
    },
    remove ({ group, resource: plural }) {
      const store = byGroupResource.get(`${plural}.${group}`)
      if (store === undefined) return
      const paths = new Set(pathsOf.get(store))
      for (const path of paths) {
        byPath.delete(path)
        olderVersions.delete(path)
        convertedVersions.delete(path)
      }
      for (const [key, s] of byGroupResource) if (s === store) byGroupResource.delete(key)
      pathsOf.delete(store)
      stores.splice(stores.indexOf(store), 1)
      for (let i = served.length - 1; i >= 0; i--) {
        const r = served[i]!
        if (paths.has(pathOf(r.group, r.version, r.plural))) served.splice(i, 1)
      }
      fastify.watchCaches.unregister(store.prefix)
      changed()
    },
    all: () => stores,
    features: opts.features ?? featureGates(),
    served: () => served,
    olderVersion: (group, version, plural) => olderVersions.get(pathOf(group, version, plural)),
    converted: (group, version, plural) => convertedVersions.get(pathOf(group, version, plural)),
    lookup: (group, version, plural) => byPath.get(pathOf(group, version, plural)),
    find: ({ group, resource: plural }) => byGroupResource.get(`${plural}.${group}`),
    addValidation ({ group, resource: plural }, check) {
      const store = byGroupResource.get(`${plural}.${group}`)
      if (store === undefined) throw new Error(`validation of unknown resource ${plural}.${group}`)
      // The store's own copy of the definition gets a strategy of its own: other apps' stay as they are.
      const strategy = store.resource.strategy
      const own = strategy.validate
      store.resource.strategy = {
        ...strategy,
        validate: (obj, ctx) => {
          const found = own?.(obj, ctx) ?? []
          return [...found, ...check(obj, found)]
        }
      }
    },
    addSubresource ({ group, resource: plural }, name, def) {
      const store = byGroupResource.get(`${plural}.${group}`)
      if (store === undefined) throw new Error(`subresource ${name} of unknown resource ${plural}.${group}`)
      store.resource.subresources[name] = def
    }
  }
  return registry
}
