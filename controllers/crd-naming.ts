// The reference apiextensions server's naming, establishing and finalizer controllers, as one
// loop over CustomResourceDefinitions: each definition's requested names are accepted unless an
// older definition of the same group already holds them (NamesAccepted), a definition whose
// names are accepted is Established, and a deleted one sets Terminating, has its instances
// deleted (the seam `deleteInstances`) and loses its cleanup finalizer.
import fp from 'fastify-plugin'
import { isDeepStrictEqual } from 'node:util'
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../resources/define.js'
import { ApiError } from '../resources/status.js'
import { FINALIZERS, GROUPS } from '../resources/naming.js'
import { CRD_CONDITIONS, conditionOf } from '../resources/customresourcedefinitions.js'
import { CONTROLLER_WRITE, controllerCaller, controllerLoop } from './loop.js'

const MANAGER = 'apiextensions-controller'
const RETRY_MS = 1000

interface Condition { type: string, status: string, reason?: string, message?: string, lastTransitionTime?: string | null }
interface Names { plural?: string, singular?: string, shortNames?: string[], kind?: string, listKind?: string, categories?: string[] }
/** What other definitions of a group have been granted: resource names and kind names apart, as the reference keeps them. */
interface Taken { resources: Set<string>, kinds: Set<string> }

/** A condition set as SetCRDCondition does: the transition time moves only when the status does. */
function setCondition (conditions: Condition[], next: Condition, now: string): Condition[] {
  const before = conditions.find(c => c.type === next.type)
  const lastTransitionTime = before !== undefined && before.status === next.status && before.lastTransitionTime != null ? before.lastTransitionTime : now
  const merged = { ...next, lastTransitionTime }
  return before === undefined ? [...conditions, merged] : conditions.map(c => c.type === next.type ? merged : c)
}

