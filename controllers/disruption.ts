// The disruption controller: keeps each PodDisruptionBudget's status current — how many of the
// pods it selects are healthy, how many should be, and so how many may be disrupted now — as
// resources/disruption-budget.ts computes it. A pod's expected count comes from the scale of its
// controller, read through whatever kind owns it: the kind's scale subresource view, so any kind
// with one (a custom resource's too) counts. Runs on changes of budgets, of pods in namespaces
// that have budgets, of objects with a scale there, and when a granted eviction's entry expires.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../resources/define.js'
import { GROUP_ALIASES } from '../resources/naming.js'
import { controllerRefOf, syncBudgetStatus, type ControllerScale, type ScaleReader } from '../resources/disruption-budget.js'
import type { ResourceStore } from '../storage/resource-store.js'
import type { CacheEvent } from '../storage/interface.js'
import { controllerLoop, writeStatusIfUnchanged } from './loop.js'

const NAME = 'disruption'
const MANAGER = 'disruption-controller'

const groupOf = (apiVersion: string): string => apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : ''

export default fp(async function disruptionController (fastify: FastifyInstance) {
  const budgets = (): ResourceStore => fastify.resources.find({ group: 'policy', resource: 'poddisruptionbudgets' })!
  const pods = (): ResourceStore => fastify.resources.find({ group: '', resource: 'pods' })!
  const scaled = (): ResourceStore[] => fastify.resources.all().filter(s => s.resource.subresources.scale?.view !== undefined)

  const namespaceOf = (store: ResourceStore, key: string): string => key.slice(store.prefix.length).split('/')[0] ?? ''
  const hasBudget = (namespace: string): boolean => budgets().cache.list(budgets().listPrefix(namespace)).length > 0

  /** The store of the kind an owner reference names, its group spelled either way. */
  function storeOfKind (group: string, kind: string): ResourceStore | undefined {
    const groups = [group, GROUP_ALIASES[group]]
    return fastify.resources.all().find(s => s.resource.kind === kind && groups.includes(s.resource.group) && s.resource.virtual === undefined)
  }

  /** A controller's scale from its cached object, as the reference's scale finders read it. */
  function scaleOf (ref: AnyObject, namespace: string): { scale: ControllerScale, obj: AnyObject } | undefined {
    const apiVersion = String(ref.apiVersion ?? '')
    const group = groupOf(apiVersion)
    const store = storeOfKind(group, String(ref.kind ?? ''))
    if (store === undefined) throw new Error(`no matches for kind ${JSON.stringify(ref.kind)} in version ${JSON.stringify(apiVersion)}`)
    const view = store.resource.subresources.scale?.view
    if (view === undefined) throw new Error(`${store.resource.plural}${group === '' ? '' : `.${group}`} does not implement the scale subresource`)
    const obj = store.cachedObject(store.resource.namespaced ? namespace : '', String(ref.name ?? ''))
    if (obj === undefined || obj.metadata?.uid !== ref.uid) return undefined
    const replicas = view.toView(obj).spec?.replicas
    return { scale: { uid: ref.uid, replicas: typeof replicas === 'number' ? replicas : 0 }, obj }
  }

  /**
   * A pod's controller's scale; a controller itself controlled by one with a scale (a Deployment's
   * ReplicaSet) counts by its controller's, as the reference's finders count them.
   */
  const readScale: ScaleReader = (ref, namespace) => {
    const found = scaleOf(ref, namespace)
    if (found === undefined) return undefined
    const parentRef = controllerRefOf(found.obj)
    if (parentRef !== undefined) {
      try {
        const parent = scaleOf(parentRef, namespace)
        if (parent !== undefined) return parent.scale
      } catch {
        // A parent without a scale leaves the controller counted by its own.
      }
    }
    return found.scale
  }

  const inBudgetNamespace = (store: () => ResourceStore) => (e: CacheEvent): boolean => hasBudget(namespaceOf(store(), e.key))

  controllerLoop(fastify, {
    name: NAME,
    watch: () => [
      budgets(),
      { store: pods(), when: inBudgetNamespace(pods) },
      ...scaled().map(s => ({ store: s, when: inBudgetNamespace(() => s) }))
    ],
    async sync () {
      const now = new Date()
      let again: number | undefined
      const soonest = (ms: number): void => { again = again === undefined ? ms : Math.min(again, ms) }
      for (const pdb of budgets().cachedObjects()) {
        const { status, recheckAt } = syncBudgetStatus(pdb, pods().cachedObjects(pdb.metadata.namespace), readScale, now)
        if (status !== undefined && !await writeStatusIfUnchanged(budgets(), pdb, status, MANAGER)) soonest(100)
        if (recheckAt !== undefined) soonest(Math.max(0, recheckAt - now.getTime()) + 10)
      }
      return again
    }
  })
}, { name: 'controller:disruption', dependencies: ['rest'] })
