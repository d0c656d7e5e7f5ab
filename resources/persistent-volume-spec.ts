// The persistent volume spec: one source plus capacity, access, binding and node affinity;
// embedded also in VolumeAttachment for migrated inline volumes.
import { Type } from '@sinclair/typebox'
import type { FieldError } from './define.js'
import { ACCESS_MODES, AtomicList, NodeSelector, ObjectReference, ResourceList, VOLUME_MODES, validateNodeSelector } from './core-types.js'
import { validatePersistentVolumeSource } from './volumes.js'
import { persistentVolumeSourceFields } from './volume-sources.js'
import { dnsSubdomainProblems, invalidEach } from './validation.js'
import { isNegativeQuantity, isZeroQuantity } from './quantity.js'
import { inlined, keepZero, message } from './protobuf.js'

const opt = Type.Optional

export const RECLAIM_POLICIES = ['Retain', 'Delete', 'Recycle']

export const PersistentVolumeSpec = Type.Object({
  capacity: opt(ResourceList()),
  ...persistentVolumeSourceFields(),
  accessModes: opt(AtomicList(Type.String())),
  claimRef: opt(ObjectReference),
  persistentVolumeReclaimPolicy: opt(Type.String()),
  storageClassName: opt(Type.String()),
  mountOptions: opt(AtomicList(Type.String())),
  volumeMode: opt(Type.String()),
  nodeAffinity: opt(Type.Object({ required: opt(NodeSelector) }, { additionalProperties: false, ...message('core.v1.VolumeNodeAffinity', { required: 1 }) })),
  volumeAttributesClassName: opt(Type.String())
}, { additionalProperties: false, ...message('core.v1.PersistentVolumeSpec', {
  capacity: 1,
  accessModes: 3,
  claimRef: 4,
  persistentVolumeReclaimPolicy: 5,
  storageClassName: 6,
  mountOptions: 7,
  volumeMode: keepZero(8),
  nodeAffinity: 9,
  volumeAttributesClassName: keepZero(10)
}, { persistentVolumeSource: inlined(2, 'PersistentVolumeSource', {
  gcePersistentDisk: 1,
  awsElasticBlockStore: 2,
  hostPath: 3,
  glusterfs: 4,
  nfs: 5,
  rbd: 6,
  iscsi: 7,
  cinder: 8,
  cephfs: 9,
  fc: 10,
  flocker: 11,
  flexVolume: 12,
  azureFile: 13,
  vsphereVolume: 14,
  quobyte: 15,
  azureDisk: 16,
  photonPersistentDisk: 17,
  portworxVolume: 18,
  scaleIO: 19,
  local: 20,
  storageos: 21,
  csi: 22
}) }) })

type Obj = Record<string, any>

/** Defaults of a PersistentVolume's spec (a VolumeAttachment's inline spec keeps what it was given). */
export function defaultPersistentVolumeSpec (spec: Obj): void {
  if (!spec.persistentVolumeReclaimPolicy) spec.persistentVolumeReclaimPolicy = 'Retain'
  spec.volumeMode ??= 'Filesystem'
}

/** `inline`: the spec of a migrated inline volume, which carries no capacity or class. */
export function validatePersistentVolumeSpec (spec: Obj, field: string, inline = false): FieldError[] {
  const out: FieldError[] = []
  if (inline) {
    const notInline = (f: string): FieldError => ({ type: 'Forbidden', field: `${field}.${f}`, detail: 'may not be specified in the context of inline volumes' })
    if (spec.claimRef != null) out.push(notInline('claimRef'))
    if (Object.keys(spec.capacity ?? {}).length > 0) out.push(notInline('capacity'))
    if (spec.nodeAffinity != null) out.push(notInline('nodeAffinity'))
    if (spec.storageClassName) out.push(notInline('storageClassName'))
    if (spec.csi == null) out.push({ type: 'Required', field: `${field}.csi`, detail: 'has to be specified in the context of inline volumes' })
    if (spec.persistentVolumeReclaimPolicy && spec.persistentVolumeReclaimPolicy !== 'Retain') {
      out.push({ type: 'Forbidden', field: `${field}.persistentVolumeReclaimPolicy`, detail: 'may only be Retain in the context of inline volumes' })
    }
  }
  const modes: string[] = spec.accessModes ?? []
  if (modes.length === 0) out.push({ type: 'Required', field: `${field}.accessModes` })
  for (const m of modes) if (!ACCESS_MODES.includes(m)) out.push({ type: 'NotSupported', field: `${field}.accessModes`, value: m, supported: ACCESS_MODES })
  if (modes.includes('ReadWriteOncePod') && modes.length > 1) out.push({ type: 'Forbidden', field: `${field}.accessModes`, detail: 'may not use ReadWriteOncePod with other access modes' })
  if (!inline) {
    const capacity = spec.capacity ?? {}
    if (Object.keys(capacity).length === 0) out.push({ type: 'Required', field: `${field}.capacity` })
    for (const [k, v] of Object.entries(capacity as Record<string, string>)) {
      if (k !== 'storage') out.push({ type: 'NotSupported', field: `${field}.capacity`, value: k, supported: ['storage'] })
      else if (isZeroQuantity(v) || isNegativeQuantity(v)) out.push({ type: 'Invalid', field: `${field}.capacity[storage]`, value: v, detail: 'must be greater than zero' })
    }
    if (spec.persistentVolumeReclaimPolicy !== undefined && !RECLAIM_POLICIES.includes(spec.persistentVolumeReclaimPolicy)) {
      out.push({ type: 'NotSupported', field: `${field}.persistentVolumeReclaimPolicy`, value: spec.persistentVolumeReclaimPolicy, supported: RECLAIM_POLICIES })
    }
    if (spec.storageClassName) out.push(...invalidEach(`${field}.storageClassName`, spec.storageClassName, dnsSubdomainProblems(spec.storageClassName)))
    if (spec.nodeAffinity != null) {
      if (spec.nodeAffinity.required == null) out.push({ type: 'Required', field: `${field}.nodeAffinity.required`, detail: 'must specify required node constraints' })
      else out.push(...validateNodeSelector(spec.nodeAffinity.required, `${field}.nodeAffinity.required`))
    }
    if (spec.local != null && spec.nodeAffinity == null) out.push({ type: 'Required', field: `${field}.nodeAffinity`, detail: 'Local volume requires node affinity' })
  }
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode)) out.push({ type: 'NotSupported', field: `${field}.volumeMode`, value: spec.volumeMode, supported: VOLUME_MODES })
  if (spec.hostPath != null && spec.persistentVolumeReclaimPolicy === 'Recycle' && /^\/+$/.test(String(spec.hostPath.path))) {
    out.push({ type: 'Forbidden', field: `${field}.persistentVolumeReclaimPolicy`, detail: 'may not be \'recycle\' for a hostPath mount of \'/\'' })
  }
  if (spec.claimRef != null && !spec.claimRef.name) out.push({ type: 'Required', field: `${field}.claimRef.name` })
  out.push(...validatePersistentVolumeSource(spec, field))
  return out
}
