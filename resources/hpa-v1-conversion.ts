// autoscaling/v1 HorizontalPodAutoscaler over the stored autoscaling/v2 objects. v1 knows one
// metric, the CPU utilization percentage; what else v2 holds travels in annotations, as the
// reference's conversion writes them, so that a v1 client's read-modify-write keeps it: the
// other metrics and metric statuses in the v1 metric types' JSON, the conditions as v1
// conditions, the behavior as the reference's internal Go struct marshals it (field names
// capitalised, unset pointers null).
import { Type } from '@sinclair/typebox'
import type { AnyObject } from './define.js'
import { Int32, Int64, objectSchema, Timestamp } from './meta.js'
import { keepZero, message } from './protobuf.js'
import { CrossVersionObjectReference } from './hpa-metrics.js'

export const AUTOSCALING = 'autoscaling'

/**
 * Spelled as the reference spells them, not with the vendor's suffix: v1 objects copied from or
 * to a reference cluster carry them, and what they hold only round-trips under these names.
 */
export const ROUND_TRIP_ANNOTATIONS = {
  metrics: `${AUTOSCALING}.alpha.kubernetes.io/metrics`,
  currentMetrics: `${AUTOSCALING}.alpha.kubernetes.io/current-metrics`,
  conditions: `${AUTOSCALING}.alpha.kubernetes.io/conditions`,
  behavior: `${AUTOSCALING}.alpha.kubernetes.io/behavior`
} as const

const opt = Type.Optional
const struct = { additionalProperties: false }

export const v1Schema = objectSchema(`${AUTOSCALING}/v1`, 'HorizontalPodAutoscaler', {
  spec: opt(Type.Object({
    scaleTargetRef: opt(CrossVersionObjectReference),
    minReplicas: opt(Int32({ description: 'The lower limit for the number of pods; defaults to 1.' })),
    maxReplicas: opt(Int32({ description: 'The upper limit for the number of pods; cannot be smaller than minReplicas.' })),
    targetCPUUtilizationPercentage: opt(Int32({ description: 'The target average CPU utilization over all the pods, as a percentage of the requested CPU.' }))
  }, { ...struct, description: 'specification of a horizontal pod autoscaler.', ...message('HorizontalPodAutoscalerSpec', { scaleTargetRef: 1, minReplicas: keepZero(2), maxReplicas: keepZero(3), targetCPUUtilizationPercentage: keepZero(4) }) })),
  status: opt(Type.Object({
    observedGeneration: opt(Int64()),
    lastScaleTime: opt(Type.Union([Timestamp(), Type.Null()])),
    currentReplicas: opt(Int32()),
    desiredReplicas: opt(Int32()),
    currentCPUUtilizationPercentage: opt(Int32())
  }, { ...struct, description: 'current information about the autoscaler.', ...message('HorizontalPodAutoscalerStatus', { observedGeneration: keepZero(1), lastScaleTime: 2, currentReplicas: keepZero(3), desiredReplicas: keepZero(4), currentCPUUtilizationPercentage: keepZero(5) }) }))
}, 'configuration of a horizontal pod autoscaler.', { spec: 2, status: 3 })

type Obj = Record<string, any>

const present = (v: unknown): boolean => v !== undefined && v !== null
/** An object with the unset (undefined) properties left out, in the order given. */
const compact = (o: Obj): Obj => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
const orNull = (v: unknown): unknown => v === undefined ? null : v
const ZERO = '0'

const isCpuUtilization = (m: Obj): boolean => m.type === 'Resource' && m.resource?.name === 'cpu' && present(m.resource?.target?.averageUtilization)

// ---- v2 metric types ⇄ v1 metric types (the annotations' JSON) ----------------------------------

const refToV1 = (r: Obj | undefined): Obj => compact({ kind: r?.kind ?? '', name: r?.name ?? '', apiVersion: r?.apiVersion === '' ? undefined : r?.apiVersion })
const refFromV1 = (r: Obj | undefined): Obj => compact({ kind: r?.kind ?? '', name: r?.name ?? '', apiVersion: r?.apiVersion })
const identifier = (name: unknown, selector: unknown): Obj => compact({ name: name ?? '', selector: selector ?? undefined })

