// CSIStorageCapacity (storage.svc.io/v1, namespaced): capacity a driver reports for a class in a topology segment.
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { objectSchema, Quantity } from './meta.js'
import { GROUPS } from './naming.js'
import { immutable, LabelSelector, validateLabelSelector } from './core-types.js'
import { dnsSubdomainProblems, invalidEach } from './validation.js'
import { isNegativeQuantity } from './quantity.js'
import { nodeLabelSelectorWarnings, warnOnWrite } from './deprecation-warnings.js'

const opt = Type.Optional

const schema = objectSchema(`${GROUPS.storage}/v1`, 'CSIStorageCapacity', {
  nodeTopology: opt(LabelSelector),
  storageClassName: Type.String(),
  capacity: opt(Quantity()),
  maximumVolumeSize: opt(Quantity())
}, 'CSIStorageCapacity stores the result of one CSI GetCapacity call.', { nodeTopology: 2, storageClassName: 3, capacity: 4, maximumVolumeSize: 5 })

type Capacity = Record<string, any>

export default defineResource({
  group: GROUPS.storage,
  version: 'v1',
  kind: 'CSIStorageCapacity',
  plural: 'csistoragecapacities',
  singular: 'csistoragecapacity',
  scope: 'Namespaced',
  schema,
  generation: false,
  olderVersions: [{ version: 'v1beta1', introduced: '1.21', deprecated: '1.24', removed: '1.27' }],
  strategy: {
    ...warnOnWrite((c: Record<string, any>) => nodeLabelSelectorWarnings(c.nodeTopology, 'nodeTopology')),
    validate (c) {
      const errors: FieldError[] = []
      if (!c.storageClassName) errors.push({ type: 'Required', field: 'storageClassName' })
      else errors.push(...invalidEach('storageClassName', c.storageClassName, dnsSubdomainProblems(c.storageClassName)))
      errors.push(...validateLabelSelector(c.nodeTopology, 'nodeTopology'))
      for (const f of ['capacity', 'maximumVolumeSize'] as const) {
        const v = c[f]
        if (typeof v === 'string' && isNegativeQuantity(v)) errors.push({ type: 'Invalid', field: f, value: v, detail: 'must be greater than or equal to 0' })
      }
      return errors
    },
    validateUpdate: (c, old) => [
      ...immutable('storageClassName', c.storageClassName, old.storageClassName),
      ...immutable('nodeTopology', c.nodeTopology, old.nodeTopology)
    ]
  },
  columns: [
    { name: 'StorageClassName', type: 'string', description: 'The storage class the capacity is for', value: (c: Capacity) => c.storageClassName },
    { name: 'Capacity', type: 'string', description: 'The reported capacity', value: (c: Capacity) => c.capacity ?? '' }
  ],
  example: {
    metadata: { name: 'standard-zone-a' },
    storageClassName: 'standard',
    nodeTopology: { matchLabels: { 'topology.example.com/zone': 'a' } },
    capacity: '100Gi'
  }
})
