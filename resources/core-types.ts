// Small core types several kinds embed: references, selectors, resource requirements,
// tolerations and taints, conditions; with the list markers upstream gives them.
import { isDeepStrictEqual } from 'node:util'
import { Type, type TSchema } from '@sinclair/typebox'
import { Int64, Quantity, StringMap, Timestamp } from './meta.js'
import type { FieldError } from './define.js'
import { inlined, keepZero, message } from './protobuf.js'
import { compareQuantities, isNegativeQuantity } from './quantity.js'
import { invalidEach, labelValueProblems, qualifiedNameProblems } from './validation.js'

const opt = Type.Optional

/** A list replaced as a whole on merge. */
export const AtomicList = <T extends TSchema>(item: T, opts: object = {}) =>
  Type.Array(item, { 'x-kubernetes-list-type': 'atomic', ...opts })
/** A list of unique scalars, merged as a set. */
export const SetList = <T extends TSchema>(item: T, opts: object = {}) =>
  Type.Array(item, { 'x-kubernetes-list-type': 'set', ...opts })
/** A list keyed by `keys`, merged item by item (strategic merge key is the first key). */
export const MapList = <T extends TSchema>(item: T, keys: string[], opts: object = {}) =>
  Type.Array(item, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys, 'x-kubernetes-patch-merge-key': keys[0], 'x-kubernetes-patch-strategy': 'merge', ...opts })

const atomicStruct = { additionalProperties: false, 'x-kubernetes-map-type': 'atomic' }
const struct = { additionalProperties: false }

export const ResourceList = (opts: object = {}) => Type.Record(Type.String(), Quantity(), opts)

/** LocalObjectReference embedded in a struct (upstream Go's inline field): its `name` flattened into the parent. */
export const EMBEDDED_LOCAL_OBJECT_REFERENCE = { localObjectReference: inlined(1, 'LocalObjectReference', { name: 1 }) }
export const LocalObjectReference = Type.Object({ name: opt(Type.String()) }, { ...atomicStruct, ...message('LocalObjectReference', { name: 1 }) })
export const SecretReference = Type.Object({ name: opt(Type.String()), namespace: opt(Type.String()) }, { ...atomicStruct, ...message('core.v1.SecretReference', { name: 1, namespace: 2 }) })
export const ObjectReference = Type.Object({
  kind: opt(Type.String()),
  namespace: opt(Type.String()),
  name: opt(Type.String()),
  uid: opt(Type.String()),
  apiVersion: opt(Type.String()),
  resourceVersion: opt(Type.String()),
  fieldPath: opt(Type.String())
}, { ...atomicStruct, ...message('core.v1.ObjectReference', { kind: 1, namespace: 2, name: 3, uid: 4, apiVersion: 5, resourceVersion: 6, fieldPath: 7 }) })
export const TypedLocalObjectReference = Type.Object({ apiGroup: opt(Type.String()), kind: Type.String(), name: Type.String() }, { ...atomicStruct, ...message('core.v1.TypedLocalObjectReference', { apiGroup: keepZero(1), kind: 2, name: 3 }) })
export const TypedObjectReference = Type.Object({ apiGroup: opt(Type.String()), kind: Type.String(), name: Type.String(), namespace: opt(Type.String()) }, { ...struct, ...message('TypedObjectReference', { apiGroup: keepZero(1), kind: 2, name: 3, namespace: keepZero(4) }) })

export const LabelSelectorRequirement = Type.Object({
  key: Type.String(),
  operator: Type.String(),
  values: opt(AtomicList(Type.String()))
}, { ...struct, ...message('meta.v1.LabelSelectorRequirement', { key: 1, operator: 2, values: 3 }) })
/** The protobuf fields of meta/v1 LabelSelector, for the schemas that copy its properties. */
export const LABEL_SELECTOR_FIELDS = { matchLabels: 1, matchExpressions: 2 }
export const LabelSelector = Type.Object({
  matchLabels: opt(StringMap()),
  matchExpressions: opt(AtomicList(LabelSelectorRequirement))
}, { ...atomicStruct, ...message('meta.v1.LabelSelector', LABEL_SELECTOR_FIELDS) })

