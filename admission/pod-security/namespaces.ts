// PodSecurity on namespaces: labels that do not parse are refused (on update only when they
// changed), an exempt namespace that asks for a policy is told it will be ignored, and a
// stricter enforce level warns about the existing pods it would have refused, one warning per
// distinct set of reasons, naming the first pod and how many others share it.
import { isDeepStrictEqual } from 'node:util'
import { invalid } from '../../resources/status.js'
import type { AdmissionAttributes } from '../../resources/admission.js'
import type { AnyObject } from './check.js'
import type { PodSecurityConfiguration } from './configuration.js'
import { evaluatePod, violationReasons } from './evaluate.js'
import {
  compareLevels, equivalent, fullyPrivileged, LABELS, levelVersionText, MODES, policyFromLabels, sameLevelVersion,
  type LevelVersion, type Policy
} from './policy.js'

/** How many existing pods a namespace change checks at most, and for how long. */
const MAX_PODS_TO_CHECK = 3000
const POD_CHECK_BUDGET_MS = 1000

const NAMESPACE_KIND = { group: '', kind: 'Namespace' }

type Labels = Readonly<Record<string, string>> | undefined
const labelsOf = (o: AnyObject | undefined): Labels => o?.metadata?.labels ?? undefined

/** `namespace "x" is exempt …`, naming the modes its labels set to something other than privileged; empty when there is nothing to ignore. */
export function exemptNamespaceWarning (name: string, policy: Policy, labels: Labels, defaults: Policy): string {
  if (fullyPrivileged(policy) || MODES.every(m => equivalent(policy[m], defaults[m]))) return ''
  const set = (key: string): boolean => labels !== undefined && Object.hasOwn(labels, key)
  const labelled = {
    enforce: set(LABELS.enforce) || set(LABELS.enforceVersion),
    audit: set(LABELS.audit) || set(LABELS.auditVersion),
    warn: set(LABELS.warn) || set(LABELS.warnVersion)
  }
  const parts = MODES.filter(m => policy[m].level !== 'privileged' && labelled[m]).map(m => `${m}=${levelVersionText(policy[m])}`)
  return `namespace ${JSON.stringify(name)} is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`
}

export async function validateNamespace (a: AdmissionAttributes, config: PodSecurityConfiguration): Promise<void> {
  if (a.subresource !== '') return
  const ns = a.object!
  const name = String(ns.metadata?.name ?? a.name)
  const { policy, errors } = policyFromLabels(labelsOf(ns), config.defaults)
  const exempt = config.exemptions.namespaces.has(name)
  const warnIfExempt = (): void => {
    const warning = exemptNamespaceWarning(name, policy, labelsOf(ns), config.defaults)
    if (warning !== '') a.warnings.push(warning)
  }
  if (a.operation === 'CREATE') {
    if (errors.length > 0) throw invalid(NAMESPACE_KIND, name, errors)
    if (exempt) warnIfExempt()
    return
  }
  const old = policyFromLabels(labelsOf(a.oldObject), config.defaults)
  // Labels that were already invalid, and stay so, do not block other changes.
  if (errors.length > 0 && (old.errors.length === 0 || !isDeepStrictEqual(errors, old.errors))) throw invalid(NAMESPACE_KIND, name, errors)
  if (sameLevelVersion(policy.enforce, old.policy.enforce)) return
  if (policy.enforce.level === 'privileged') return
  if (policy.enforce.version === old.policy.enforce.version && compareLevels(policy.enforce.level, old.policy.enforce.level) < 1) return
  if (exempt) return warnIfExempt()
  a.warnings.push(...existingPodWarnings(a, name, policy.enforce, config))
}

/**
 * The namespace's pods most worth checking first: one pod per controller before the other
 * replicas, so a limited check still covers every workload. Pods of exempt runtime classes are left out.
 */
function prioritized (pods: AnyObject[], config: PodSecurityConfiguration): AnyObject[] {
  const first: AnyObject[] = []
  const replicas: AnyObject[] = []
  const seen = new Set<string>()
  for (const pod of pods) {
    const runtimeClass = pod.spec?.runtimeClassName
    if (typeof runtimeClass === 'string' && runtimeClass !== '' && config.exemptions.runtimeClasses.has(runtimeClass)) continue
    const controller = ((pod.metadata?.ownerReferences ?? []) as AnyObject[]).find(r => r?.controller === true)
    if (controller === undefined) {
      first.push(pod)
    } else if (seen.has(String(controller.uid))) {
      replicas.push(pod)
    } else {
      seen.add(String(controller.uid))
      first.push(pod)
    }
  }
  return [...first, ...replicas]
}

function existingPodWarnings (a: AdmissionAttributes, namespace: string, enforce: LevelVersion, config: PodSecurityConfiguration): string[] {
  const deadline = performance.now() + POD_CHECK_BUDGET_MS
  const pods = prioritized(a.list({ group: '', resource: 'pods' }, namespace), config)
  const toCheck = pods.slice(0, MAX_PODS_TO_CHECK)
  /** Reasons → the lexically first pod with them and how many pods share them, in order of discovery. */
  const groups = new Map<string, { podName: string, count: number }>()
  let checked = toCheck.length
  for (let i = 0; i < toCheck.length; i++) {
    const pod = toCheck[i]!
    const violations = evaluatePod(enforce, { metadata: pod.metadata ?? {}, spec: pod.spec ?? {} })
    if (violations.length > 0) {
      const reasons = violationReasons(violations)
      const podName = String(pod.metadata?.name ?? '')
      const group = groups.get(reasons)
      if (group === undefined) groups.set(reasons, { podName, count: 1 })
      else {
        group.count++
        if (podName < group.podName) group.podName = podName
      }
    }
    if (performance.now() > deadline) {
      checked = i + 1
      break
    }
  }
  const warnings: string[] = []
  if (checked < pods.length) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${pods.length} existing pods`)
  if (groups.size > 0) warnings.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionText(enforce))}`)
  const perGroup = [...groups].map(([reasons, { podName, count }]) =>
    count === 1 ? `${podName}: ${reasons}` : `${podName} (and ${count - 1} other ${count === 2 ? 'pod' : 'pods'}): ${reasons}`)
  return [...warnings, ...perGroup.sort()]
}
