// PersistentVolumeClaim (core v1): a user's request for storage, bound to a volume by spec.volumeName.
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource } from './define.js'
import { AGE_COLUMN, objectSchema } from './meta.js'
import { accessModesText, AtomicList, Condition, MapList, ResourceList } from './core-types.js'
import { normalizeDataSources, PersistentVolumeClaimSpec, validateClaimSpec } from './claim-spec.js'
import { compareQuantities } from './quantity.js'
import { keepZero, message } from './protobuf.js'
import { persistentVolumeClaimWarnings, warnOnWrite } from './deprecation-warnings.js'

const opt = Type.Optional

const schema = objectSchema('v1', 'PersistentVolumeClaim', {
  spec: opt(PersistentVolumeClaimSpec),
  status: opt(Type.Object({
    phase: opt(Type.String()),
    accessModes: opt(AtomicList(Type.String())),
    capacity: opt(ResourceList()),
    conditions: opt(MapList(Condition(message('PersistentVolumeClaimCondition', { type: 1, status: 2, lastProbeTime: 3, lastTransitionTime: 4, reason: 5, message: 6 })), ['type'])),
    allocatedResources: opt(ResourceList()),
    allocatedResourceStatuses: opt(Type.Record(Type.String(), Type.String(), { 'x-kubernetes-map-type': 'granular' })),
    // Upstream's field 6 until 1.31 (a pointer); its message keeps the number reserved.
    resizeStatus: opt(Type.String()),
    currentVolumeAttributesClassName: opt(Type.String()),
    modifyVolumeStatus: opt(Type.Object({ targetVolumeAttributesClassName: opt(Type.String()), status: Type.String() }, { additionalProperties: false, ...message('ModifyVolumeStatus', { targetVolumeAttributesClassName: 1, status: keepZero(2) }) }))
  }, { additionalProperties: false, ...message('PersistentVolumeClaimStatus', {
    phase: 1,
    accessModes: 2,
    capacity: 3,
    conditions: 4,
    allocatedResources: 5,
    resizeStatus: keepZero(6),
    allocatedResourceStatuses: 7,
    currentVolumeAttributesClassName: keepZero(8),
    modifyVolumeStatus: 9
  }) }))
}, 'PersistentVolumeClaim is a user\'s request for and claim to a persistent volume.', { spec: 2, status: 3 })

type Claim = Record<string, any>

const SPEC_IMMUTABLE = 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'PersistentVolumeClaim',
  plural: 'persistentvolumeclaims',
  singular: 'persistentvolumeclaim',
  shortNames: ['pvc'],
  scope: 'Namespaced',
  schema,
  deleteReturns: 'Object',
  subresources: { status: statusSubresource() },
  strategy: {
    ...warnOnWrite(persistentVolumeClaimWarnings),
    prepareForCreate (pvc) {
      pvc.spec ??= {}
      normalizeDataSources(pvc.spec)
      pvc.status = { phase: 'Pending' }
    },
    prepareForUpdate (pvc) {
      pvc.spec ??= {}
      normalizeDataSources(pvc.spec)
    },
    validate: (pvc) => pvc.spec === undefined ? [{ type: 'Required', field: 'spec' }] : validateClaimSpec(pvc.spec, 'spec'),
    validateUpdate (pvc, old) {
      const errors = []
      // The binder may set the volume name once; a bound claim may grow its request.
      const was: Claim = structuredClone(old.spec ?? {})
      const now: Claim = structuredClone(pvc.spec ?? {})
      if (!was.volumeName) was.volumeName = now.volumeName
      if (old.status?.phase === 'Bound') {
        was.resources = { ...(was.resources ?? {}), requests: now.resources?.requests }
        if (now.volumeAttributesClassName !== undefined) was.volumeAttributesClassName = now.volumeAttributesClassName
      }
      // Compared as JSON: a field set to undefined is a field absent.
      if (!isDeepStrictEqual(JSON.parse(JSON.stringify(was)), JSON.parse(JSON.stringify(now)))) errors.push({ type: 'Forbidden' as const, field: 'spec', detail: SPEC_IMMUTABLE })
      if (compareQuantities(pvc.spec?.resources?.requests?.storage, old.spec?.resources?.requests?.storage) < 0) {
        errors.push({ type: 'Forbidden' as const, field: 'spec.resources.requests.storage', detail: 'field can not be less than previous value' })
      }
      return errors
    }
  },
  columns: [
    { name: 'Status', type: 'string', description: 'The phase of the claim', value: (c: Claim) => c.metadata?.deletionTimestamp ? 'Terminating' : c.status?.phase ?? '' },
    { name: 'Volume', type: 'string', description: 'The name of the bound volume', value: (c: Claim) => c.spec?.volumeName ?? '' },
    { name: 'Capacity', type: 'string', description: 'The capacity of the bound volume', value: (c: Claim) => c.spec?.volumeName ? c.status?.capacity?.storage ?? '' : '' },
    { name: 'Access Modes', type: 'string', description: 'The access modes of the bound volume', value: (c: Claim) => c.spec?.volumeName ? accessModesText(c.status?.accessModes) : '' },
    { name: 'StorageClass', type: 'string', description: 'The storage class of the claim', value: (c: Claim) => c.spec?.storageClassName ?? '' },
    { name: 'VolumeAttributesClass', type: 'string', description: 'The volume attributes class of the claim', value: (c: Claim) => c.spec?.volumeAttributesClassName ?? '<unset>' },
    AGE_COLUMN,
    { name: 'VolumeMode', type: 'string', priority: 1, description: 'The volume mode of the claim', value: (c: Claim) => c.spec?.volumeMode ?? '' }
  ],
  fieldSelectors: { name: (c: Claim) => c.metadata?.name },
  example: {
    metadata: { name: 'data' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } }
  }
})