function metricSpecToV1 (m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' }
  if (present(m.object)) {
    const t: Obj = m.object.target ?? {}
    out.object = compact({ target: refToV1(m.object.describedObject), metricName: m.object.metric?.name ?? '', targetValue: t.value ?? ZERO, selector: m.object.metric?.selector, averageValue: t.averageValue })
  }
  if (present(m.pods)) out.pods = compact({ metricName: m.pods.metric?.name ?? '', targetAverageValue: m.pods.target?.averageValue ?? ZERO, selector: m.pods.metric?.selector })
  if (present(m.resource)) out.resource = compact({ name: m.resource.name ?? '', targetAverageUtilization: m.resource.target?.averageUtilization, targetAverageValue: m.resource.target?.averageValue })
  if (present(m.containerResource)) {
    const c: Obj = m.containerResource
    out.containerResource = compact({ name: c.name ?? '', targetAverageUtilization: c.target?.averageUtilization, targetAverageValue: c.target?.averageValue, container: c.container ?? '' })
  }
  if (present(m.external)) {
    const t: Obj = m.external.target ?? {}
    out.external = compact({ metricName: m.external.metric?.name ?? '', metricSelector: m.external.metric?.selector, targetValue: t.value, targetAverageValue: t.averageValue })
  }
  return out
}

const resourceTarget = (utilization: unknown, averageValue: unknown): Obj =>
  compact({ type: present(utilization) ? 'Utilization' : 'AverageValue', averageValue: averageValue ?? undefined, averageUtilization: utilization ?? undefined })

function metricSpecFromV1 (m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' }
  if (present(m.object)) {
    const o: Obj = m.object
    const average = o.averageValue ?? undefined
    // The reference gives every converted Object target its targetValue, "0" included, which a
    // target by averageValue alone then fails validation with; a zero beside an averageValue
    // is the zero the other direction wrote, so it is left out.
    const value = present(average) && (o.targetValue === undefined || o.targetValue === ZERO) ? undefined : (o.targetValue ?? ZERO)
    out.object = { describedObject: refFromV1(o.target), target: compact({ type: present(average) ? 'AverageValue' : 'Value', value, averageValue: average }), metric: identifier(o.metricName, o.selector) }
  }
  if (present(m.pods)) out.pods = { metric: identifier(m.pods.metricName, m.pods.selector), target: { type: 'AverageValue', averageValue: m.pods.targetAverageValue ?? ZERO } }
  if (present(m.resource)) out.resource = { name: m.resource.name ?? '', target: resourceTarget(m.resource.targetAverageUtilization, m.resource.targetAverageValue) }
  if (present(m.containerResource)) {
    const c: Obj = m.containerResource
    out.containerResource = { name: c.name ?? '', target: resourceTarget(c.targetAverageUtilization, c.targetAverageValue), container: c.container ?? '' }
  }
  if (present(m.external)) {
    const e: Obj = m.external
    out.external = { metric: identifier(e.metricName, e.metricSelector), target: compact({ type: present(e.targetValue) ? 'Value' : 'AverageValue', value: e.targetValue ?? undefined, averageValue: e.targetAverageValue ?? undefined }) }
  }
  return out
}

function metricStatusToV1 (m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' }
  if (present(m.object)) {
    const c: Obj = m.object.current ?? {}
    out.object = compact({ target: refToV1(m.object.describedObject), metricName: m.object.metric?.name ?? '', currentValue: c.value ?? ZERO, selector: m.object.metric?.selector, averageValue: c.averageValue })
  }
  if (present(m.pods)) out.pods = compact({ metricName: m.pods.metric?.name ?? '', currentAverageValue: m.pods.current?.averageValue ?? ZERO, selector: m.pods.metric?.selector })
  if (present(m.resource)) out.resource = compact({ name: m.resource.name ?? '', currentAverageUtilization: m.resource.current?.averageUtilization, currentAverageValue: m.resource.current?.averageValue ?? ZERO })
  if (present(m.containerResource)) {
    const c: Obj = m.containerResource
    out.containerResource = compact({ name: c.name ?? '', currentAverageUtilization: c.current?.averageUtilization, currentAverageValue: c.current?.averageValue ?? ZERO, container: c.container ?? '' })
  }
  if (present(m.external)) {
    const e: Obj = m.external
    out.external = compact({ metricName: e.metric?.name ?? '', metricSelector: e.metric?.selector, currentValue: e.current?.value ?? ZERO, currentAverageValue: e.current?.averageValue })
  }
  return out
}

function metricStatusFromV1 (m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' }
  if (present(m.object)) out.object = { metric: identifier(m.object.metricName, m.object.selector), current: compact({ value: m.object.currentValue ?? ZERO, averageValue: m.object.averageValue ?? undefined }), describedObject: refFromV1(m.object.target) }
  if (present(m.pods)) out.pods = { metric: identifier(m.pods.metricName, m.pods.selector), current: { averageValue: m.pods.currentAverageValue ?? ZERO } }
  if (present(m.resource)) out.resource = { name: m.resource.name ?? '', current: compact({ averageValue: m.resource.currentAverageValue ?? ZERO, averageUtilization: m.resource.currentAverageUtilization ?? undefined }) }
  if (present(m.containerResource)) {
    const c: Obj = m.containerResource
    out.containerResource = { name: c.name ?? '', current: compact({ averageValue: c.currentAverageValue ?? ZERO, averageUtilization: c.currentAverageUtilization ?? undefined }), container: c.container ?? '' }
  }
  if (present(m.external)) out.external = { metric: identifier(m.external.metricName, m.external.metricSelector), current: compact({ value: m.external.currentValue ?? ZERO, averageValue: m.external.currentAverageValue ?? undefined }) }
  return out
}

