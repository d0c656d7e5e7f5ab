// PodSecurity: pods are held to the pod security standards their namespace's labels name
// (`pod-security.svc.io/enforce|audit|warn`, each with a `-version`), over the defaults of the
// plugin's configuration. Enforce refuses the pod (403), audit records the violations in the
// audit log, warn answers with a Warning. Exempt users, namespaces and runtime classes pass;
// updates are looked at only when they change what the checks read (images, added containers).
// The pod templates of workload kinds (a kind's `podTemplate`) are audited and warned about, never
// refused: the pods made from them are what enforce applies to.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden, internalError, fieldErrorText, type FieldError } from '../../resources/status.js'
import { POD_SECURITY } from '../../resources/naming.js'
import type { AdmissionAttributes } from '../../resources/admission.js'
import type { AnyObject, PodView, Violation } from './check.js'
import { podSecurityConfiguration, type PodSecurityConfiguration } from './configuration.js'
import { evaluatePod, violationDetails } from './evaluate.js'
import { validateNamespace } from './namespaces.js'
import { fullyPrivileged, LATEST, levelVersionText, policyFromLabels, sameLevelVersion, type LevelVersion, type Policy } from './policy.js'
import { recorder, type Recorder } from './recorder.js'

export const PLUGIN_NAME = 'PodSecurity'
const PODS = { group: '', resource: 'pods' }

const isCore = (a: AdmissionAttributes, plural: string): boolean => a.resource.group === '' && a.resource.plural === plural

/** Pod subresources that cannot change what the checks read. */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status'])

/** Audit annotation keys, under the plugin's prefix. */
const AUDIT = {
  enforcePolicy: `${POD_SECURITY.labelPrefix}enforce-policy`,
  auditViolations: `${POD_SECURITY.labelPrefix}audit-violations`,
  exempt: `${POD_SECURITY.labelPrefix}exempt`,
  error: `${POD_SECURITY.labelPrefix}error`
} as const

/** Containers of an update that the checks have not seen: more or fewer, a new image, a new ephemeral container. */
export function isSignificantPodUpdate (pod: AnyObject, old: AnyObject): boolean {
  const list = (spec: AnyObject | undefined, field: string): AnyObject[] => Array.isArray(spec?.[field]) ? spec[field] : []
  for (const field of ['containers', 'initContainers']) {
    const now = list(pod.spec, field)
    const before = list(old.spec, field)
    if (now.length !== before.length) return true
    if (now.some((c, i) => c?.image !== before[i]?.image)) return true
  }
  const oldEphemeral = list(old.spec, 'ephemeralContainers')
  return list(pod.spec, 'ephemeralContainers').some(c => {
    const previous = oldEphemeral.find(o => o?.name === c?.name)
    return previous === undefined || previous.image !== c?.image
  })
}

