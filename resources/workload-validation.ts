// Rules the replica-keeping workloads share (Deployment, ReplicaSet, ReplicationController), in
// the reference's words: counts that may not go below zero, int-or-percent fields, the label
// selector that must select the template, the template the ReplicaSet controller can run
// (restartPolicy Always, no deadline), the replica counts of a status, and the pod template's
// defaults and warnings.
import { isDeepStrictEqual } from 'node:util'
import type { AnyObject, FieldError, SubresourceDefinition } from './define.js'
import { validateLabelSelector } from './core-types.js'
import { labelSelectorMatches } from './label-selector.js'
import { defaultPodTemplate, selectorMismatch, validatePodTemplate } from './pod-template.js'
import { podSpecWarnings } from './deprecation-warnings.js'
import { dnsLabelProblems } from './validation.js'

/** ValidateNonnegativeField. */
export function nonNegative (value: unknown, field: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [{ type: 'Invalid', field, value, detail: 'must be greater than or equal to 0' }] : []
}

const PERCENT = /^[0-9]+%$/
const PERCENT_DETAIL = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"

/** ValidatePositiveIntOrPercent: a non-negative integer, or a percent string; nothing for an unset one. */
export function validatePositiveIntOrPercent (value: unknown, field: string): FieldError[] {
  if (typeof value === 'string') return PERCENT.test(value) ? [] : [{ type: 'Invalid', field, value, detail: PERCENT_DETAIL }]
  if (typeof value === 'number') return nonNegative(value, field)
  return value == null ? [] : [{ type: 'Invalid', field, value, detail: "must be an integer or percentage (e.g '5%')" }]
}

/** A percent string's number, undefined for anything else (getPercentValue). */
const percentOf = (value: unknown): number | undefined =>
  typeof value === 'string' && PERCENT.test(value) ? Number(value.slice(0, -1)) : undefined

/**
 * getIntOrPercentValue: a percent's number, an integer's value, or a numeric string's number
 * (intstr's IntValue parses it; anything else is 0).
 */
export function intOrPercentValue (value: unknown): number {
  const percent = percentOf(value)
  if (percent !== undefined) return percent
  if (typeof value === 'number') return value
  if (typeof value === 'string' && /^[+-]?\d+$/.test(value)) return Number(value)
  return 0
}

/** IsNotMoreThan100Percent. */
export function isNotMoreThan100Percent (value: unknown, field: string): FieldError[] {
  const percent = percentOf(value)
  return percent === undefined || percent <= 100 ? [] : [{ type: 'Invalid', field, value, detail: 'must not be greater than 100%' }]
}

/** How a workload names itself where its template rules speak of it. */
export type WorkloadWord = 'ReplicaSet' | 'ReplicationController' | 'StatefulSet' | 'DaemonSet'

/** A replica-keeping controller's demands of a template: pods that restart, and run without deadline. */
export function runnableTemplate (template: AnyObject, at: string, word: WorkloadWord): FieldError[] {
  const errors: FieldError[] = []
  const spec = template.spec ?? {}
  if (spec.restartPolicy !== 'Always') errors.push({ type: 'NotSupported', field: `${at}.spec.restartPolicy`, value: spec.restartPolicy ?? '', supported: ['Always'] })
  if (spec.activeDeadlineSeconds != null) errors.push({ type: 'Forbidden', field: `${at}.spec.activeDeadlineSeconds`, detail: `activeDeadlineSeconds in ${word} is not Supported` })
  return errors
}

const isEmptySelector = (selector: AnyObject): boolean =>
  Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length === 0

/**
 * A label selector with the template it selects, as the reference's ValidateDeploymentSpec and
 * ValidateReplicaSetSpec check them (at `spec`): required and non-empty; a selector that is no
 * selector leaves the template unchecked; otherwise ValidatePodTemplateSpecForReplicaSet.
 */
export function validateSelectedTemplate (spec: AnyObject, at: string): FieldError[] {
  const errors: FieldError[] = []
  const selector = spec.selector
  const selectorErrors = selector == null ? [] : validateLabelSelector(selector, `${at}.selector`)
  if (selector == null) errors.push({ type: 'Required', field: `${at}.selector` })
  else {
    errors.push(...selectorErrors)
    // The reference's words for every kind that checks it this way, ReplicaSet too.
    if (isEmptySelector(selector)) errors.push({ type: 'Invalid', field: `${at}.selector`, value: selector, detail: 'empty selector is invalid for deployment' })
  }
  // What metav1.LabelSelectorAsSelector refuses, the template is not checked against.
  if (selectorErrors.length > 0) return [...errors, { type: 'Invalid', field: `${at}.selector`, value: selector, detail: 'invalid label selector' }]
  const template = spec.template
  const templateAt = `${at}.template`
  if (template == null) return [...errors, { type: 'Required', field: templateAt }]
  // No selector selects nothing (labels.Nothing), an empty one everything.
  const selects = selector == null ? false : isEmptySelector(selector) || labelSelectorMatches(selector, template.metadata?.labels ?? {})
  if (!selects) errors.push(selectorMismatch(template, templateAt))
  errors.push(...validatePodTemplate(template, templateAt), ...runnableTemplate(template, templateAt, 'ReplicaSet'))
  return errors
}