const conditionToV1 = (c: Obj): Obj => compact({ type: c.type ?? '', status: c.status ?? '', lastTransitionTime: orNull(c.lastTransitionTime), reason: c.reason || undefined, message: c.message || undefined })
const conditionFromV1 = (c: Obj): Obj => compact({ type: c.type ?? '', status: c.status ?? '', lastTransitionTime: c.lastTransitionTime ?? undefined, reason: c.reason || undefined, message: c.message || undefined })

// ---- behavior: the internal Go struct's JSON ---------------------------------------------------

const rulesToGo = (r: Obj | undefined): unknown => r == null
  ? null
  : {
      StabilizationWindowSeconds: orNull(r.stabilizationWindowSeconds),
      SelectPolicy: orNull(r.selectPolicy),
      Policies: r.policies == null ? null : (r.policies as Obj[]).map(p => ({ Type: p.type ?? '', Value: p.value ?? 0, PeriodSeconds: p.periodSeconds ?? 0 })),
      Tolerance: orNull(r.tolerance)
    }

/** A field of a decoded Go struct, its name matched without regard to case (as encoding/json does). */
const goField = (o: Obj, name: string): any => {
  const lower = name.toLowerCase()
  const key = Object.keys(o).find(k => k.toLowerCase() === lower)
  return key === undefined ? undefined : o[key]
}
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

function rulesFromGo (r: unknown): Obj | undefined {
  if (!isObject(r)) return undefined
  const policies = goField(r, 'Policies')
  return compact({
    stabilizationWindowSeconds: goField(r, 'StabilizationWindowSeconds') ?? undefined,
    selectPolicy: goField(r, 'SelectPolicy') ?? undefined,
    policies: Array.isArray(policies) ? policies.filter(isObject).map(p => ({ type: goField(p, 'Type') ?? '', value: goField(p, 'Value') ?? 0, periodSeconds: goField(p, 'PeriodSeconds') ?? 0 })) : undefined,
    tolerance: goField(r, 'Tolerance') ?? undefined
  })
}

/** The behavior an annotation holds; undefined when it is malformed or empty (only well-formed data moves to fields). */
function behaviorFromAnnotation (text: string): Obj | undefined {
  const parsed = parseJson(text)
  if (!isObject(parsed)) return undefined
  const behavior = compact({ scaleUp: rulesFromGo(goField(parsed, 'ScaleUp')), scaleDown: rulesFromGo(goField(parsed, 'ScaleDown')) })
  return Object.keys(behavior).length === 0 ? undefined : behavior
}

function parseJson (text: string): unknown {
  try { return JSON.parse(text) } catch { return undefined }
}

/** A list an annotation holds, each item converted; undefined when it is not a JSON list of objects. */
function listFromAnnotation (text: string | undefined, convert: (item: Obj) => Obj): Obj[] | undefined {
  if (text === undefined) return undefined
  const parsed = parseJson(text)
  return Array.isArray(parsed) && parsed.every(isObject) ? parsed.map(convert) : undefined
}

const ROUND_TRIP_NAMES: readonly string[] = Object.values(ROUND_TRIP_ANNOTATIONS)
/** The annotations but those the conversion writes; undefined when none are left but those were there. */
const withoutRoundTrip = (annotations: Obj | undefined | null): Obj | undefined => {
  if (annotations == null) return undefined
  const rest = Object.fromEntries(Object.entries(annotations).filter(([k]) => !ROUND_TRIP_NAMES.includes(k)))
  return Object.keys(rest).length === 0 && Object.keys(annotations).length > 0 ? undefined : rest
}

// ---- the conversion --------------------------------------------------------------------------

/**
 * Whether the current metrics are exactly what currentCPUUtilizationPercentage alone brings back
 * (one CPU utilization, no raw value): then no annotation is needed to keep them.
 */
const cpuPercentageOnly = (metrics: Obj[]): boolean => metrics.length === 1 && metrics[0]!.type === 'Resource' &&
  metrics[0]!.resource?.name === 'cpu' && Object.keys(metrics[0]!).length === 2 && Object.keys(metrics[0]!.resource).length === 2 &&
  Object.keys(metrics[0]!.resource.current ?? {}).join() === 'averageUtilization'

