// pods/eviction: a delete a PodDisruptionBudget may refuse. POST an Eviction for a pod: the pod
// is deleted (with the Eviction's deleteOptions, after its DisruptionTarget condition is set)
// when no budget forbids it; a budget that allows a disruption is charged first (its
// disruptionsAllowed taken down, the pod recorded in disruptedPods, by compare-and-swap); one
// that allows none answers 429 in the reference's words. The decision is the reference's
// EvictionREST's (resources/disruption-budget.ts).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject, RequestContext } from '../resources/define.js'
import { ApiError, badRequest } from '../resources/status.js'
import { evictionVerdict, isoSeconds } from '../resources/disruption-budget.js'
import type { Caller, DeleteOptions } from '../storage/resource-store.js'
import { parseDeleteOptions } from './rest/options.js'

const PODS = { group: '', resource: 'pods' }
const BUDGETS = { group: 'policy', resource: 'poddisruptionbudgets' }
/** How often a budget charged meanwhile by another eviction is read again (the reference's EvictionsRetry). */
const ATTEMPTS = 5
const MANAGER = 'eviction'

const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }

/** The Eviction's deleteOptions, checked as a DELETE's are, dry run from either the query or the options. */
function deleteOptionsOf (eviction: AnyObject, dryRun: boolean): DeleteOptions {
  const options = eviction.deleteOptions
  const parsed = parseDeleteOptions({}, options != null && typeof options === 'object' && !Array.isArray(options) ? options : undefined)
  return { ...parsed, dryRun: parsed.dryRun || dryRun }
}

const isConflict = (err: unknown): boolean => err instanceof ApiError && err.code === 409

export default fp(async function podEviction (fastify: FastifyInstance) {
  const pods = () => fastify.resources.find(PODS)!
  const budgets = () => fastify.resources.find(BUDGETS)

  /** Sets the pod's DisruptionTarget condition, then deletes it; a stale precondition is a 409. */
  async function disruptAndDelete (namespace: string, name: string, opts: DeleteOptions, caller: Caller): Promise<void> {
    if (!opts.dryRun) {
      const rv = opts.preconditions?.resourceVersion
      await pods().update(namespace, name, (pod) => {
        const conditions = (pod.status?.conditions ?? []).filter((c: AnyObject) => c.type !== 'DisruptionTarget')
        conditions.push({ type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: isoSeconds(new Date()), reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' })
        return { ...pod, metadata: { ...pod.metadata, ...(rv === undefined ? {} : { resourceVersion: rv }) }, status: { ...pod.status, conditions } }
      }, { dryRun: false, fieldValidation: 'Ignore', force: false, subresource: 'status' }, caller)
    }
    // The condition's write moved the pod's version on: the caller's precondition was checked by it.
    const { resourceVersion: _checked, ...preconditions } = opts.preconditions ?? {}
    await pods().delete(namespace, name, { ...opts, preconditions }, caller)
  }

  async function evict (ctx: RequestContext, parent: AnyObject, eviction: AnyObject): Promise<AnyObject> {
    const name = String(parent.metadata.name)
    const namespace = String(parent.metadata.namespace)
    if (eviction.metadata?.name !== name) throw badRequest('name in URL does not match name in Eviction object')
    const requested = deleteOptionsOf(eviction, ctx.dryRun)
    const caller: Caller = { user: ctx.user ?? { username: '', groups: [] }, manager: MANAGER, warnings: ctx.warnings }
    for (let attempt = 1; ; attempt++) {
      const pod = JSON.parse((await pods().get(namespace, name)).json) as AnyObject
      const verdict = evictionVerdict(pod, budgets()?.cachedObjects(namespace) ?? [], new Date(), requested.dryRun)
      if (verdict.action === 'refuse') throw verdict.error
      if (verdict.action === 'disrupt') {
        const store = budgets()!
        const budget = store.cachedObject(namespace, verdict.budget)
        try {
          if (!requested.dryRun) {
            await store.update(namespace, verdict.budget, (old) => ({ ...old, metadata: { ...old.metadata, resourceVersion: budget?.metadata?.resourceVersion }, status: verdict.status }),
              { dryRun: false, fieldValidation: 'Ignore', force: false, subresource: 'status' }, caller)
          }
        } catch (err) {
          // Another eviction charged the budget meanwhile: decide again on what it left.
          if (isConflict(err) && attempt < ATTEMPTS) continue
          throw err
        }
        await disruptAndDelete(namespace, name, requested, caller)
        return success
      }
      // A pod that may go without a charge goes only as it was judged (it may turn ready meanwhile).
      const guarded = verdict.resourceVersion !== undefined && requested.preconditions?.resourceVersion === undefined
      const opts = guarded ? { ...requested, preconditions: { ...requested.preconditions, resourceVersion: verdict.resourceVersion } } : requested
      try {
        await disruptAndDelete(namespace, name, opts, caller)
        return success
      } catch (err) {
        if (isConflict(err) && guarded && attempt < ATTEMPTS) continue
        throw err
      }
    }
  }

  fastify.resources.addSubresource(PODS, 'eviction', {
    verbs: ['create'],
    // kubectl drain sends v1beta1's to servers whose discovery lacks v1's; the reference takes both.
    requestKind: { apiVersion: 'policy/v1', kind: 'Eviction', alsoAccepted: ['policy/v1beta1'] },
    create: evict
  })
}, { name: 'pod-eviction' })