export const NodeSelectorRequirement = Type.Object({
  key: Type.String(),
  operator: Type.String(),
  values: opt(AtomicList(Type.String()))
}, { ...struct, ...message('core.v1.NodeSelectorRequirement', { key: 1, operator: 2, values: 3 }) })
export const NodeSelectorTerm = Type.Object({
  matchExpressions: opt(AtomicList(NodeSelectorRequirement)),
  matchFields: opt(AtomicList(NodeSelectorRequirement))
}, { ...atomicStruct, ...message('core.v1.NodeSelectorTerm', { matchExpressions: 1, matchFields: 2 }) })
export const NodeSelector = Type.Object({ nodeSelectorTerms: AtomicList(NodeSelectorTerm) }, { ...atomicStruct, ...message('core.v1.NodeSelector', { nodeSelectorTerms: 1 }) })

export const TopologySelectorLabelRequirement = Type.Object({ key: Type.String(), values: AtomicList(Type.String()) }, { ...struct, ...message('TopologySelectorLabelRequirement', { key: 1, values: 2 }) })
export const TopologySelectorTerm = Type.Object({ matchLabelExpressions: opt(AtomicList(TopologySelectorLabelRequirement)) }, { ...atomicStruct, ...message('TopologySelectorTerm', { matchLabelExpressions: 1 }) })

export const ResourceRequirements = Type.Object({
  limits: opt(ResourceList()),
  requests: opt(ResourceList()),
  claims: opt(MapList(Type.Object({ name: Type.String(), request: opt(Type.String()) }, { ...struct, ...message('ResourceClaim', { name: 1, request: 2 }) }), ['name']))
}, { ...struct, ...message('ResourceRequirements', { limits: 1, requests: 2, claims: 3 }) })
/** The claim form: no dynamic resource claims. */
export const VolumeResourceRequirements = Type.Object({ limits: opt(ResourceList()), requests: opt(ResourceList()) }, { ...struct, ...message('VolumeResourceRequirements', { limits: 1, requests: 2 }) })

export const Toleration = Type.Object({
  key: opt(Type.String()),
  operator: opt(Type.String()),
  value: opt(Type.String()),
  effect: opt(Type.String()),
  tolerationSeconds: opt(Int64())
}, { ...struct, ...message('core.v1.Toleration', { key: 1, operator: 2, value: 3, effect: 4, tolerationSeconds: keepZero(5) }) })
export const Taint = Type.Object({
  key: Type.String(),
  value: opt(Type.String()),
  effect: Type.String(),
  timeAdded: opt(Type.Union([Timestamp(), Type.Null()]))
}, { ...struct, ...message('Taint', { key: 1, value: 2, effect: 3, timeAdded: 4 }) })

/** A kind's condition; `protobuf` names its message (each kind has its own, upstream numbers them alike). */
export const Condition = (protobuf: ReturnType<typeof message>, extra: Record<string, TSchema> = {}) => Type.Object({
  type: Type.String(),
  status: Type.String(),
  lastProbeTime: opt(Type.Union([Timestamp(), Type.Null()])),
  lastTransitionTime: opt(Type.Union([Timestamp(), Type.Null()])),
  reason: opt(Type.String()),
  message: opt(Type.String()),
  ...extra
}, { ...struct, ...protobuf })

// ---- validation -------------------------------------------------------------------------------

type Obj = Record<string, any>

const LABEL_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist']
const NODE_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute']

