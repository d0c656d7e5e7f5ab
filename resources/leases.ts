// Lease (coordination.svc.io/v1, namespaced): a lock with a holder and a duration; the in-process
// controllers elect their leader through one, and node agents report their heartbeat in
// svc-node-lease through others.
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { Int32, objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { MicroTime } from './micro-time.js'
import { keepZero, message } from './protobuf.js'

const opt = Type.Optional

const schema = objectSchema(`${GROUPS.coordination}/v1`, 'Lease', {
  spec: opt(Type.Object({
    holderIdentity: opt(Type.String({ description: 'holderIdentity contains the identity of the holder of a current lease.' })),
    leaseDurationSeconds: opt(Int32({ description: 'leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it. This is measured against the time of last observed renewTime.' })),
    acquireTime: opt(MicroTime()),
    renewTime: opt(MicroTime()),
    leaseTransitions: opt(Int32({ description: 'leaseTransitions is the number of transitions of a lease between holders.' })),
    strategy: opt(Type.String()),
    preferredHolder: opt(Type.String())
  }, { additionalProperties: false, description: 'LeaseSpec is a specification of a Lease.', ...message('LeaseSpec', {
    holderIdentity: keepZero(1),
    leaseDurationSeconds: keepZero(2),
    acquireTime: 3,
    renewTime: 4,
    leaseTransitions: keepZero(5),
    strategy: keepZero(6),
    preferredHolder: keepZero(7)
  }) }))
}, 'Lease defines a lease concept.', { spec: 2 })

type Lease = Record<string, any>

/**
 * strategy and preferredHolder belong to coordinated leader election, behind the
 * CoordinatedLeaderElection gate (beta, off by default in the reference server 1.33): with it
 * off a new object loses them, an update keeps them only where the stored object used them.
 */
function dropCoordinatedFields (lease: Lease, old?: Lease): void {
  if (lease.spec === undefined) return
  const inUse = old?.spec?.strategy != null || old?.spec?.preferredHolder != null
  if (inUse) return
  delete lease.spec.strategy
  delete lease.spec.preferredHolder
}

export default defineResource({
  group: GROUPS.coordination,
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  singular: 'lease',
  scope: 'Namespaced',
  schema,
  generation: false,
  strategy: {
    // PUT creates, as the reference's strategy allows (AllowCreateOnUpdate).
    allowCreateOnUpdate: true,
    prepareForCreate (lease: Lease, ctx) {
      lease.spec ??= {}
      if (!ctx.features.enabled('CoordinatedLeaderElection')) dropCoordinatedFields(lease)
    },
    prepareForUpdate (lease: Lease, old: Lease, ctx) {
      lease.spec ??= {}
      if (!ctx.features.enabled('CoordinatedLeaderElection')) dropCoordinatedFields(lease, old)
    },
    validate (lease: Lease) {
      const errors: FieldError[] = []
      const spec: Lease = lease.spec ?? {}
      if (spec.leaseDurationSeconds != null && spec.leaseDurationSeconds <= 0) {
        errors.push({ type: 'Invalid', field: 'spec.leaseDurationSeconds', value: spec.leaseDurationSeconds, detail: 'must be greater than 0' })
      }
      if (spec.leaseTransitions != null && spec.leaseTransitions < 0) {
        errors.push({ type: 'Invalid', field: 'spec.leaseTransitions', value: spec.leaseTransitions, detail: 'must be greater than or equal to 0' })
      }
      if (spec.strategy != null && spec.strategy !== 'OldestEmulationVersion') {
        errors.push({ type: 'NotSupported', field: 'spec.strategy', value: spec.strategy, supported: ['OldestEmulationVersion'] })
      }
      if (spec.preferredHolder != null && spec.preferredHolder !== '' && (spec.strategy == null || spec.strategy === '')) {
        errors.push({ type: 'Forbidden', field: 'spec.preferredHolder', detail: 'may only be specified if `strategy` is defined' })
      }
      return errors
    }
  },
  columns: [
    { name: 'Holder', type: 'string', description: 'The holder of the lease.', value: (lease: Lease) => lease.spec?.holderIdentity ?? '' }
  ],
  example: {
    metadata: { name: 'example-controller' },
    spec: { holderIdentity: 'controller-0', leaseDurationSeconds: 15 }
  }
})