/** A GCE disk mounted writable by more than one pod (ValidateReadOnlyPersistentDisks). */
function readOnlyPersistentDisks (volumes: AnyObject[] | undefined, at: string): FieldError[] {
  const errors: FieldError[] = []
  ;(volumes ?? []).forEach((v, i) => {
    if (v?.gcePersistentDisk != null && v.gcePersistentDisk.readOnly !== true) {
      errors.push({ type: 'Invalid', field: `${at}[${i}].gcePersistentDisk.readOnly`, value: false, detail: 'must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it is read-only' })
    }
  })
  return errors
}

/** ValidatePodTemplateSpecForRC: a template a ReplicationController's plain selector selects. */
export function validateControllerTemplate (template: AnyObject | undefined, selector: Record<string, string> | undefined, replicas: number, at: string): FieldError[] {
  if (template == null) return [{ type: 'Required', field: at }]
  const errors: FieldError[] = []
  const sel = selector ?? {}
  if (Object.keys(sel).length > 0 && !labelSelectorMatches({ matchLabels: sel }, template.metadata?.labels ?? {})) {
    errors.push(selectorMismatch(template, at))
  }
  errors.push(...validatePodTemplate(template, at))
  if (replicas > 1) errors.push(...readOnlyPersistentDisks(template.spec?.volumes, `${at}.spec.volumes`))
  errors.push(...runnableTemplate(template, at, 'ReplicationController'))
  return errors
}

/**
 * A status's replica counts (at `status`): each of `counts` non-negative, and none of the
 * others above `replicas`, nor available above ready.
 */
export function validateReplicaCounts (status: AnyObject | undefined, counts: string[], atMostReplicas: string[]): FieldError[] {
  const s = status ?? {}
  const errors: FieldError[] = counts.flatMap(c => nonNegative(s[c], `status.${c}`))
  const n = (k: string): number => typeof s[k] === 'number' ? s[k] : 0
  for (const c of atMostReplicas) {
    if (n(c) > n('replicas')) errors.push({ type: 'Invalid', field: `status.${c}`, value: n(c), detail: 'cannot be greater than status.replicas' })
  }
  if (n('availableReplicas') > n('readyReplicas')) errors.push({ type: 'Invalid', field: 'status.availableReplicas', value: n('availableReplicas'), detail: 'cannot be greater than readyReplicas' })
  return errors
}

/** IsDecremented on status.collisionCount: a count once set never goes down. */
export function collisionCountKept (status: AnyObject | undefined, old: AnyObject | undefined): FieldError[] {
  const was = old?.collisionCount
  const now = status?.collisionCount
  if (typeof was !== 'number' || (typeof now === 'number' && now >= was)) return []
  return [{ type: 'Invalid', field: 'status.collisionCount', value: now ?? 0, detail: 'cannot be decremented' }]
}

/** The apps/v1 strategies' rule that an update keeps the label selector (extensions/v1beta1 once allowed it). */
export function selectorImmutable (spec: AnyObject | undefined, old: AnyObject | undefined): FieldError[] {
  const value = spec?.selector ?? null
  return isDeepStrictEqual(value, old?.selector ?? null) ? [] : [{ type: 'Invalid', field: 'spec.selector', value, detail: 'field is immutable' }]
}

/** A workload's spec.template defaulted as a Pod's (Go defaults the template struct always). */
export function defaultTemplateOf (obj: AnyObject): void {
  obj.spec ??= {}
  obj.spec.template = defaultPodTemplate(obj.spec.template)
}

/** The warnings on creating a workload: its name becomes part of pod names, and its template's deprecations. */
export function workloadCreateWarnings (obj: AnyObject, template: AnyObject | undefined): string[] {
  const warnings: string[] = []
  const problems = dnsLabelProblems(obj.metadata?.name ?? '')
  if (problems.length > 0) warnings.push(`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${problems.join(' ')}]`)
  if (template != null) warnings.push(...podSpecWarnings(template.spec, template.metadata, 'spec.template'))
  return warnings
}

/** The warnings on updating one: its template's deprecations, when the update changed the spec. */
export function workloadUpdateWarnings (obj: AnyObject, old: AnyObject, template: AnyObject | undefined): string[] {
  if (obj.metadata?.generation === old.metadata?.generation || template == null) return []
  return podSpecWarnings(template.spec, template.metadata, 'spec.template')
}

/**
 * The status subresource of a kind whose status has terminatingReplicas: the field is behind the
 * reference's alpha gate DeploymentReplicaSetTerminatingReplicas (off by default in 1.33): while it
 * is off, a status write drops it unless the stored status already has it.
 */
export function terminatingReplicasGatedStatus (resetMetadata?: readonly string[]): SubresourceDefinition {
  return {
    merge (incoming, existing, ctx) {
      const status = incoming.status == null ? incoming.status : { ...incoming.status }
      if (status != null && !ctx.features.enabled('DeploymentReplicaSetTerminatingReplicas') && existing.status?.terminatingReplicas == null) delete status.terminatingReplicas
      return { ...existing, status }
    },
    ...(resetMetadata === undefined ? {} : { resetMetadata })
  }
}
