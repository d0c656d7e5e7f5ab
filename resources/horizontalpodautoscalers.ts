// HorizontalPodAutoscaler (autoscaling/v2, namespaced): the bounds and metrics a controller
// scales a workload's replicas by, through the target's scale subresource. Stored as v2; also
// served as autoscaling/v1, which knows only a CPU percentage and keeps the rest in annotations
// (hpa-v1-conversion.ts). `kubectl get hpa` asks for v2 Tables; `kubectl autoscale` creates v2.
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type AnyObject, type Column, type FieldError, type RequestContext } from './define.js'
import { Int32, Int64, objectSchema, Quantity, Timestamp } from './meta.js'
import { AtomicList, MapList } from './core-types.js'
import { keepZero, message } from './protobuf.js'
import { isNegativeQuantity } from './quantity.js'
import { CrossVersionObjectReference, formatHPAMetrics, inStatusOrder, MetricSpec, MetricStatus, validateMetrics, validateReference } from './hpa-metrics.js'
import { AUTOSCALING, fromV1, toV1, v1Schema } from './hpa-v1-conversion.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

// Scalars the reference decodes as zero when absent (maxReplicas, a policy's value, the type
// fields) are optional here, so that their absence is answered by validation in the
// reference's words ("must be greater than 0"), not as a missing required field.
const HPAScalingPolicy = Type.Object({
  type: opt(Type.String({ description: 'Pods or Percent.' })),
  value: opt(Int32({ description: 'The amount of change the policy permits; greater than zero.' })),
  periodSeconds: opt(Int32({ description: 'The window the policy holds over; 1 to 1800 seconds.' }))
}, { ...struct, ...message('HPAScalingPolicy', { type: keepZero(1), value: keepZero(2), periodSeconds: keepZero(3) }) })

const HPAScalingRules = Type.Object({
  stabilizationWindowSeconds: opt(Int32({ description: 'Seconds of past recommendations considered; 0 to 3600.' })),
  selectPolicy: opt(Type.String({ description: 'Max, Min or Disabled; Max when unset.' })),
  policies: opt(AtomicList(HPAScalingPolicy)),
  tolerance: opt(Quantity({ description: 'The ratio deviation under which no scaling happens (alpha, HPAConfigurableTolerance).' }))
}, { ...struct, description: 'HPAScalingRules configures the scaling behavior for one direction.', ...message('HPAScalingRules', { selectPolicy: keepZero(1), policies: 2, stabilizationWindowSeconds: keepZero(3), tolerance: 4 }) })

const Condition = Type.Object({
  type: Type.String(),
  status: Type.String(),
  lastTransitionTime: opt(Type.Union([Timestamp(), Type.Null()])),
  reason: opt(Type.String()),
  message: opt(Type.String())
}, { ...struct, ...message('HorizontalPodAutoscalerCondition', { type: keepZero(1), status: keepZero(2), lastTransitionTime: 3, reason: 4, message: 5 }) })

const schema = objectSchema(`${AUTOSCALING}/v2`, 'HorizontalPodAutoscaler', {
  spec: opt(Type.Object({
    scaleTargetRef: opt(CrossVersionObjectReference),
    minReplicas: opt(Int32({ description: 'The lower limit for the number of replicas; defaults to 1.' })),
    maxReplicas: opt(Int32({ description: 'The upper limit for the number of replicas; not less than minReplicas.' })),
    metrics: opt(AtomicList(MetricSpec, { description: 'What the desired replica count is calculated from; 80% average CPU utilization when unset.' })),
    behavior: opt(Type.Object({
      scaleUp: opt(HPAScalingRules),
      scaleDown: opt(HPAScalingRules)
    }, { ...struct, description: 'The scaling behavior up and down.', ...message('HorizontalPodAutoscalerBehavior', { scaleUp: 1, scaleDown: 2 }) }))
  }, { ...struct, description: 'HorizontalPodAutoscalerSpec describes the desired functionality of the HorizontalPodAutoscaler.', ...message('HorizontalPodAutoscalerSpec', { scaleTargetRef: 1, minReplicas: keepZero(2), maxReplicas: keepZero(3), metrics: 4, behavior: 5 }) })),
  status: opt(Type.Object({
    observedGeneration: opt(Int64()),
    lastScaleTime: opt(Type.Union([Timestamp(), Type.Null()])),
    currentReplicas: opt(Int32()),
    desiredReplicas: opt(Int32()),
    currentMetrics: opt(AtomicList(MetricStatus)),
    conditions: opt(MapList(Condition, ['type']))
  }, { ...struct, description: 'HorizontalPodAutoscalerStatus describes the current status of a horizontal pod autoscaler.', ...message('HorizontalPodAutoscalerStatus', { observedGeneration: keepZero(1), lastScaleTime: 2, currentReplicas: 3, desiredReplicas: keepZero(4), currentMetrics: 5, conditions: 6 }) }))
}, 'HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which automatically manages the replica count of any resource implementing the scale subresource based on the metrics specified.', { spec: 2, status: 3 })

type Hpa = AnyObject

