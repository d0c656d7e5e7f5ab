// What a PodDisruptionBudget means, apart from where its inputs come from: the pods it selects,
// the status the disruption controller computes for it (pkg/controller/disruption), and whether
// an eviction may delete a pod now (pkg/registry/core/pod/storage/eviction.go), so that the
// controller and the eviction subresource share one reading of the rules.
import { isDeepStrictEqual } from 'node:util'
import type { AnyObject } from './define.js'
import { ApiError, forbidden } from './status.js'
import { labelSelectorMatches } from './label-selector.js'

/** How long a pod an eviction was granted for counts as disrupted before it must be seen deleted (DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60_000
/** How many granted evictions a budget may hold unconfirmed (MaxDisruptedPodSize). */
export const MAX_DISRUPTED_POD_SIZE = 2000

export const DISRUPTION_ALLOWED = 'DisruptionAllowed'
export const REASONS = { sufficientPods: 'SufficientPods', insufficientPods: 'InsufficientPods', syncFailed: 'SyncFailed' } as const
/** The StatusCause type an eviction refusal carries (policyv1.DisruptionBudgetCause). */
export const DISRUPTION_BUDGET_CAUSE = 'DisruptionBudget'

/**
 * Whether a budget selects a pod of its namespace: an unset selector selects none (labels.Nothing),
 * an empty one every pod (policy/v1).
 */
export function budgetSelects (pdb: AnyObject, pod: AnyObject): boolean {
  const selector = pdb.spec?.selector
  if (selector == null) return false
  return labelSelectorMatches(selector, pod.metadata?.labels ?? {})
}

/** IsPodReady: the Ready condition is True. */
export const isPodReady = (pod: AnyObject): boolean =>
  (pod.status?.conditions ?? []).some((c: AnyObject) => c.type === 'Ready' && c.status === 'True')

/** metav1.GetControllerOf: the owner reference marked controller. */
export const controllerRefOf = (obj: AnyObject): AnyObject | undefined =>
  (obj.metadata?.ownerReferences ?? []).find((r: AnyObject) => r.controller === true)

/** A pod's controller and the replicas it is scaled to. */
export interface ControllerScale { uid: string, replicas: number }

/**
 * Finds the controller a controller reference names (in `namespace`) with its scale: undefined
 * when there is none to be found (gone, another uid); throws an Error whose message the budget's
 * SyncFailed condition carries when the reference cannot be followed (unknown kind, no scale).
 */
export type ScaleReader = (ref: AnyObject, namespace: string) => ControllerScale | undefined

/** intstr.GetScaledValueFromIntOrPercent: a percent of `total`, rounded up or down; an integer as is. */
export function scaledValue (value: unknown, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value
  const text = String(value)
  if (!/^[0-9]+%$/.test(text)) throw new Error(`invalid value for IntOrString: invalid value ${JSON.stringify(text)}: strconv.Atoi: parsing ${JSON.stringify(text.replace(/%$/, ''))}: invalid syntax`)
  const scaled = Number(text.slice(0, -1)) * total / 100
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled)
}

/** getExpectedScale: the sum of the scales of the selected pods' controllers, each counted once. */
function expectedScale (pods: AnyObject[], readScale: ScaleReader): number {
  const scales = new Map<string, number>()
  for (const pod of pods) {
    const ref = controllerRefOf(pod)
    // An unmanaged pod counts for nothing (the reference reports it in an event).
    if (ref === undefined || scales.has(ref.uid)) continue
    const found = readScale(ref, pod.metadata.namespace)
    if (found === undefined) throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata.name)}`)
    scales.set(found.uid, found.replicas)
  }
  let sum = 0
  for (const n of scales.values()) sum += n
  return sum
}

/** getExpectedPodCount: how many pods there should be and how many of them must be healthy. */
function expectedCounts (pdb: AnyObject, pods: AnyObject[], readScale: ScaleReader): { expectedPods: number, desiredHealthy: number } {
  const spec = pdb.spec ?? {}
  if (spec.maxUnavailable != null) {
    const expectedPods = expectedScale(pods, readScale)
    return { expectedPods, desiredHealthy: Math.max(0, expectedPods - scaledValue(spec.maxUnavailable, expectedPods, true)) }
  }
  if (typeof spec.minAvailable === 'number') return { expectedPods: pods.length, desiredHealthy: spec.minAvailable }
  if (typeof spec.minAvailable === 'string') {
    const expectedPods = expectedScale(pods, readScale)
    return { expectedPods, desiredHealthy: scaledValue(spec.minAvailable, expectedPods, true) }
  }
  return { expectedPods: 0, desiredHealthy: 0 }
}

const timeOf = (stamp: unknown): number => typeof stamp === 'string' ? Date.parse(stamp) : NaN

/**
 * apimeta.SetStatusCondition: replaces the condition of its type, the transition time kept
 * while the status stays; a copy of `conditions`.
 */
export function withCondition (conditions: AnyObject[] | undefined, condition: AnyObject, now: Date): AnyObject[] {
  const list = [...(conditions ?? [])]
  const i = list.findIndex(c => c.type === condition.type)
  const old = i < 0 ? undefined : list[i]
  const lastTransitionTime = old !== undefined && old.status === condition.status ? old.lastTransitionTime : isoSeconds(now)
  const next = { type: condition.type, status: condition.status, observedGeneration: condition.observedGeneration, lastTransitionTime, reason: condition.reason, message: condition.message ?? '' }
  if (next.observedGeneration === undefined || next.observedGeneration === 0) delete next.observedGeneration
  if (i < 0) list.push(next)
  else list[i] = next
  return list
}

/** metav1.Time's wire form: seconds, UTC. */
export const isoSeconds = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`

