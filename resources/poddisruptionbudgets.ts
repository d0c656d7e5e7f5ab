// PodDisruptionBudget (policy/v1, namespaced): how many of the pods its selector selects may be
// down at once through voluntary disruptions (evictions). Its status is the disruption
// controller's (controllers/disruption.ts); the eviction subresource decides from that status
// (resources/disruption-budget.ts). In v1 the spec may change, and an empty selector selects
// every pod of the namespace while an unset one selects none.
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type AnyObject, type FieldError } from './define.js'
import { AGE_COLUMN, Int32, Int64, objectSchema, Timestamp } from './meta.js'
import { LabelSelector, MapList, validateLabelSelector } from './core-types.js'
import { IntOrString } from './pod-types.js'
import { keepZero, message } from './protobuf.js'
import { isNotMoreThan100Percent, nonNegative, validatePositiveIntOrPercent } from './workload-validation.js'
import { qualifiedNameProblems } from './validation.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

/** UnhealthyPodEvictionPolicyType's values, as the reference lists them (sorted). */
export const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'] as const

/** metav1.Condition: every field but observedGeneration renders even when empty. */
export const MetaCondition = Type.Object({
  type: opt(Type.String()),
  status: opt(Type.String({ description: 'True, False or Unknown.' })),
  observedGeneration: opt(Int64()),
  lastTransitionTime: opt(Type.Union([Timestamp(), Type.Null()])),
  reason: opt(Type.String()),
  message: opt(Type.String())
}, { ...struct, description: 'Condition contains details for one aspect of the current state of this API Resource.', ...message('meta.v1.Condition', { type: keepZero(1), status: keepZero(2), observedGeneration: 3, lastTransitionTime: 4, reason: keepZero(5), message: keepZero(6) }) })

const schema = objectSchema('policy/v1', 'PodDisruptionBudget', {
  spec: opt(Type.Object({
    minAvailable: opt(IntOrString()),
    selector: opt(LabelSelector),
    maxUnavailable: opt(IntOrString()),
    unhealthyPodEvictionPolicy: opt(Type.String({ description: 'When unhealthy (not Ready) running pods may be evicted: IfHealthyBudget (the default) or AlwaysAllow.' }))
  }, { ...struct, description: 'PodDisruptionBudgetSpec is a description of a PodDisruptionBudget.', ...message('PodDisruptionBudgetSpec', { minAvailable: 1, selector: 2, maxUnavailable: 3, unhealthyPodEvictionPolicy: 4 }) })),
  status: opt(Type.Object({
    observedGeneration: opt(Int64()),
    disruptedPods: opt(Type.Record(Type.String(), Timestamp(), { description: 'Pods whose eviction was granted but not yet seen deleted, with the time it was.' })),
    disruptionsAllowed: opt(Int32()),
    currentHealthy: opt(Int32()),
    desiredHealthy: opt(Int32()),
    expectedPods: opt(Int32()),
    conditions: opt(MapList(MetaCondition, ['type']))
  }, {
    ...struct,
    description: 'PodDisruptionBudgetStatus represents information about the status of a PodDisruptionBudget.',
    ...message('PodDisruptionBudgetStatus', { observedGeneration: 1, disruptedPods: 2, disruptionsAllowed: keepZero(3), currentHealthy: keepZero(4), desiredHealthy: keepZero(5), expectedPods: keepZero(6), conditions: 7 })
  }))
}, 'PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods', { spec: 2, status: 3 })

type Pdb = AnyObject

/** ValidatePodDisruptionBudgetSpec. */
function validateSpec (spec: Pdb): FieldError[] {
  const errors: FieldError[] = []
  if (spec.minAvailable != null && spec.maxUnavailable != null) {
    errors.push({ type: 'Invalid', field: 'spec', value: spec, detail: 'minAvailable and maxUnavailable cannot be both set' })
  }
  for (const field of ['minAvailable', 'maxUnavailable']) {
    if (spec[field] == null) continue
    errors.push(...validatePositiveIntOrPercent(spec[field], `spec.${field}`), ...isNotMoreThan100Percent(spec[field], `spec.${field}`))
  }
  errors.push(...validateLabelSelector(spec.selector, 'spec.selector'))
  const policy = spec.unhealthyPodEvictionPolicy
  if (policy != null && !(UNHEALTHY_POD_EVICTION_POLICIES as readonly string[]).includes(policy)) {
    errors.push({ type: 'NotSupported', field: 'spec.unhealthyPodEvictionPolicy', value: policy, supported: [...UNHEALTHY_POD_EVICTION_POLICIES] })
  }
  return errors
}