/** equalToAcceptedOrFresh: a name is ours when we already hold it or nobody else does. */
const conflictOf = (requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined =>
  requested === accepted || requested === undefined || !used.has(requested) ? undefined : `"${requested}" is already in use`

/**
 * calculateNamesAndConditions of the reference naming controller: the names granted and the
 * NamesAccepted condition; the last conflict found names the reason.
 */
export function acceptNames (crd: AnyObject, taken: Taken): { names: Names, namesAccepted: Condition } {
  const requested: Names = crd.spec?.names ?? {}
  const accepted: Names = crd.status?.acceptedNames ?? {}
  const names: Names = { ...accepted }
  let refused: { reason: string, message: string } | undefined
  const check = (field: 'plural' | 'singular' | 'kind' | 'listKind', reason: string, used: Set<string>) => {
    const problem = conflictOf(requested[field], accepted[field], used)
    if (problem === undefined) names[field] = requested[field]
    else refused = { reason, message: problem }
  }
  check('plural', 'PluralConflict', taken.resources)
  check('singular', 'SingularConflict', taken.resources)
  if (!isDeepStrictEqual(requested.shortNames ?? [], accepted.shortNames ?? [])) {
    const ours = new Set(accepted.shortNames ?? [])
    const problems = (requested.shortNames ?? []).filter(s => !ours.has(s)).map(s => conflictOf(s, '', taken.resources)).filter(p => p !== undefined)
    if (problems.length > 0) refused = { reason: 'ShortNamesConflict', message: problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]` }
    else names.shortNames = requested.shortNames
  }
  check('kind', 'KindConflict', taken.kinds)
  check('listKind', 'ListKindConflict', taken.kinds)
  names.categories = requested.categories
  for (const k of Object.keys(names) as Array<keyof Names>) if (names[k] === undefined) delete names[k]
  const namesAccepted: Condition = refused === undefined
    ? { type: CRD_CONDITIONS.namesAccepted, status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }
    : { type: CRD_CONDITIONS.namesAccepted, status: 'False', ...refused }
  return { names, namesAccepted }
}

/**
 * The status a definition should have given what others of its group hold. The reference
 * establishes in a second controller once its handler serves the names; here every replica
 * serves an established definition within moments (plugins/custom-resources), so accepted names
 * are established at once.
 */
export function desiredStatus (crd: AnyObject, taken: Taken, now: string): AnyObject {
  const { names, namesAccepted } = acceptNames(crd, taken)
  let conditions: Condition[] = Array.isArray(crd.status?.conditions) ? crd.status.conditions : []
  conditions = setCondition(conditions, namesAccepted, now)
  const established = conditionOf(crd, CRD_CONDITIONS.established)
  if (established?.status !== 'True') {
    conditions = setCondition(conditions, namesAccepted.status === 'True'
      ? { type: CRD_CONDITIONS.established, status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }
      : { type: CRD_CONDITIONS.established, status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now)
  }
  return { ...(crd.status ?? {}), acceptedNames: names, conditions }
}

/** The names a definition's group already gives away, from every other definition's accepted names. */
function takenBy (others: AnyObject[]): Taken {
  const taken: Taken = { resources: new Set(), kinds: new Set() }
  for (const o of others) {
    const a: Names = o.status?.acceptedNames ?? {}
    for (const r of [a.plural, a.singular, ...(a.shortNames ?? [])]) if (r) taken.resources.add(r)
    for (const k of [a.kind, a.listKind]) if (k) taken.kinds.add(k)
  }
  return taken
}

const byAge = (a: AnyObject, b: AnyObject): number =>
  String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')) || String(a.metadata.name).localeCompare(String(b.metadata.name))

export interface CrdControllerOptions {
  /** Deletes every instance of a terminating definition; resolves true once none is left. Default: through the kind's store. */
  deleteInstances?: (crd: AnyObject) => Promise<boolean>
}

/**
 * The reference finalizer's instance deletion: every instance deleted (those with finalizers
 * of their own wait for them), done once none is left. A definition never served has none.
 */
async function deleteThroughStore (fastify: FastifyInstance, crd: AnyObject, caller: ReturnType<typeof controllerCaller>): Promise<boolean> {
  const names = crd.status?.acceptedNames ?? {}
  const store = names.plural === undefined ? undefined : fastify.resources.find({ group: crd.spec.group, resource: names.plural })
  if (store === undefined || store.resource.kind !== names.kind) return true
  await store.caughtUp()
  for (const obj of store.cachedObjects()) {
    if (obj.metadata.deletionTimestamp !== undefined) continue
    try {
      await store.delete(obj.metadata.namespace ?? '', obj.metadata.name, { dryRun: false }, caller)
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err
    }
  }
  await store.caughtUp()
  return store.cachedObjects().length === 0
}

export default fp<CrdControllerOptions>(async function crdNaming (fastify: FastifyInstance, opts: CrdControllerOptions) {
  const crds = () => fastify.resources.find({ group: GROUPS.apiextensions, resource: 'customresourcedefinitions' })!
  const caller = controllerCaller(MANAGER)
  const deleteInstances = opts.deleteInstances ?? (async (crd: AnyObject) => await deleteThroughStore(fastify, crd, caller))

  async function writeStatus (name: string, status: (old: AnyObject) => AnyObject): Promise<void> {
    try {
      await crds().update('', name, (old) => ({ ...old, status: status(old) }), { ...CONTROLLER_WRITE, subresource: 'status' }, caller)
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err
    }
  }

  /** The finalizer controller: Terminating, the instances, then the finalizer. False while instances remain. */
  async function finalize (crd: AnyObject): Promise<boolean> {
    const name = crd.metadata.name
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z')
    const progress = (c: Condition) => (old: AnyObject) => ({ ...(old.status ?? {}), conditions: setCondition(old.status?.conditions ?? [], c, now) })
    await writeStatus(name, progress({ type: CRD_CONDITIONS.terminating, status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }))
    if (!(await deleteInstances(crd))) return false
    await writeStatus(name, progress({ type: CRD_CONDITIONS.terminating, status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' }))
    try {
      await crds().update('', name, (old) => ({
        ...old, metadata: { ...old.metadata, finalizers: (old.metadata.finalizers ?? []).filter((f: string) => f !== FINALIZERS.customResourceCleanup) }
      }), { ...CONTROLLER_WRITE, subresource: '' }, caller)
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err
    }
    return true
  }

  controllerLoop(fastify, {
    name: 'apiextensions',
    watch: () => [crds()],
    async sync () {
      const all = crds().cachedObjects().sort(byAge)
      let again = false
      // Oldest first, each seeing the names granted so far in this pass: the older holder keeps a contested name.
      const granted = new Map<string, AnyObject>()
      for (const crd of all) {
        const name: string = crd.metadata.name
        if (crd.metadata.deletionTimestamp !== undefined) {
          if ((crd.metadata.finalizers ?? []).includes(FINALIZERS.customResourceCleanup) && !(await finalize(crd))) again = true
          continue
        }
        const group = crd.spec?.group
        const others = all.filter(o => o.metadata.name !== name && o.spec?.group === group).map(o => granted.get(o.metadata.name) ?? o)
        const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z')
        const status = desiredStatus(crd, takenBy(others), now)
        granted.set(name, { ...crd, status })
        if (isDeepStrictEqual(status, crd.status)) continue
        await writeStatus(name, (old) => desiredStatus(old, takenBy(others), now))
      }
      return again ? RETRY_MS : undefined
    }
  })
}, { name: 'controller:apiextensions', dependencies: ['rest'] })