/** UpdateDisruptionAllowedCondition: the DisruptionAllowed condition a status's count calls for. */
export function withDisruptionAllowedCondition (status: AnyObject, now: Date): AnyObject {
  const allowed = (status.disruptionsAllowed ?? 0) > 0
  return {
    ...status,
    conditions: withCondition(status.conditions, {
      type: DISRUPTION_ALLOWED,
      status: allowed ? 'True' : 'False',
      reason: allowed ? REASONS.sufficientPods : REASONS.insufficientPods,
      observedGeneration: status.observedGeneration
    }, now)
  }
}

/** ConditionsAreUpToDate. */
function conditionsUpToDate (pdb: AnyObject): boolean {
  const status = pdb.status ?? {}
  const c = (status.conditions ?? []).find((x: AnyObject) => x.type === DISRUPTION_ALLOWED)
  if (c === undefined || (status.observedGeneration ?? 0) !== (pdb.metadata?.generation ?? 0)) return false
  return (status.disruptionsAllowed ?? 0) > 0 ? c.status === 'True' && c.reason === REASONS.sufficientPods : c.status === 'False' && c.reason === REASONS.insufficientPods
}

/** The status a sync computes, or undefined when the stored one is current; `recheckAt` when a disrupted pod's entry expires. */
export interface BudgetSync { status?: AnyObject, recheckAt?: number }

/**
 * The disruption controller's sync of one budget (trySync, or failSafe when it cannot count):
 * `pods` are those of its namespace.
 */
export function syncBudgetStatus (pdb: AnyObject, namespacePods: AnyObject[], readScale: ScaleReader, now: Date): BudgetSync {
  const pods = namespacePods.filter(p => budgetSelects(pdb, p))
  const old = pdb.status ?? {}
  let counts: { expectedPods: number, desiredHealthy: number }
  try {
    counts = expectedCounts(pdb, pods, readScale)
  } catch (err) {
    // failSafe: no disruption while the budget cannot be computed.
    const status = {
      ...old,
      disruptionsAllowed: 0,
      conditions: withCondition(old.conditions, { type: DISRUPTION_ALLOWED, status: 'False', reason: REASONS.syncFailed, message: (err as Error).message, observedGeneration: old.observedGeneration }, now)
    }
    return isDeepStrictEqual(status, old) ? {} : { status }
  }
  // buildDisruptedPodMap: entries of pods not yet deleted, until their time is up.
  const disruptedPods: Record<string, string> = {}
  let recheckAt: number | undefined
  const granted = (old.disruptedPods ?? {}) as Record<string, string>
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp != null || !Object.hasOwn(granted, pod.metadata.name)) continue
    const expires = timeOf(granted[pod.metadata.name]) + DELETION_TIMEOUT_MS
    if (expires < now.getTime()) continue
    disruptedPods[pod.metadata.name] = granted[pod.metadata.name]!
    if (recheckAt === undefined || expires < recheckAt) recheckAt = expires
  }
  // countHealthyPods: ready, neither being deleted nor about to be.
  let currentHealthy = 0
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp != null) continue
    const disrupted = disruptedPods[pod.metadata.name]
    if (disrupted !== undefined && timeOf(disrupted) + DELETION_TIMEOUT_MS > now.getTime()) continue
    if (isPodReady(pod)) currentHealthy++
  }
  const { expectedPods, desiredHealthy } = counts
  // No disruption while the budget selects no pods: its first pods may appear before a sync counts them.
  const disruptionsAllowed = expectedPods <= 0 ? 0 : Math.max(0, currentHealthy - desiredHealthy)
  const generation = pdb.metadata?.generation ?? 0
  const sameDisrupted = JSON.stringify(Object.entries(old.disruptedPods ?? {}).sort()) === JSON.stringify(Object.entries(disruptedPods).sort())
  if (old.currentHealthy === currentHealthy && old.desiredHealthy === desiredHealthy && old.expectedPods === expectedPods &&
    old.disruptionsAllowed === disruptionsAllowed && sameDisrupted && (old.observedGeneration ?? 0) === generation && conditionsUpToDate(pdb)) {
    return { recheckAt }
  }
  const status: AnyObject = { disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods, observedGeneration: generation }
  if (Object.keys(disruptedPods).length > 0) status.disruptedPods = disruptedPods
  if (old.conditions !== undefined) status.conditions = old.conditions
  return { status: withDisruptionAllowedCondition(status, now), recheckAt }
}

