// ResourceQuota: a write that would take a namespace past a quota's hard limits is refused
// (403, the reference plugin's words), else its usage is charged to the quotas' status.used
// BEFORE the object is written, by compare-and-swap on each quota's resourceVersion: of
// concurrent creates on any number of replicas each charge lands on the status the others
// left, so a quota is never overrun; a conflict re-reads the quota and checks again. A charge
// whose object then fails to be written is given back by the resourcequota controller, which
// recounts used from the objects themselves. Namespaces without quotas cost one cache look.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ApiError, forbidden } from '../resources/status.js'
import { APISERVER_USER } from '../resources/user-info.js'
import { evaluatorFor, quotaIgnores, quotaMatches, quotaScopes, type QuotaEvaluator, type ScopeRequirement } from '../resources/quota-evaluators.js'
import { addLists, exceeding, isNegativeQuantity, maskList, printList, subtractNonNegative, withoutZeros, type ResourceList } from '../resources/quantity.js'
import type { AnyObject } from '../resources/define.js'
import type { AdmissionAttributes } from '../resources/admission.js'

/** Charges that lost a compare-and-swap are checked again against the newer status this often. */
const MAX_ATTEMPTS = 32
const MANAGER = 'resource-quota-admission'

/** limitedResources of a ResourceQuotaConfiguration: resources only a covering quota lets be used. */
interface LimitedResource { apiGroup?: string, resource: string, matchContains?: string[], matchScopes?: ScopeRequirement[] }

/** The ResourceQuotaConfiguration's limitedResources; a malformed one stops start-up. */
function limitedResources (config: Record<string, any> | undefined): LimitedResource[] {
  if (config === undefined) return []
  const fail = (why: string): never => { throw new Error(`--admission-control-config-file: ResourceQuota's configuration ${why}`) }
  if (config.kind !== 'ResourceQuotaConfiguration') fail(`must be of kind ResourceQuotaConfiguration, not ${JSON.stringify(config.kind)}`)
  const list: unknown = config.limitedResources ?? []
  if (!Array.isArray(list)) fail('limitedResources must be a list')
  return (list as unknown[]).map((l, i) => {
    const r = l as LimitedResource
    if (typeof r !== 'object' || r === null || typeof r.resource !== 'string' || r.resource === '') fail(`limitedResources[${i}] needs a resource`)
    return { apiGroup: r.apiGroup ?? '', resource: r.resource, matchContains: r.matchContains ?? [], matchScopes: r.matchScopes ?? [] }
  })
}

interface Charge { name: string, resourceVersion: string, used: ResourceList }

const gr = (a: AdmissionAttributes) => ({ group: a.resource.group, resource: a.resource.plural })

/**
 * The reference CheckRequest: the quotas that apply, their constraints, and the new used of
 * each that the request changes; throws the refusal.
 */
function check (a: AdmissionAttributes, e: QuotaEvaluator, quotas: AnyObject[], limited: LimitedResource[]): Charge[] {
  const obj = a.object!
  const mine = limited.filter(l => (l.apiGroup ?? '') === a.resource.group && l.resource === a.resource.plural)
  const limitedScopes = limited.flatMap(l => (l.matchScopes ?? []).filter(s => e.matchesScope(s, obj)))
  const restrictedNames = new Set<string>()
  const restrictedScopes: ScopeRequirement[] = []
  const applying: AnyObject[] = []
  for (const q of quotas) {
    const hard: ResourceList = q.status?.hard ?? {}
    restrictedScopes.push(...quotaScopes(q).filter(s => e.matchesScope(s, obj)))
    if (!quotaMatches(e, q, hard, obj)) continue
    const restricted = e.matchingResources(Object.keys(hard))
    const problem = e.constraints?.(restricted, obj)
    if (problem !== undefined) throw forbidden(gr(a), a.name, `failed quota: ${String(q.metadata.name)}: ${problem}`)
    const unknown = restricted.filter(r => q.status?.used?.[r] === undefined)
    if (unknown.length > 0) throw forbidden(gr(a), a.name, `status unknown for quota: ${String(q.metadata.name)}, resources: ${restricted.sort().join(',')}`)
    applying.push(q)
    for (const r of restricted) restrictedNames.add(r)
  }
  const usage = e.usage(obj)
  const negative = Object.keys(usage).filter(k => isNegativeQuantity(usage[k]!))
  if (negative.length > 0) throw forbidden(gr(a), a.name, `quota usage is negative for resource(s): ${negative.sort().join(',')}`)
  const previous = a.operation === 'UPDATE' && a.oldObject !== undefined ? e.usage(a.oldObject) : undefined
  const deltas = new Map<AnyObject, ResourceList>()
  for (const q of applying) {
    const changed = previous !== undefined && quotaMatches(e, q, q.status?.hard ?? {}, a.oldObject!) ? subtractNonNegative(usage, previous) : usage
    const delta = withoutZeros(changed)
    if (Object.keys(delta).length > 0) deltas.set(q, delta)
  }
  if (applying.length > 0 ? deltas.size === 0 : Object.keys(withoutZeros(previous === undefined ? usage : subtractNonNegative(usage, previous))).length === 0) return []
  if (mine.length > 0) {
    const consumed = Object.keys(usage).filter(k => !isNegativeQuantity(usage[k]!) && usage[k] !== '0')
    const limitedNames = [...new Set(mine.flatMap(l => consumed.filter(k => (l.matchContains ?? []).some(c => k.includes(c)))))]
    const uncovered = limitedNames.filter(n => !restrictedNames.has(n)).sort()
    if (uncovered.length > 0) throw forbidden(gr(a), a.name, `insufficient quota to consume: ${uncovered.join(',')}`)
  }
  const uncoveredScopes = limitedScopes.filter(s => !restrictedScopes.some(r => r.scopeName === s.scopeName))
  if (uncoveredScopes.length > 0) {
    throw forbidden(gr(a), a.name, `insufficient quota to match these scopes: [${uncoveredScopes.map(s => `{${s.scopeName} ${s.operator} [${(s.values ?? []).join(' ')}]}`).join(' ')}]`)
  }
  const charges: Charge[] = []
  for (const [q, delta] of deltas) {
    const hard: ResourceList = q.status.hard
    const used: ResourceList = q.status.used ?? {}
    const requested = maskList(delta, Object.keys(hard))
    const next = addLists(used, requested)
    if (a.subresource !== 'status') {
      const over = exceeding(maskList(next, Object.keys(requested)), hard)
      if (over.length > 0) {
        throw forbidden(gr(a), a.name, `exceeded quota: ${String(q.metadata.name)}, requested: ${printList(maskList(requested, over))}, used: ${printList(maskList(used, over))}, limited: ${printList(maskList(hard, over))}`)
      }
    }
    charges.push({ name: q.metadata.name, resourceVersion: q.metadata.resourceVersion, used: next })
  }
  return charges
}