// ---- defaults (pkg/apis/autoscaling/v2/defaults.go) -------------------------------------------

const DEFAULT_CPU_UTILIZATION = 80
const scaleUpDefaults = (): Hpa => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }]
})
// No stabilization window: the controller's flag decides it for scaling down.
const scaleDownDefaults = (): Hpa => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] })

/** The defaults filled into what a rule leaves unset (a set but empty policies list stays), fields in the type's order. */
function withDefaults (rules: Hpa | undefined | null, defaults: Hpa): Hpa {
  const out: Hpa = {}
  for (const key of ['stabilizationWindowSeconds', 'selectPolicy', 'policies', 'tolerance']) {
    const value = rules?.[key] ?? defaults[key]
    if (value !== undefined && value !== null) out[key] = value
  }
  return out
}

function applyDefaults (hpa: Hpa): void {
  const spec: Hpa = hpa.spec ??= {}
  spec.minReplicas ??= 1
  if ((spec.metrics ?? []).length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }]
  }
  // Only a behavior that is there is completed; without one the controller's defaults apply.
  if (spec.behavior != null) {
    spec.behavior = { scaleUp: withDefaults(spec.behavior.scaleUp, scaleUpDefaults()), scaleDown: withDefaults(spec.behavior.scaleDown, scaleDownDefaults()) }
  }
}

const toleranceInUse = (hpa: Hpa | undefined): boolean =>
  hpa?.spec?.behavior?.scaleUp?.tolerance != null || hpa?.spec?.behavior?.scaleDown?.tolerance != null

/**
 * While the alpha HPAConfigurableTolerance gate is off, a new tolerance is dropped, as the
 * reference drops a disabled field, unless the object already had one.
 */
function dropDisabledFields (hpa: Hpa, old: Hpa | undefined, ctx: RequestContext): void {
  if (ctx.features.enabled('HPAConfigurableTolerance') || toleranceInUse(old)) return
  for (const rules of [hpa.spec?.behavior?.scaleUp, hpa.spec?.behavior?.scaleDown]) {
    if (rules != null) delete rules.tolerance
  }
}

// ---- validation (pkg/apis/autoscaling/validation) ---------------------------------------------

const MAX_PERIOD_SECONDS = 1800
const MAX_STABILIZATION_WINDOW_SECONDS = 3600
const SELECT_POLICIES = ['Disabled', 'Max', 'Min']
const POLICY_TYPES = ['Percent', 'Pods']

function validateScalingRules (rules: Hpa | undefined | null, field: string): FieldError[] {
  if (rules == null) return []
  const errors: FieldError[] = []
  const window = rules.stabilizationWindowSeconds
  if (window != null && window < 0) errors.push({ type: 'Invalid', field: `${field}.stabilizationWindowSeconds`, value: window, detail: 'must be greater than or equal to zero' })
  if (window != null && window > MAX_STABILIZATION_WINDOW_SECONDS) errors.push({ type: 'Invalid', field: `${field}.stabilizationWindowSeconds`, value: window, detail: `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}` })
  if (rules.selectPolicy != null && !SELECT_POLICIES.includes(rules.selectPolicy)) errors.push({ type: 'NotSupported', field: `${field}.selectPolicy`, value: rules.selectPolicy, supported: SELECT_POLICIES })
  const policies: Hpa[] = rules.policies ?? []
  if (policies.length === 0) errors.push({ type: 'Required', field: `${field}.policies`, detail: 'must specify at least one Policy' })
  policies.forEach((p, i) => {
    const at = `${field}.policies[${i}]`
    if (!POLICY_TYPES.includes(p.type)) errors.push({ type: 'NotSupported', field: `${at}.type`, value: p.type ?? '', supported: POLICY_TYPES })
    if (!((p.value ?? 0) > 0)) errors.push({ type: 'Invalid', field: `${at}.value`, value: p.value ?? 0, detail: 'must be greater than zero' })
    if (!((p.periodSeconds ?? 0) > 0)) errors.push({ type: 'Invalid', field: `${at}.periodSeconds`, value: p.periodSeconds ?? 0, detail: 'must be greater than zero' })
    if ((p.periodSeconds ?? 0) > MAX_PERIOD_SECONDS) errors.push({ type: 'Invalid', field: `${at}.periodSeconds`, value: p.periodSeconds, detail: `must be less than or equal to ${MAX_PERIOD_SECONDS}` })
  })
  if (typeof rules.tolerance === 'string' && isNegativeQuantity(rules.tolerance)) errors.push({ type: 'Invalid', field: `${field}.tolerance`, value: rules.tolerance, detail: 'must be greater or equal to zero' })
  return errors
}