const aggregate = (errors: FieldError[]): string => {
  const texts = errors.map(e => `${e.field}: ${fieldErrorText(e)}`)
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`
}

/**
 * Evaluates a pod against the namespace's policy: enforce refuses, audit annotates, warn warns
 * (unless refused). A workload's template is not enforced (`enforce` false): the pods it makes are.
 */
function evaluate (a: AdmissionAttributes, config: PodSecurityConfiguration, record: Recorder, policy: Policy, policyErrors: FieldError[], pod: PodView, enforce = true): void {
  const runtimeClass = pod.spec.runtimeClassName
  if (typeof runtimeClass === 'string' && runtimeClass !== '' && config.exemptions.runtimeClasses.has(runtimeClass)) {
    if (!enforce) return
    a.auditAnnotations[AUDIT.exempt] = 'runtimeClass'
    record.exemption(a)
    return
  }
  if (policyErrors.length > 0) {
    a.auditAnnotations[AUDIT.error] = `Failed to parse policy: ${aggregate(policyErrors)}`
    record.error(false, a)
  }
  const results: Array<{ lv: LevelVersion, violations: Violation[] }> = []
  const evaluated = (lv: LevelVersion): Violation[] => {
    let found = results.find(r => sameLevelVersion(r.lv, lv))
    if (found === undefined) {
      found = { lv, violations: evaluatePod(lv, pod) }
      results.push(found)
    }
    return found.violations
  }
  let refused: Violation[] = []
  if (enforce) {
    a.auditAnnotations[AUDIT.enforcePolicy] = levelVersionText(policy.enforce)
    refused = evaluated(policy.enforce)
    record.evaluation(refused.length > 0 ? 'deny' : 'allow', policy.enforce, 'enforce', a)
  }
  const audited = evaluated(policy.audit)
  if (audited.length > 0) {
    a.auditAnnotations[AUDIT.auditViolations] = `would violate PodSecurity ${JSON.stringify(levelVersionText(policy.audit))}: ${violationDetails(audited)}`
    record.evaluation('deny', policy.audit, 'audit', a)
  }
  if (refused.length > 0) {
    const name = a.name !== '' ? a.name : String(a.object?.metadata?.name ?? '')
    throw forbidden(PODS, name, `violates PodSecurity ${JSON.stringify(levelVersionText(policy.enforce))}: ${violationDetails(refused)}`)
  }
  const warned = evaluated(policy.warn)
  if (warned.length > 0) {
    a.warnings.push(`would violate PodSecurity ${JSON.stringify(levelVersionText(policy.warn))}: ${violationDetails(warned)}`)
    record.evaluation('deny', policy.warn, 'warn', a)
  }
}

async function validatePod (a: AdmissionAttributes, config: PodSecurityConfiguration, record: Recorder): Promise<void> {
  if (IGNORED_POD_SUBRESOURCES.has(a.subresource)) return
  if (a.namespace !== '' && config.exemptions.namespaces.has(a.namespace)) {
    a.auditAnnotations[AUDIT.exempt] = 'namespace'
    return record.exemption(a)
  }
  if (a.user.username !== '' && config.exemptions.usernames.has(a.user.username)) {
    a.auditAnnotations[AUDIT.exempt] = 'user'
    return record.exemption(a)
  }
  const namespace = await a.lookup({ group: '', resource: 'namespaces' }, '', a.namespace)
  if (namespace === undefined) {
    record.error(true, a)
    throw internalError(`failed to lookup namespace ${JSON.stringify(a.namespace)}`)
  }
  const { policy, errors } = policyFromLabels(namespace.metadata?.labels, config.defaults)
  if (errors.length === 0 && fullyPrivileged(policy)) {
    a.auditAnnotations[AUDIT.enforcePolicy] = levelVersionText({ level: 'privileged', version: LATEST })
    return record.evaluation('allow', policy.enforce, 'enforce', a)
  }
  const pod = a.object!
  if (a.operation === 'UPDATE' && a.oldObject !== undefined && !isSignificantPodUpdate(pod, a.oldObject)) return
  evaluate(a, config, record, policy, errors, { metadata: pod.metadata ?? {}, spec: pod.spec ?? {} })
}

/**
 * A workload's pod template (the reference's ValidatePodController): audited and warned about at
 * the namespace's levels, never refused, with no exemption recorded.
 */
async function validatePodController (a: AdmissionAttributes, config: PodSecurityConfiguration, record: Recorder): Promise<void> {
  if (a.subresource !== '') return
  if ((a.namespace !== '' && config.exemptions.namespaces.has(a.namespace)) || (a.user.username !== '' && config.exemptions.usernames.has(a.user.username))) return
  const namespace = await a.lookup({ group: '', resource: 'namespaces' }, '', a.namespace)
  if (namespace === undefined) {
    record.error(true, a)
    a.auditAnnotations[AUDIT.error] = `failed to lookup namespace ${JSON.stringify(a.namespace)}`
    return
  }
  const { policy, errors } = policyFromLabels(namespace.metadata?.labels, config.defaults)
  if (errors.length === 0 && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return
  const template = a.resource.podTemplate?.(a.object!)
  if (template == null || typeof template !== 'object') return
  evaluate(a, config, record, policy, errors, { metadata: template.metadata ?? {}, spec: template.spec ?? {} }, false)
}

export default fp(async function podSecurity (fastify: FastifyInstance) {
  let config: PodSecurityConfiguration | undefined
  const record = recorder(fastify)
  fastify.admission.add({
    name: PLUGIN_NAME,
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.object !== undefined &&
      (isCore(a, 'pods') || isCore(a, 'namespaces') || a.resource.podTemplate !== undefined),
    async validate (a) {
      if (isCore(a, 'namespaces')) return await validateNamespace(a, config!)
      if (isCore(a, 'pods')) return await validatePod(a, config!, record)
      await validatePodController(a, config!, record)
    }
  })
  // Read only when the plugin runs: a configuration that does not validate stops start-up.
  if (fastify.admission.enabled().includes(PLUGIN_NAME)) config = podSecurityConfiguration(fastify.admission.configuration(PLUGIN_NAME))
}, { name: 'admission:pod-security', dependencies: ['admission'] })