/** A stored (v2) object as autoscaling/v1 serves it. */
export function toV1 (obj: AnyObject): AnyObject {
  const { metadata, spec, status, ...rest } = obj
  const out: AnyObject = {}
  const annotations: Obj = { ...(withoutRoundTrip(metadata?.annotations) ?? {}) }
  if (spec != null) {
    const metrics: Obj[] = spec.metrics ?? []
    const cpu = metrics.find(m => m.type === 'Resource' && m.resource?.name === 'cpu')
    const other = metrics.filter(m => !isCpuUtilization(m))
    if (other.length > 0) annotations[ROUND_TRIP_ANNOTATIONS.metrics] = JSON.stringify(other.map(metricSpecToV1))
    if (spec.behavior != null) annotations[ROUND_TRIP_ANNOTATIONS.behavior] = JSON.stringify({ ScaleUp: rulesToGo(spec.behavior.scaleUp), ScaleDown: rulesToGo(spec.behavior.scaleDown) })
    out.spec = compact({
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas ?? 0,
      targetCPUUtilizationPercentage: cpu?.resource?.target?.averageUtilization ?? undefined
    })
  }
  if (status != null) {
    const current: Obj[] = status.currentMetrics ?? []
    const conditions: Obj[] = status.conditions ?? []
    if (current.length > 0 && !cpuPercentageOnly(current)) annotations[ROUND_TRIP_ANNOTATIONS.currentMetrics] = JSON.stringify(current.map(metricStatusToV1))
    if (conditions.length > 0) annotations[ROUND_TRIP_ANNOTATIONS.conditions] = JSON.stringify(conditions.map(conditionToV1))
    // The last CPU utilization read wins, as in the reference's loop.
    const cpu = current.filter(m => m.type === 'Resource' && m.resource?.name === 'cpu' && present(m.resource?.current?.averageUtilization)).at(-1)
    out.status = compact({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      currentReplicas: status.currentReplicas ?? 0,
      desiredReplicas: status.desiredReplicas ?? 0,
      currentCPUUtilizationPercentage: cpu?.resource.current.averageUtilization
    })
  }
  return { ...rest, ...(metadata === undefined ? {} : { metadata: withAnnotations(metadata, annotations) }), ...compact({ spec: out.spec, status: out.status }) }
}

/** Metadata with `annotations`, left out when there are none (as an empty Go map is). */
const withAnnotations = (metadata: Obj, annotations: Obj): Obj =>
  compact({ ...metadata, annotations: Object.keys(annotations).length > 0 || isEmptyMap(metadata.annotations) ? annotations : undefined })
const isEmptyMap = (v: unknown): boolean => isObject(v) && Object.keys(v).length === 0

/** An autoscaling/v1 object in the stored (v2) form. */
export function fromV1 (obj: AnyObject): AnyObject {
  const { metadata, spec, status, ...rest } = obj
  const annotations: Obj = metadata?.annotations ?? {}
  const out: AnyObject = { ...rest }
  if (metadata !== undefined) out.metadata = compact({ ...metadata, annotations: withoutRoundTrip(metadata.annotations) })
  if (spec != null) {
    const metrics: Obj[] = listFromAnnotation(annotations[ROUND_TRIP_ANNOTATIONS.metrics], metricSpecFromV1) ?? []
    if (present(spec.targetCPUUtilizationPercentage)) {
      metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } })
    }
    const behaviorText = annotations[ROUND_TRIP_ANNOTATIONS.behavior]
    out.spec = compact({
      scaleTargetRef: spec.scaleTargetRef,
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas,
      metrics: metrics.length === 0 ? undefined : metrics,
      behavior: behaviorText === undefined ? undefined : behaviorFromAnnotation(behaviorText)
    })
  }
  if (status != null) {
    const fromAnnotation = listFromAnnotation(annotations[ROUND_TRIP_ANNOTATIONS.currentMetrics], metricStatusFromV1)
    const cpu = present(status.currentCPUUtilizationPercentage) ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } }] : undefined
    const conditions = listFromAnnotation(annotations[ROUND_TRIP_ANNOTATIONS.conditions], conditionFromV1)
    out.status = compact({
      observedGeneration: status.observedGeneration,
      lastScaleTime: status.lastScaleTime,
      // v2 leaves a zero currentReplicas out (omitempty); desiredReplicas it always has.
      currentReplicas: status.currentReplicas === 0 ? undefined : status.currentReplicas,
      desiredReplicas: status.desiredReplicas ?? 0,
      // The annotation's metrics have more than the percentage: they win, as in the reference.
      currentMetrics: fromAnnotation ?? cpu,
      conditions: conditions === undefined || conditions.length === 0 ? undefined : conditions
    })
  }
  return out
}
