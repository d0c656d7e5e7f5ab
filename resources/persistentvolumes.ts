// PersistentVolume (core v1, cluster scope): a piece of storage, bound to a claim by spec.claimRef.
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource } from './define.js'
import { AGE_COLUMN, objectSchema, Timestamp } from './meta.js'
import { accessModesText, immutable } from './core-types.js'
import { defaultPersistentVolumeSpec, PersistentVolumeSpec, validatePersistentVolumeSpec } from './persistent-volume-spec.js'
import { PERSISTENT_VOLUME_SOURCES } from './volume-sources.js'
import { message } from './protobuf.js'
import { persistentVolumeWarnings, warnOnWrite } from './deprecation-warnings.js'

const opt = Type.Optional

const schema = objectSchema('v1', 'PersistentVolume', {
  spec: opt(PersistentVolumeSpec),
  status: opt(Type.Object({
    phase: opt(Type.String()),
    message: opt(Type.String()),
    reason: opt(Type.String()),
    lastPhaseTransitionTime: opt(Type.Union([Timestamp(), Type.Null()]))
  }, { additionalProperties: false, ...message('PersistentVolumeStatus', { phase: 1, message: 2, reason: 3, lastPhaseTransitionTime: 4 }) }))
}, 'PersistentVolume is a storage resource provisioned by an administrator.', { spec: 2, status: 3 })

type Volume = Record<string, any>

const PHASES = ['Pending', 'Available', 'Bound', 'Released', 'Failed']
const sourceOf = (spec: Volume | undefined): Volume =>
  Object.fromEntries(Object.keys(PERSISTENT_VOLUME_SOURCES).filter(k => spec?.[k] !== undefined).map(k => [k, spec![k]]))

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'PersistentVolume',
  plural: 'persistentvolumes',
  singular: 'persistentvolume',
  shortNames: ['pv'],
  scope: 'Cluster',
  schema,
  deleteReturns: 'Object',
  subresources: { status: statusSubresource() },
  strategy: {
    ...warnOnWrite(persistentVolumeWarnings),
    prepareForCreate (pv) {
      if (pv.spec !== undefined) defaultPersistentVolumeSpec(pv.spec)
      pv.status = { phase: 'Pending', lastPhaseTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }
    },
    prepareForUpdate (pv) {
      if (pv.spec !== undefined) defaultPersistentVolumeSpec(pv.spec)
    },
    validate (pv) {
      const errors = pv.spec === undefined ? [{ type: 'Required' as const, field: 'spec' }] : validatePersistentVolumeSpec(pv.spec, 'spec')
      if (pv.status?.phase !== undefined && !PHASES.includes(pv.status.phase)) errors.push({ type: 'NotSupported', field: 'status.phase', value: pv.status.phase, supported: PHASES })
      return errors
    },
    validateUpdate (pv, old) {
      const errors = []
      const source = sourceOf(pv.spec)
      // A controllerExpandSecretRef may be added to a volume that had none.
      if (source.csi?.controllerExpandSecretRef !== undefined && old.spec?.csi !== undefined && old.spec.csi.controllerExpandSecretRef === undefined) {
        const { controllerExpandSecretRef: _added, ...csi } = source.csi
        source.csi = csi
      }
      if (!isDeepStrictEqual(source, sourceOf(old.spec))) {
        errors.push({ type: 'Forbidden' as const, field: 'spec.persistentvolumesource', detail: 'spec.persistentvolumesource is immutable after creation' })
      }
      errors.push(...immutable('volumeMode', pv.spec?.volumeMode, old.spec?.volumeMode))
      if (old.spec?.nodeAffinity != null) errors.push(...immutable('nodeAffinity', pv.spec?.nodeAffinity, old.spec?.nodeAffinity))
      return errors
    }
  },
  columns: [
    { name: 'Capacity', type: 'string', description: 'The capacity of the volume', value: (v: Volume) => v.spec?.capacity?.storage ?? '' },
    { name: 'Access Modes', type: 'string', description: 'The access modes of the volume', value: (v: Volume) => accessModesText(v.spec?.accessModes) },
    { name: 'Reclaim Policy', type: 'string', description: 'What happens to the volume when released', value: (v: Volume) => v.spec?.persistentVolumeReclaimPolicy ?? '' },
    { name: 'Status', type: 'string', description: 'The phase of the volume', value: (v: Volume) => v.metadata?.deletionTimestamp ? 'Terminating' : v.status?.phase ?? '' },
    { name: 'Claim', type: 'string', description: 'The claim bound to the volume', value: (v: Volume) => v.spec?.claimRef?.name ? `${v.spec.claimRef.namespace ?? ''}/${v.spec.claimRef.name}` : '' },
    { name: 'StorageClass', type: 'string', description: 'The storage class of the volume', value: (v: Volume) => v.spec?.storageClassName ?? '' },
    { name: 'VolumeAttributesClass', type: 'string', description: 'The volume attributes class of the volume', value: (v: Volume) => v.spec?.volumeAttributesClassName ?? '<unset>' },
    { name: 'Reason', type: 'string', description: 'Why the volume is in its phase', value: (v: Volume) => v.status?.reason ?? '' },
    AGE_COLUMN,
    { name: 'VolumeMode', type: 'string', priority: 1, description: 'The volume mode of the volume', value: (v: Volume) => v.spec?.volumeMode ?? '' }
  ],
  fieldSelectors: { name: (v: Volume) => v.metadata?.name },
  example: {
    metadata: { name: 'local-data' },
    spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', hostPath: { path: '/mnt/data' } },
    status: { phase: 'Available' }
  }
})
