// The metrics of an autoscaling/v2 HorizontalPodAutoscaler: what it scales on (spec.metrics) and
// what it last read (status.currentMetrics), one of five sources each; their validation and
// the TARGETS cell kubectl shows for them.
import { Type } from '@sinclair/typebox'
import { Int32, Quantity } from './meta.js'
import { LabelSelector } from './core-types.js'
import { keepZero, message } from './protobuf.js'
import type { FieldError } from './status.js'
import { formatQuantity, isNegativeQuantity, isZeroQuantity, parseQuantity } from './quantity.js'
import { dnsLabelProblems, invalidEach, pathSegmentProblems, qualifiedNameProblems } from './validation.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

export const CrossVersionObjectReference = Type.Object({
  kind: Type.String({ description: 'The kind of the referent.' }),
  name: Type.String({ description: 'The name of the referent.' }),
  apiVersion: opt(Type.String({ description: 'The API version of the referent.' }))
}, { ...struct, description: 'CrossVersionObjectReference contains enough information to let you identify the referred resource.', ...message('CrossVersionObjectReference', { kind: keepZero(1), name: keepZero(2), apiVersion: 3 }) })

const MetricIdentifier = Type.Object({
  name: opt(Type.String({ description: 'The name of the given metric.' })),
  selector: opt(LabelSelector)
}, { ...struct, ...message('MetricIdentifier', { name: keepZero(1), selector: 2 }) })

const MetricTarget = Type.Object({
  type: opt(Type.String({ description: 'Utilization, Value, or AverageValue.' })),
  value: opt(Quantity()),
  averageValue: opt(Quantity()),
  averageUtilization: opt(Int32({ description: 'A percentage of the requested value of the resource, averaged across pods.' }))
}, { ...struct, ...message('MetricTarget', { type: keepZero(1), value: 2, averageValue: 3, averageUtilization: keepZero(4) }) })

const MetricValueStatus = Type.Object({
  value: opt(Quantity()),
  averageValue: opt(Quantity()),
  averageUtilization: opt(Int32())
}, { ...struct, ...message('MetricValueStatus', { value: 1, averageValue: 2, averageUtilization: keepZero(3) }) })

// A source's parts are optional as its scalars are (see horizontalpodautoscalers.ts): the
// reference reads an absent one as empty and validation names what is missing.
const identified = (name: string, measure: 'target' | 'current') => Type.Object({
  metric: opt(MetricIdentifier),
  [measure]: opt(measure === 'target' ? MetricTarget : MetricValueStatus)
}, { ...struct, ...message(name, { metric: 1, [measure]: 2 }) })

export const MetricSpec = Type.Object({
  type: opt(Type.String({ description: 'ContainerResource, External, Object, Pods or Resource, naming the one source field set.' })),
  object: opt(Type.Object({
    describedObject: opt(CrossVersionObjectReference),
    target: opt(MetricTarget),
    metric: opt(MetricIdentifier)
  }, { ...struct, ...message('ObjectMetricSource', { describedObject: 1, target: 2, metric: 3 }) })),
  pods: opt(identified('PodsMetricSource', 'target')),
  resource: opt(Type.Object({ name: opt(Type.String()), target: opt(MetricTarget) }, { ...struct, ...message('ResourceMetricSource', { name: keepZero(1), target: 2 }) })),
  containerResource: opt(Type.Object({ name: opt(Type.String()), target: opt(MetricTarget), container: opt(Type.String()) }, { ...struct, ...message('ContainerResourceMetricSource', { name: keepZero(1), target: 2, container: keepZero(3) }) })),
  external: opt(identified('ExternalMetricSource', 'target'))
}, { ...struct, description: 'MetricSpec specifies how to scale based on a single metric.', ...message('MetricSpec', { type: keepZero(1), object: 2, pods: 3, resource: 4, external: 5, containerResource: 7 }) })