const CONDITION_STATUSES = ['False', 'True', 'Unknown']
const CONDITION_REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/
const CONDITION_REASON_DETAIL = "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')"

/** metav1validation.ValidateConditions: unique types, each a valid condition. */
export function validateMetaConditions (conditions: AnyObject[] | undefined, at: string): FieldError[] {
  const errors: FieldError[] = []
  const seen = new Set<string>()
  ;(conditions ?? []).forEach((c, i) => {
    const here = `${at}[${i}]`
    const type = String(c.type ?? '')
    if (seen.has(type)) errors.push({ type: 'Duplicate', field: `${here}.type`, value: type })
    seen.add(type)
    for (const problem of qualifiedNameProblems(type)) errors.push({ type: 'Invalid', field: `${here}.type`, value: type, detail: problem })
    if (!CONDITION_STATUSES.includes(c.status)) errors.push({ type: 'NotSupported', field: `${here}.status`, value: c.status ?? '', supported: CONDITION_STATUSES })
    if (typeof c.observedGeneration === 'number' && c.observedGeneration < 0) {
      errors.push({ type: 'Invalid', field: `${here}.observedGeneration`, value: c.observedGeneration, detail: 'must be greater than or equal to zero' })
    }
    if (c.lastTransitionTime == null) errors.push({ type: 'Required', field: `${here}.lastTransitionTime`, detail: 'must be set' })
    const reason = String(c.reason ?? '')
    if (reason === '') errors.push({ type: 'Required', field: `${here}.reason`, detail: 'must be set' })
    else {
      if (!CONDITION_REASON.test(reason)) errors.push({ type: 'Invalid', field: `${here}.reason`, value: reason, detail: CONDITION_REASON_DETAIL })
      if (reason.length > 1024) errors.push({ type: 'TooLong', field: `${here}.reason`, value: reason, detail: 'may not be more than 1024 bytes' })
    }
    if (String(c.message ?? '').length > 32768) errors.push({ type: 'TooLong', field: `${here}.message`, value: c.message, detail: 'may not be more than 32768 bytes' })
  })
  return errors
}

/** ValidatePodDisruptionBudgetStatusUpdate (policy/v1). */
function validateStatus (status: Pdb | undefined): FieldError[] {
  const s = status ?? {}
  return [
    ...validateMetaConditions(s.conditions, 'status.conditions'),
    ...['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'].flatMap(f => nonNegative(s[f], `status.${f}`))
  ]
}

/** A PodDisruptionBudgetStatus{} as JSON renders it: the counts have no omitempty. */
export const zeroStatus = (): Pdb => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 })

/** An IntOrString as intstr's String() prints it, `N/A` when unset (printPodDisruptionBudget). */
const intOrStringCell = (value: unknown): string => value == null ? 'N/A' : String(value)

export default defineResource({
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  singular: 'poddisruptionbudget',
  shortNames: ['pdb'],
  scope: 'Namespaced',
  schema,
  subresources: { status: statusSubresource() },
  strategy: {
    prepareForCreate (pdb) { pdb.status = zeroStatus() },
    validate: (pdb) => [...validateSpec(pdb.spec ?? {}), ...validateStatus(pdb.status)]
  },
  columns: [
    { name: 'Min Available', type: 'string', description: 'The minimum number of pods that must be available.', value: (p: Pdb) => intOrStringCell(p.spec?.minAvailable) },
    { name: 'Max Unavailable', type: 'string', description: 'The maximum number of pods that may be unavailable.', value: (p: Pdb) => intOrStringCell(p.spec?.maxUnavailable) },
    { name: 'Allowed Disruptions', type: 'integer', description: 'Calculated number of pods that may be disrupted at this time.', value: (p: Pdb) => p.status?.disruptionsAllowed ?? 0 },
    AGE_COLUMN
  ],
  example: {
    metadata: { name: 'web' },
    spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    status: {
      observedGeneration: 1,
      disruptionsAllowed: 1,
      currentHealthy: 2,
      desiredHealthy: 1,
      expectedPods: 2,
      conditions: [{ type: 'DisruptionAllowed', status: 'True', observedGeneration: 1, lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'SufficientPods', message: '' }]
    }
  }
})