/** The spec rules but the lower bound of minReplicas, which depends on create or update. */
function validateSpec (spec: Hpa): FieldError[] {
  const errors: FieldError[] = []
  const max: number = spec.maxReplicas ?? 0
  if (max < 1) errors.push({ type: 'Invalid', field: 'spec.maxReplicas', value: max, detail: 'must be greater than 0' })
  if (spec.minReplicas != null && max < spec.minReplicas) errors.push({ type: 'Invalid', field: 'spec.maxReplicas', value: max, detail: 'must be greater than or equal to `minReplicas`' })
  errors.push(...validateReference(spec.scaleTargetRef, 'spec.scaleTargetRef'))
  errors.push(...validateMetrics(spec.metrics, spec.minReplicas ?? undefined, 'spec.metrics'))
  if (spec.behavior != null) {
    errors.push(...validateScalingRules(spec.behavior.scaleUp, 'spec.behavior.scaleUp'), ...validateScalingRules(spec.behavior.scaleDown, 'spec.behavior.scaleDown'))
  }
  return errors
}

/** minReplicas may be 0 only with the alpha HPAScaleToZero gate, or when it already was 0. */
function validateMinReplicas (hpa: Hpa, lowerBound: number): FieldError[] {
  const min = hpa.spec?.minReplicas
  return min != null && min < lowerBound ? [{ type: 'Invalid', field: 'spec.minReplicas', value: min, detail: `must be greater than or equal to ${lowerBound}` }] : []
}

function validateStatus (status: Hpa | undefined): FieldError[] {
  const errors: FieldError[] = []
  for (const key of ['currentReplicas', 'desiredReplicas']) {
    const value = status?.[key] ?? 0
    if (value < 0) errors.push({ type: 'Invalid', field: `status.${key}`, value, detail: 'must be greater than or equal to 0' })
  }
  return errors
}

const prepare = (hpa: Hpa, old: Hpa | undefined, ctx: RequestContext): void => {
  applyDefaults(hpa)
  dropDisabledFields(hpa, old, ctx)
}

const scaleToZero = (ctx: RequestContext): boolean => ctx.features.enabled('HPAScaleToZero')

const reference = (h: Hpa): string => `${String(h.spec?.scaleTargetRef?.kind ?? '')}/${String(h.spec?.scaleTargetRef?.name ?? '')}`

/** The reference printer's columns; `targets` reads the metrics of the form the table is of. */
const columns = (targets: (h: Hpa) => string): Column[] => [
  { name: 'Reference', type: 'string', description: 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.', value: reference },
  { name: 'Targets', type: 'string', description: 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).', value: targets },
  { name: 'MinPods', type: 'string', description: 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.', value: (h: Hpa) => h.spec?.minReplicas == null ? '<unset>' : String(h.spec.minReplicas) },
  { name: 'MaxPods', type: 'integer', description: 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.', value: (h: Hpa) => h.spec?.maxReplicas ?? 0 },
  { name: 'Replicas', type: 'integer', description: 'currentReplicas is current number of replicas of pods managed by this autoscaler.', value: (h: Hpa) => h.status?.currentReplicas ?? 0 }
]

export default defineResource({
  group: AUTOSCALING,
  version: 'v2',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  singular: 'horizontalpodautoscaler',
  shortNames: ['hpa'],
  categories: ['all'],
  scope: 'Namespaced',
  schema,
  subresources: { status: statusSubresource() },
  strategy: {
    prepareForCreate (hpa, ctx) {
      prepare(hpa, undefined, ctx)
      // A new autoscaler has observed nothing: the zero status the reference serialises.
      hpa.status = { desiredReplicas: 0 }
    },
    prepareForUpdate (hpa, old, ctx) { prepare(hpa, old, ctx) },
    validate (hpa) { return [...validateSpec(hpa.spec ?? {}), ...validateStatus(hpa.status)] },
    validateCreate (hpa, ctx) { return validateMinReplicas(hpa, scaleToZero(ctx) ? 0 : 1) },
    validateUpdate (hpa, old, ctx) { return validateMinReplicas(hpa, scaleToZero(ctx) || old.spec?.minReplicas === 0 ? 0 : 1) }
  },
  columns: columns((h) => formatHPAMetrics(h.spec?.metrics, h.status?.currentMetrics)),
  servedAs: [{
    group: AUTOSCALING,
    version: 'v1',
    kind: 'HorizontalPodAutoscaler',
    introduced: '1.2',
    schema: v1Schema,
    fromStored: toV1,
    toStored: fromV1,
    subresources: ['status'],
    fieldLabels: { 'metadata.namespace': 'metadata.namespace', 'metadata.name': 'metadata.name' },
    columns: columns((h) => {
      const { spec, status } = fromV1(h)
      return formatHPAMetrics(inStatusOrder(spec?.metrics, status?.currentMetrics), status?.currentMetrics)
    })
  }],
  example: {
    metadata: { name: 'web' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 10,
      metrics: [
        { type: 'Pods', pods: { metric: { name: 'requests-per-second' }, target: { type: 'AverageValue', averageValue: '100' } } },
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 120, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } }
    },
    status: {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [
        { type: 'Pods', pods: { metric: { name: 'requests-per-second' }, current: { averageValue: '150' } } },
        { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '300m', averageUtilization: 75 } } }
      ],
      conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'SucceededRescale', message: 'the HPA controller was able to update the target scale to 3' }]
    }
  }
})