/** What an eviction of a pod may do now. */
export type EvictionVerdict =
  /** Delete the pod; with `resourceVersion`, only while it is still that version (it may not turn ready meanwhile). */
  | { action: 'delete', resourceVersion?: string }
  /** Write `status` to budget `budget` (one disruption taken, the pod recorded) and, that written, delete the pod. */
  | { action: 'disrupt', budget: string, status: AnyObject }
  /** Refuse with this error. */
  | { action: 'refuse', error: ApiError }

const POLICY_BUDGETS = { group: 'policy', resource: 'poddisruptionbudget' }

function tooManyRequests (retryAfterSeconds: number, cause: string): ApiError {
  return new ApiError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.",
    { ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}), causes: [{ reason: DISRUPTION_BUDGET_CAUSE, message: cause }] },
    retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : {})
}

/**
 * The eviction subresource's decision for `pod` given the budgets of its namespace, as the
 * reference's EvictionREST.Create makes it before deleting: pods that disrupt nothing more
 * (finished, pending, already being deleted) go at once; a pod under no budget goes; under
 * more than one it may not; an unready pod goes when its budget's policy or health allows;
 * otherwise one of the budget's allowed disruptions is taken (checkAndDecrement). `dryRun`
 * takes it without recording the pod.
 */
export function evictionVerdict (pod: AnyObject, budgets: AnyObject[], now: Date, dryRun = false): EvictionVerdict {
  const phase = pod.status?.phase
  const deleting = pod.metadata?.deletionTimestamp != null
  if (phase === 'Succeeded' || phase === 'Failed' || deleting) return { action: 'delete' }
  if (phase === 'Pending') return { action: 'delete', resourceVersion: pod.metadata?.resourceVersion }
  const matching = budgets.filter(b => b.metadata?.namespace === pod.metadata?.namespace && budgetSelects(b, pod))
  if (matching.length > 1) return { action: 'refuse', error: new ApiError(500, '', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.') }
  if (matching.length === 0) return { action: 'delete' }
  const pdb = matching[0]!
  const name = String(pdb.metadata?.name ?? '')
  const status = pdb.status ?? {}
  if (!isPodReady(pod)) {
    if (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return { action: 'delete', resourceVersion: pod.metadata?.resourceVersion }
    if ((status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0) && (status.desiredHealthy ?? 0) > 0) return { action: 'delete', resourceVersion: pod.metadata?.resourceVersion }
  }
  if ((status.observedGeneration ?? 0) < (pdb.metadata?.generation ?? 0)) {
    return { action: 'refuse', error: tooManyRequests(10, `The disruption budget ${name} is still being processed by the server.`) }
  }
  const allowed = status.disruptionsAllowed ?? 0
  if (allowed < 0) return { action: 'refuse', error: forbidden(POLICY_BUDGETS, name, 'pdb disruptions allowed is negative') }
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_POD_SIZE) {
    return { action: 'refuse', error: forbidden(POLICY_BUDGETS, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller') }
  }
  if (allowed === 0) {
    return { action: 'refuse', error: tooManyRequests(0, `The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`) }
  }
  let next: AnyObject = { ...status, disruptionsAllowed: allowed - 1 }
  if (next.disruptionsAllowed === 0) next = withDisruptionAllowedCondition(next, now)
  if (!dryRun) next.disruptedPods = { ...(status.disruptedPods ?? {}), [pod.metadata.name]: isoSeconds(now) }
  return { action: 'disrupt', budget: name, status: next }
}