export default fp(async function resourceQuota (fastify: FastifyInstance) {
  const limited = limitedResources(fastify.admission.configuration('ResourceQuota'))
  const quotaStore = () => fastify.resources.find({ group: '', resource: 'resourcequotas' })!
  const caller = () => ({ user: { ...APISERVER_USER, groups: [...APISERVER_USER.groups] }, manager: MANAGER, warnings: [] })

  /** Writes one charge: the new used, on the status read; false when the quota changed since. */
  async function charge (namespace: string, c: Charge): Promise<boolean> {
    const store = quotaStore()
    try {
      await store.update(namespace, c.name,
        (old) => ({ ...old, metadata: { ...old.metadata, resourceVersion: c.resourceVersion }, status: { ...old.status, used: c.used } }),
        { dryRun: false, fieldValidation: 'Ignore', force: false, subresource: 'status' }, caller())
      return true
    } catch (err) {
      // Changed (another charge, the controller) or deleted meanwhile: look again.
      if (err instanceof ApiError && (err.code === 409 || err.code === 404)) return false
      throw err
    }
  }

  async function admit (a: AdmissionAttributes, e: QuotaEvaluator): Promise<void> {
    let quotas = await a.listRecent({ group: '', resource: 'resourcequotas' }, a.namespace)
    for (let attempt = 1; ; attempt++) {
      const charges = check(a, e, quotas, limited)
      if (charges.length === 0 || a.dryRun) return
      const failed = new Set<string>()
      for (const c of charges) if (!await charge(a.namespace, c)) failed.add(c.name)
      if (failed.size === 0) return
      if (attempt >= MAX_ATTEMPTS) throw forbidden(gr(a), a.name, `unable to update quota status: the quotas ${[...failed].sort().join(',')} kept changing`)
      // Only the quotas whose charge did not land are checked again, at the database's newest state.
      quotas = (await a.listConsistent({ group: '', resource: 'resourcequotas' }, a.namespace)).filter(q => failed.has(q.metadata.name))
    }
  }

  // Charges to one namespace's quotas from this process go one at a time: they would only
  // conflict with each other (other replicas' charges still can, and are retried).
  const queues = new Map<string, Promise<void>>()
  function serialised (namespace: string, run: () => Promise<void>): Promise<void> {
    const before = queues.get(namespace) ?? Promise.resolve()
    const mine = before.then(run, run)
    const tail = mine.then(() => {}, () => {})
    queues.set(namespace, tail)
    void tail.then(() => { if (queues.get(namespace) === tail) queues.delete(namespace) })
    return mine
  }

  fastify.admission.add({
    name: 'ResourceQuota',
    handles: (a) => a.namespace !== '' && a.object !== undefined && (a.operation === 'CREATE' || a.operation === 'UPDATE') &&
      !quotaIgnores(a.resource) && evaluatorFor(a.resource.plural, a.resource.group).handles(a.operation, a.subresource),
    async validate (a) {
      const store = quotaStore()
      // No quota and nothing limited: one look at the cache, no parse, no database read (and no
      // listing at all while no namespace has a quota).
      if (limited.length === 0 && !anyQuota(store, a.namespace)) {
        await store.caughtUp()
        if (!anyQuota(store, a.namespace)) return
      }
      const e = evaluatorFor(a.resource.plural, a.resource.group)
      await serialised(a.namespace, () => admit(a, e))
    }
  })
}, { name: 'admission:resource-quota', dependencies: ['admission'] })

/** Whether the namespace has a ResourceQuota in the cache. */
function anyQuota (store: { cache: { size: number, list: (prefix: string) => unknown[] }, listPrefix: (namespace: string) => string }, namespace: string): boolean {
  return store.cache.size > 0 && store.cache.list(store.listPrefix(namespace)).length > 0
}