export function validateLabelSelector (sel: Obj | undefined, field: string): FieldError[] {
  if (sel === undefined || sel === null) return []
  const out: FieldError[] = []
  ;(sel.matchExpressions ?? []).forEach((r: Obj, i: number) => {
    const f = `${field}.matchExpressions[${i}]`
    if (!LABEL_OPERATORS.includes(r.operator)) out.push({ type: 'Invalid', field: `${f}.operator`, value: r.operator, detail: 'not a valid selector operator' })
    const n = (r.values ?? []).length
    if ((r.operator === 'In' || r.operator === 'NotIn') && n === 0) out.push({ type: 'Required', field: `${f}.values`, detail: 'must be specified when `operator` is \'In\' or \'NotIn\'' })
    if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && n > 0) out.push({ type: 'Forbidden', field: `${f}.values`, detail: 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\'' })
    out.push(...invalidEach(`${f}.key`, r.key, qualifiedNameProblems(r.key)))
  })
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
    out.push(...invalidEach(`${field}.matchLabels`, k, qualifiedNameProblems(k)))
    out.push(...invalidEach(`${field}.matchLabels`, v, labelValueProblems(v as string)))
  }
  return out
}

export function validateNodeSelector (sel: Obj | undefined, field: string): FieldError[] {
  if (sel === undefined || sel === null) return []
  const out: FieldError[] = []
  const terms: Obj[] = sel.nodeSelectorTerms ?? []
  if (terms.length === 0) out.push({ type: 'Required', field: `${field}.nodeSelectorTerms`, detail: 'must have at least one node selector term' })
  terms.forEach((t, i) => {
    for (const part of ['matchExpressions', 'matchFields']) {
      (t[part] ?? []).forEach((r: Obj, j: number) => {
        const f = `${field}.nodeSelectorTerms[${i}].${part}[${j}]`
        if (!NODE_OPERATORS.includes(r.operator)) out.push({ type: 'Invalid', field: `${f}.operator`, value: r.operator, detail: 'not a valid selector operator' })
        const n = (r.values ?? []).length
        if ((r.operator === 'In' || r.operator === 'NotIn') && n === 0) out.push({ type: 'Required', field: `${f}.values`, detail: 'must be specified when `operator` is \'In\' or \'NotIn\'' })
        if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && n > 0) out.push({ type: 'Forbidden', field: `${f}.values`, detail: 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\'' })
        if ((r.operator === 'Gt' || r.operator === 'Lt') && n !== 1) out.push({ type: 'Required', field: `${f}.values`, detail: 'must be specified single value when `operator` is \'Lt\' or \'Gt\'' })
        if (part === 'matchExpressions') out.push(...invalidEach(`${f}.key`, r.key, qualifiedNameProblems(r.key)))
      })
    }
  })
  return out
}

export function validateTopologySelectorTerms (terms: Obj[] | undefined, field: string): FieldError[] {
  const out: FieldError[] = []
  ;(terms ?? []).forEach((t, i) => {
    const seen = new Set<string>()
    ;(t.matchLabelExpressions ?? []).forEach((r: Obj, j: number) => {
      const f = `${field}[${i}].matchLabelExpressions[${j}]`
      out.push(...invalidEach(`${f}.key`, r.key, qualifiedNameProblems(r.key)))
      if (seen.has(r.key)) out.push({ type: 'Duplicate', field: `${f}.key`, value: r.key })
      seen.add(r.key)
      if ((r.values ?? []).length === 0) out.push({ type: 'Required', field: `${f}.values`, detail: 'must specify as least one value' })
      const values = new Set<string>()
      ;(r.values ?? []).forEach((v: string, k: number) => {
        if (values.has(v)) out.push({ type: 'Duplicate', field: `${f}.values[${k}]`, value: v })
        values.add(v)
      })
    })
  })
  return out
}

/** Every quantity in a resource list non-negative (zero or more), keys qualified names. */
export function validateResourceList (list: Record<string, string> | undefined, field: string): FieldError[] {
  const out: FieldError[] = []
  for (const [k, v] of Object.entries(list ?? {})) {
    out.push(...invalidEach(field, k, qualifiedNameProblems(k)))
    if (isNegativeQuantity(v)) out.push({ type: 'Invalid', field: `${field}[${k}]`, value: v, detail: 'must be greater than or equal to 0' })
  }
  return out
}

