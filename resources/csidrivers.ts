// CSIDriver (storage.svc.io/v1, cluster scope): how the system talks to one CSI driver; the
// name is the driver's own.
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { Int64, objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { AtomicList, immutable, SetList } from './core-types.js'
import { csiDriverNameProblems } from './volumes.js'
import { keepZero, message, wireOnly } from './protobuf.js'

const opt = Type.Optional

const schema = objectSchema(`${GROUPS.storage}/v1`, 'CSIDriver', {
  spec: Type.Object({
    attachRequired: opt(Type.Boolean({ default: true })),
    podInfoOnMount: opt(Type.Boolean({ default: false })),
    volumeLifecycleModes: opt(SetList(Type.String())),
    storageCapacity: opt(Type.Boolean({ default: false })),
    fsGroupPolicy: opt(Type.String({ default: 'ReadWriteOnceWithFSType' })),
    tokenRequests: opt(AtomicList(Type.Object({ audience: Type.String(), expirationSeconds: opt(Int64()) }, { additionalProperties: false, ...message('TokenRequest', { audience: keepZero(1), expirationSeconds: keepZero(2) }) }))),
    requiresRepublish: opt(Type.Boolean({ default: false })),
    seLinuxMount: opt(Type.Boolean({ default: false })),
    nodeAllocatableUpdatePeriodSeconds: opt(Int64())
  }, { additionalProperties: false, ...message('CSIDriverSpec', {
    attachRequired: keepZero(1),
    podInfoOnMount: keepZero(2),
    volumeLifecycleModes: 3,
    storageCapacity: keepZero(4),
    fsGroupPolicy: keepZero(5),
    tokenRequests: 6,
    requiresRepublish: keepZero(7),
    seLinuxMount: keepZero(8),
    nodeAllocatableUpdatePeriodSeconds: keepZero(9)
  }, undefined, { serviceAccountTokenInSecrets: wireOnly(keepZero(10), Type.Boolean()) }) })
}, 'CSIDriver captures information about a Container Storage Interface (CSI) volume driver deployed on the cluster.', { spec: 2 })

type Driver = Record<string, any>

const FS_GROUP_POLICIES = ['ReadWriteOnceWithFSType', 'File', 'None']
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral']

/** volumeLifecycleModes: `[Persistent]` when empty. */
function defaultModes (d: Driver): void {
  if (d.spec !== undefined && (d.spec.volumeLifecycleModes ?? []).length === 0) d.spec.volumeLifecycleModes = ['Persistent']
}

function validateSpec (spec: Driver | undefined): FieldError[] {
  if (spec === undefined) return [{ type: 'Required', field: 'spec' }]
  const errors: FieldError[] = []
  if (spec.attachRequired === undefined) errors.push({ type: 'Required', field: 'spec.attachRequired' })
  if (spec.podInfoOnMount === undefined) errors.push({ type: 'Required', field: 'spec.podInfoOnMount' })
  if (spec.fsGroupPolicy !== undefined && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy)) {
    errors.push({ type: 'NotSupported', field: 'spec.fsGroupPolicy', value: spec.fsGroupPolicy, supported: FS_GROUP_POLICIES })
  }
  for (const m of spec.volumeLifecycleModes ?? []) {
    if (!LIFECYCLE_MODES.includes(m)) errors.push({ type: 'NotSupported', field: 'spec.volumeLifecycleModes', value: m, supported: LIFECYCLE_MODES })
  }
  // Audiences are distinct, so at most one of them is empty.
  const audiences = new Set<string>()
  ;(spec.tokenRequests ?? []).forEach((t: Driver, i: number) => {
    const f = `spec.tokenRequests[${i}]`
    if (audiences.has(t.audience)) { errors.push({ type: 'Duplicate', field: `${f}.audience`, value: t.audience }); return }
    audiences.add(t.audience)
    if (typeof t.expirationSeconds !== 'number') return
    if (t.expirationSeconds < 600) errors.push({ type: 'Invalid', field: `${f}.expirationSeconds`, value: t.expirationSeconds, detail: 'may not specify a duration less than 10 minutes' })
    if (t.expirationSeconds > 2 ** 32) errors.push({ type: 'Invalid', field: `${f}.expirationSeconds`, value: t.expirationSeconds, detail: 'may not specify a duration larger than 2^32 seconds' })
  })
  if (spec.nodeAllocatableUpdatePeriodSeconds !== undefined && spec.nodeAllocatableUpdatePeriodSeconds < 10) {
    errors.push({ type: 'Invalid', field: 'spec.nodeAllocatableUpdatePeriodSeconds', value: spec.nodeAllocatableUpdatePeriodSeconds, detail: 'must be greater than or equal to 10 seconds' })
  }
  return errors
}

export default defineResource({
  group: GROUPS.storage,
  version: 'v1',
  kind: 'CSIDriver',
  plural: 'csidrivers',
  singular: 'csidriver',
  scope: 'Cluster',
  schema,
  nameRule: csiDriverNameProblems,
  deleteReturns: 'Object',
  strategy: {
    prepareForCreate: defaultModes,
    prepareForUpdate: defaultModes,
    validate: (d) => validateSpec(d.spec),
    validateUpdate: (d, old) => [
      ...immutable('spec.attachRequired', d.spec?.attachRequired, old.spec?.attachRequired),
      ...immutable('spec.fsGroupPolicy', d.spec?.fsGroupPolicy, old.spec?.fsGroupPolicy),
      ...immutable('spec.podInfoOnMount', d.spec?.podInfoOnMount, old.spec?.podInfoOnMount),
      ...immutable('spec.volumeLifecycleModes', d.spec?.volumeLifecycleModes, old.spec?.volumeLifecycleModes)
    ]
  },
  columns: [
    { name: 'AttachRequired', type: 'boolean', description: 'Whether attach and detach are needed', value: (d: Driver) => d.spec?.attachRequired ?? true },
    { name: 'PodInfoOnMount', type: 'boolean', description: 'Whether pod details are passed on mount', value: (d: Driver) => d.spec?.podInfoOnMount ?? false },
    { name: 'StorageCapacity', type: 'boolean', description: 'Whether scheduling considers reported capacity', value: (d: Driver) => d.spec?.storageCapacity ?? false },
    { name: 'TokenRequests', type: 'string', description: 'The audiences of requested service account tokens', value: (d: Driver) => (d.spec?.tokenRequests ?? []).length === 0 ? '<unset>' : d.spec.tokenRequests.map((t: Driver) => t.audience).join(',') },
    { name: 'RequiresRepublish', type: 'boolean', description: 'Whether publish is called periodically', value: (d: Driver) => d.spec?.requiresRepublish ?? false },
    { name: 'Modes', type: 'string', description: 'The volume lifecycle modes', value: (d: Driver) => (d.spec?.volumeLifecycleModes ?? []).join(',') || '<none>' }
  ],
  example: {
    metadata: { name: 'csi.example.com' },
    spec: { attachRequired: true, podInfoOnMount: false, volumeLifecycleModes: ['Persistent'] }
  }
})
