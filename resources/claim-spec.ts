// The claim spec: what a PersistentVolumeClaim asks for, embedded also in ephemeral volumes.
import { Type } from '@sinclair/typebox'
import type { FieldError } from './define.js'
import { AtomicList, LabelSelector, TypedLocalObjectReference, TypedObjectReference, VolumeResourceRequirements, ACCESS_MODES, VOLUME_MODES, validateLabelSelector, validateResourceList } from './core-types.js'
import { dnsSubdomainProblems, invalidEach } from './validation.js'
import { isZeroQuantity, isNegativeQuantity } from './quantity.js'
import { keepZero, message } from './protobuf.js'

const opt = Type.Optional

export const PersistentVolumeClaimSpec = Type.Object({
  accessModes: opt(AtomicList(Type.String())),
  selector: opt(LabelSelector),
  resources: opt(VolumeResourceRequirements),
  volumeName: opt(Type.String()),
  storageClassName: opt(Type.String()),
  volumeMode: opt(Type.String({ default: 'Filesystem' })),
  dataSource: opt(TypedLocalObjectReference),
  dataSourceRef: opt(TypedObjectReference),
  volumeAttributesClassName: opt(Type.String())
}, { additionalProperties: false, ...message('PersistentVolumeClaimSpec', {
  accessModes: 1,
  resources: 2,
  volumeName: 3,
  selector: 4,
  storageClassName: keepZero(5),
  volumeMode: keepZero(6),
  dataSource: 7,
  dataSourceRef: 8,
  volumeAttributesClassName: keepZero(9)
}) })

type Obj = Record<string, any>

const CLAIM_KIND = 'PersistentVolumeClaim'

function validateDataSource (ref: Obj, field: string): FieldError[] {
  const out: FieldError[] = []
  if (!ref.name) out.push({ type: 'Required', field: `${field}.name` })
  if (!ref.kind) out.push({ type: 'Required', field: `${field}.kind` })
  const group = ref.apiGroup ?? ''
  if (group === '' && ref.kind && ref.kind !== CLAIM_KIND) out.push({ type: 'Invalid', field, value: ref.kind, detail: "must be 'PersistentVolumeClaim' when referencing the default apiGroup" })
  if (group !== '') out.push(...invalidEach(`${field}.apiGroup`, group, dnsSubdomainProblems(group)))
  return out
}

const sameSource = (a: Obj, b: Obj): boolean =>
  (a.apiGroup ?? '') === (b.apiGroup ?? '') && a.kind === b.kind && a.name === b.name && (b.namespace ?? '') === ''

/** dataSource and dataSourceRef: when only one is given the other becomes equal (a namespaced ref has no twin). */
export function normalizeDataSources (spec: Obj): void {
  if (spec.dataSource != null && spec.dataSourceRef == null) {
    const { apiGroup, kind, name } = spec.dataSource
    spec.dataSourceRef = apiGroup === undefined ? { kind, name } : { apiGroup, kind, name }
  } else if (spec.dataSourceRef != null && spec.dataSource == null && (spec.dataSourceRef.namespace ?? '') === '') {
    const { apiGroup, kind, name } = spec.dataSourceRef
    spec.dataSource = apiGroup === undefined ? { kind, name } : { apiGroup, kind, name }
  }
}

export function validateClaimSpec (spec: Obj, field: string): FieldError[] {
  const out: FieldError[] = []
  const modes: string[] = spec.accessModes ?? []
  if (modes.length === 0) out.push({ type: 'Required', field: `${field}.accessModes`, detail: 'at least 1 access mode is required' })
  for (const m of modes) if (!ACCESS_MODES.includes(m)) out.push({ type: 'NotSupported', field: `${field}.accessModes`, value: m, supported: ACCESS_MODES })
  if (modes.includes('ReadWriteOncePod') && modes.length > 1) out.push({ type: 'Forbidden', field: `${field}.accessModes`, detail: 'may not use ReadWriteOncePod with other access modes' })
  out.push(...validateLabelSelector(spec.selector, `${field}.selector`))
  const storage = spec.resources?.requests?.storage
  if (storage === undefined) out.push({ type: 'Required', field: `${field}.resources[storage]` })
  else if (isZeroQuantity(storage) || isNegativeQuantity(storage)) out.push({ type: 'Invalid', field: `${field}.resources.requests[storage]`, value: storage, detail: 'must be greater than zero' })
  out.push(...validateResourceList(spec.resources?.requests, `${field}.resources.requests`), ...validateResourceList(spec.resources?.limits, `${field}.resources.limits`))
  if (spec.storageClassName) out.push(...invalidEach(`${field}.storageClassName`, spec.storageClassName, dnsSubdomainProblems(spec.storageClassName)))
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode)) out.push({ type: 'NotSupported', field: `${field}.volumeMode`, value: spec.volumeMode, supported: VOLUME_MODES })
  if (spec.dataSource != null) out.push(...validateDataSource(spec.dataSource, `${field}.dataSource`))
  if (spec.dataSourceRef != null) {
    out.push(...validateDataSource(spec.dataSourceRef, `${field}.dataSourceRef`))
    if (spec.dataSourceRef.namespace) out.push(...invalidEach(`${field}.dataSourceRef.namespace`, spec.dataSourceRef.namespace, dnsSubdomainProblems(spec.dataSourceRef.namespace)))
  }
  if (spec.dataSource != null && spec.dataSourceRef != null && !sameSource(spec.dataSource, spec.dataSourceRef)) {
    out.push({ type: 'Invalid', field, value: `${field}.dataSource`, detail: 'must match dataSourceRef' })
  }
  return out
}