/** Requests may not exceed limits of the same resource. */
export function validateRequirements (req: Obj | undefined, field: string): FieldError[] {
  if (req === undefined) return []
  const out = [...validateResourceList(req.limits, `${field}.limits`), ...validateResourceList(req.requests, `${field}.requests`)]
  for (const [k, v] of Object.entries((req.requests ?? {}) as Record<string, string>)) {
    const limit = req.limits?.[k]
    if (limit !== undefined && compareQuantities(v, limit) > 0) out.push({ type: 'Invalid', field: `${field}.requests[${k}]`, value: v, detail: `must be less than or equal to ${k} limit of ${limit}` })
  }
  return out
}

export function validateTolerations (list: Obj[] | undefined, field: string): FieldError[] {
  const out: FieldError[] = []
  ;(list ?? []).forEach((t, i) => {
    const f = `${field}[${i}]`
    if (t.key !== undefined && t.key !== '') out.push(...invalidEach(`${f}.key`, t.key, qualifiedNameProblems(t.key)))
    if ((t.key === undefined || t.key === '') && t.operator !== 'Exists') out.push({ type: 'Invalid', field: `${f}.operator`, value: t.operator, detail: 'operator must be Exists when `key` is empty, which means "match all values and all keys"' })
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') out.push({ type: 'Invalid', field: `${f}.effect`, value: t.effect, detail: 'effect must be \'NoExecute\' when `tolerationSeconds` is set' })
    if (t.operator !== undefined && t.operator !== '' && t.operator !== 'Equal' && t.operator !== 'Exists') out.push({ type: 'NotSupported', field: `${f}.operator`, value: t.operator, supported: ['Equal', 'Exists'] })
    if (t.operator === 'Exists' && t.value !== undefined && t.value !== '') out.push({ type: 'Invalid', field: `${f}.operator`, value: t.value, detail: 'value must be empty when `operator` is \'Exists\'' })
    if (t.operator !== 'Exists' && t.value !== undefined) out.push(...invalidEach(`${f}.value`, t.value, labelValueProblems(t.value)))
    if (t.effect !== undefined && t.effect !== '' && !TAINT_EFFECTS.includes(t.effect)) out.push({ type: 'NotSupported', field: `${f}.effect`, value: t.effect, supported: TAINT_EFFECTS })
  })
  return out
}

export function validateTaints (list: Obj[] | undefined, field: string): FieldError[] {
  const out: FieldError[] = []
  const seen = new Set<string>()
  ;(list ?? []).forEach((t, i) => {
    const f = `${field}[${i}]`
    out.push(...invalidEach(`${f}.key`, t.key, qualifiedNameProblems(t.key ?? '')))
    if (t.value !== undefined) out.push(...invalidEach(`${f}.value`, t.value, labelValueProblems(t.value)))
    if (t.effect === undefined || t.effect === '') out.push({ type: 'Required', field: `${f}.effect` })
    else if (!TAINT_EFFECTS.includes(t.effect)) out.push({ type: 'NotSupported', field: `${f}.effect`, value: t.effect, supported: TAINT_EFFECTS })
    const id = `${t.key}:${t.effect}`
    if (seen.has(id)) out.push({ type: 'Duplicate', field: f, value: t, detail: 'taints must be unique by key and effect pair' })
    seen.add(id)
  })
  return out
}

/** Shortened access modes as kubectl prints them. */
export function accessModesText (modes: string[] | undefined): string {
  const short: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' }
  const seen: string[] = []
  for (const m of ['ReadWriteOncePod', 'ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany']) if ((modes ?? []).includes(m)) seen.push(short[m]!)
  return seen.join(',')
}

export const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod']
export const VOLUME_MODES = ['Block', 'Filesystem']

/** An immutable field in the reference server's words. */
export function immutable (field: string, value: unknown, old: unknown): FieldError[] {
  return isDeepStrictEqual(value ?? null, old ?? null) ? [] : [{ type: 'Invalid', field, value, detail: 'field is immutable' }]
}