export const MetricStatus = Type.Object({
  type: Type.String(),
  object: opt(Type.Object({
    metric: MetricIdentifier,
    current: MetricValueStatus,
    describedObject: CrossVersionObjectReference
  }, { ...struct, ...message('ObjectMetricStatus', { metric: 1, current: 2, describedObject: 3 }) })),
  pods: opt(identified('PodsMetricStatus', 'current')),
  resource: opt(Type.Object({ name: Type.String(), current: MetricValueStatus }, { ...struct, ...message('ResourceMetricStatus', { name: keepZero(1), current: 2 }) })),
  containerResource: opt(Type.Object({ name: Type.String(), current: MetricValueStatus, container: Type.String() }, { ...struct, ...message('ContainerResourceMetricStatus', { name: keepZero(1), current: 2, container: keepZero(3) }) })),
  external: opt(identified('ExternalMetricStatus', 'current'))
}, { ...struct, description: 'MetricStatus describes the last-read state of a single metric.', ...message('MetricStatus', { type: keepZero(1), object: 2, pods: 3, resource: 4, external: 5, containerResource: 7 }) })

// ---- validation ------------------------------------------------------------------------------

type Obj = Record<string, any>

/** The source types, sorted as the reference lists them in its NotSupported causes. */
export const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource']
/** Each source type and the field that carries it, in the order the reference checks them. */
const SOURCE_FIELDS: ReadonlyArray<[string, string]> = [['Object', 'object'], ['External', 'external'], ['Pods', 'pods'], ['Resource', 'resource'], ['ContainerResource', 'containerResource']]

const present = (v: unknown): boolean => v !== undefined && v !== null
const positive = (q: unknown): boolean => typeof q === 'string' && !isNegativeQuantity(q) && !isZeroQuantity(q)

/** A CrossVersionObjectReference: kind and name required, each usable as a path segment. */
export function validateReference (ref: Obj | undefined, field: string): FieldError[] {
  const errors: FieldError[] = []
  for (const part of ['kind', 'name']) {
    const value: string = ref?.[part] ?? ''
    if (value === '') errors.push({ type: 'Required', field: `${field}.${part}`, detail: '' })
    else errors.push(...invalidEach(`${field}.${part}`, value, pathSegmentProblems(value)))
  }
  return errors
}

function validateIdentifier (id: Obj | undefined, field: string): FieldError[] {
  const name: string = id?.name ?? ''
  if (name === '') return [{ type: 'Required', field: `${field}.name`, detail: 'must specify a metric name' }]
  return invalidEach(`${field}.name`, name, pathSegmentProblems(name))
}

function validateTarget (t: Obj | undefined, field: string): FieldError[] {
  const errors: FieldError[] = []
  const type: string = t?.type ?? ''
  if (type === '') errors.push({ type: 'Required', field: `${field}.type`, detail: 'must specify a metric target type' })
  if (!['Utilization', 'Value', 'AverageValue'].includes(type)) errors.push({ type: 'Invalid', field: `${field}.type`, value: type, detail: 'must be either Utilization, Value, or AverageValue' })
  if (present(t?.value) && !positive(t!.value)) errors.push({ type: 'Invalid', field: `${field}.value`, value: t!.value, detail: 'must be positive' })
  if (present(t?.averageValue) && !positive(t!.averageValue)) errors.push({ type: 'Invalid', field: `${field}.averageValue`, value: t!.averageValue, detail: 'must be positive' })
  if (present(t?.averageUtilization) && t!.averageUtilization < 1) errors.push({ type: 'Invalid', field: `${field}.averageUtilization`, value: t!.averageUtilization, detail: 'must be greater than 0' })
  return errors
}

const STANDARD_CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage']
const STANDARD_RESOURCES = [...STANDARD_CONTAINER_RESOURCES, 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
  'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'persistentvolumeclaims', 'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers']
const NATIVE_PREFIX = 'kubernetes.io/'

/** The reference's ValidateContainerResourceName (core/v1): a standard container resource, or an extended one. */
function containerResourceNameProblems (name: string, field: string): FieldError[] {
  const errors = invalidEach(field, name, qualifiedNameProblems(name))
  if (errors.length > 0) return errors
  if (!name.includes('/')) {
    if (!STANDARD_RESOURCES.includes(name) && !/^(requests|limits)\.hugepages-/.test(name)) errors.push({ type: 'Invalid', field, value: name, detail: 'must be a standard resource type or fully qualified' })
    if (!STANDARD_CONTAINER_RESOURCES.includes(name) && !name.startsWith('hugepages-')) errors.push({ type: 'Invalid', field, value: name, detail: 'must be a standard resource for containers' })
  } else if (!name.includes(NATIVE_PREFIX) && (name.startsWith('requests.') || qualifiedNameProblems(`requests.${name}`).length > 0)) {
    errors.push({ type: 'Invalid', field, value: name, detail: 'doesn\'t have a container resource' })
  }
  return errors
}

function validateSource (type: string, src: Obj, field: string): FieldError[] {
  const errors: FieldError[] = []
  const target: Obj = src.target ?? {}
  const targetField = `${field}.target`
  switch (type) {
    case 'Object':
      errors.push(...validateReference(src.describedObject, `${field}.describedObject`), ...validateIdentifier(src.metric, `${field}.metric`), ...validateTarget(src.target, targetField))
      if (!present(target.value) && !present(target.averageValue)) errors.push({ type: 'Required', field: `${targetField}.averageValue`, detail: 'must set either a target value or averageValue' })
      break
    case 'External':
      errors.push(...validateIdentifier(src.metric, `${field}.metric`), ...validateTarget(src.target, targetField))
      if (!present(target.value) && !present(target.averageValue)) errors.push({ type: 'Required', field: `${targetField}.averageValue`, detail: 'must set either a target value for metric or a per-pod target' })
      if (present(target.value) && present(target.averageValue)) errors.push({ type: 'Forbidden', field: `${targetField}.value`, detail: 'may not set both a target value for metric and a per-pod target' })
      break
    case 'Pods':
      errors.push(...validateIdentifier(src.metric, `${field}.metric`), ...validateTarget(src.target, targetField))
      if (!present(target.averageValue)) errors.push({ type: 'Required', field: `${targetField}.averageValue`, detail: 'must specify a positive target averageValue' })
      break
    default: {
      // Resource and ContainerResource
      const name: string = src.name ?? ''
      if (name === '') errors.push({ type: 'Required', field: `${field}.name`, detail: 'must specify a resource name' })
      else if (type === 'ContainerResource') errors.push(...containerResourceNameProblems(name, `${field}.name`))
      if (type === 'ContainerResource') {
        const container: string = src.container ?? ''
        if (container === '') errors.push({ type: 'Required', field: `${field}.container`, detail: 'must specify a container' })
        else errors.push(...invalidEach(`${field}.container`, container, dnsLabelProblems(container)))
      }
      errors.push(...validateTarget(src.target, targetField))
      if (!present(target.averageUtilization) && !present(target.averageValue)) errors.push({ type: 'Required', field: `${targetField}.averageUtilization`, detail: 'must set either a target raw value or a target utilization' })
      if (present(target.averageUtilization) && present(target.averageValue)) errors.push({ type: 'Forbidden', field: `${targetField}.averageValue`, detail: 'may not set both a target raw value and a target utilization' })
    }
  }
  return errors
}

/** One metric: a known type, its source set and checked, no other source set. */
function validateMetricSpec (spec: Obj, field: string): FieldError[] {
  const errors: FieldError[] = []
  const type: string = spec.type ?? ''
  if (type === '') errors.push({ type: 'Required', field: `${field}.type`, detail: 'must specify a metric source type' })
  if (!METRIC_SOURCE_TYPES.includes(type)) errors.push({ type: 'NotSupported', field: `${field}.type`, value: type, supported: METRIC_SOURCE_TYPES })
  const set = SOURCE_FIELDS.filter(([, key]) => present(spec[key]))
  // Only the first source set is checked, as the reference does.
  if (set.length > 0) errors.push(...validateSource(set[0]![0], spec[set[0]![1]], `${field}.${set[0]![1]}`))
  const expected = SOURCE_FIELDS.find(([t]) => t === type)
  if (expected === undefined) errors.push({ type: 'NotSupported', field: `${field}.type`, value: type, supported: METRIC_SOURCE_TYPES })
  else if (!present(spec[expected[1]])) errors.push({ type: 'Required', field: `${field}.${expected[1]}`, detail: 'must populate information for the given metric source' })
  if (set.length > 1) {
    for (const [, key] of set) if (key !== expected?.[1]) errors.push({ type: 'Forbidden', field: `${field}.${key}`, detail: 'must populate the given metric source only' })
  }
  return errors
}

export function validateMetrics (metrics: Obj[] | undefined, minReplicas: number | undefined, field: string): FieldError[] {
  const list = metrics ?? []
  const errors = list.flatMap((m, i) => validateMetricSpec(m, `${field}[${i}]`))
  if (minReplicas === 0 && !list.some(m => m.type === 'Object' || m.type === 'External')) {
    errors.push({ type: 'Forbidden', field, detail: 'must specify at least one Object or External metric to support scaling to zero replicas' })
  }
  return errors
}

// ---- the TARGETS column ----------------------------------------------------------------------

/** Go's Quantity.String of a pointer: canonical, `<nil>` when unset. */
const quantityText = (q: unknown): string => {
  if (typeof q !== 'string') return '<nil>'
  const parsed = parseQuantity(q)
  return parsed === undefined ? q : formatQuantity(parsed)
}

const MAX_SHOWN = 2

/**
 * The reference printer's formatHPAMetrics: `current/target` per metric, `<unknown>` for a
 * current value not read yet; resource metrics name their resource; two at most, then
 * `+ N more...`.
 */
export function formatHPAMetrics (specs: Obj[] | undefined, statuses: Obj[] | undefined): string {
  if (specs === undefined || specs.length === 0) return '<none>'
  const st: Obj[] = statuses ?? []
  const list: string[] = []
  specs.forEach((spec, i) => {
    const status: Obj | undefined = st[i]
    const avg = (name: string): string => {
      const current = status?.[name]?.current?.averageValue
      return present(current) ? quantityText(current) : '<unknown>'
    }
    switch (spec.type) {
      case 'External':
      case 'Object': {
        const key = spec.type === 'External' ? 'external' : 'object'
        const target: Obj = spec[key]?.target ?? {}
        if (present(target.averageValue)) list.push(`${avg(key)}/${quantityText(target.averageValue)} (avg)`)
        else list.push(`${status?.[key] != null ? quantityText(status[key].current?.value) : '<unknown>'}/${quantityText(target.value)}`)
        break
      }
      case 'Pods':
        list.push(`${status?.pods != null ? quantityText(status.pods.current?.averageValue) : '<unknown>'}/${quantityText(spec.pods?.target?.averageValue)}`)
        break
      case 'Resource':
      case 'ContainerResource': {
        const key = spec.type === 'Resource' ? 'resource' : 'containerResource'
        const src: Obj = spec[key] ?? {}
        const target: Obj = src.target ?? {}
        if (present(target.averageValue)) {
          list.push(`${String(src.name ?? '')}: ${status?.[key] != null ? quantityText(status[key].current?.averageValue) : '<unknown>'}/${quantityText(target.averageValue)}`)
        } else {
          const utilization = status?.[key]?.current?.averageUtilization
          const current = present(utilization) ? `${String(utilization)}%` : '<unknown>'
          const wanted = present(target.averageUtilization) ? `${String(target.averageUtilization)}%` : '<auto>'
          list.push(`${String(src.name ?? '')}: ${current}/${wanted}`)
        }
        break
      }
      default:
        list.push('<unknown type>')
    }
  })
  if (list.length <= MAX_SHOWN) return list.join(', ')
  return `${list.slice(0, MAX_SHOWN).join(', ')} + ${list.length - MAX_SHOWN} more...`
}

/** What a metric is measured on, the same for its spec and its status. */
function metricKey (m: Obj): string {
  const src: Obj = m.object ?? m.pods ?? m.resource ?? m.containerResource ?? m.external ?? {}
  return JSON.stringify([m.type, src.name, src.container, src.metric?.name, src.metric?.selector, src.describedObject?.kind, src.describedObject?.name])
}

/**
 * The metrics in the order of the statuses read for them. autoscaling/v1 brings the CPU target
 * back after the others, while the controller keeps status i for metric i: ordered by the
 * statuses, each metric is shown beside its own, as the stored object shows them.
 */
export function inStatusOrder (specs: Obj[] | undefined, statuses: Obj[] | undefined): Obj[] | undefined {
  if (specs === undefined || statuses === undefined || statuses.length === 0) return specs
  const keys = statuses.map(metricKey)
  const position = (m: Obj): number => { const i = keys.indexOf(metricKey(m)); return i === -1 ? keys.length : i }
  return specs.map((m, i) => ({ m, i })).sort((a, b) => position(a.m) - position(b.m) || a.i - b.i).map(x => x.m)
}
