// CSINode (storage.svc.io/v1, cluster scope): the CSI drivers a node runs, named as the node.
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { Int32, objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { AtomicList, immutable, MapList } from './core-types.js'
import { csiDriverNameProblems } from './volumes.js'
import { invalidEach, qualifiedNameProblems } from './validation.js'
import { keepZero, message } from './protobuf.js'

const opt = Type.Optional

const schema = objectSchema(`${GROUPS.storage}/v1`, 'CSINode', {
  spec: Type.Object({
    drivers: MapList(Type.Object({
      name: Type.String(),
      nodeID: Type.String(),
      topologyKeys: opt(AtomicList(Type.String())),
      allocatable: opt(Type.Object({ count: opt(Int32()) }, { additionalProperties: false, ...message('VolumeNodeResources', { count: keepZero(1) }) }))
    }, { additionalProperties: false, ...message('CSINodeDriver', { name: 1, nodeID: 2, topologyKeys: 3, allocatable: 4 }) }), ['name'])
  }, { additionalProperties: false, ...message('CSINodeSpec', { drivers: 1 }) })
}, 'CSINode holds information about all CSI drivers installed on a node.', { spec: 2 })

type Node = Record<string, any>

const MAX_NODE_ID = 192

function validateDrivers (drivers: Node[]): FieldError[] {
  const errors: FieldError[] = []
  const names = new Set<string>()
  drivers.forEach((d, i) => {
    const f = `spec.drivers[${i}]`
    if (!d.name) errors.push({ type: 'Required', field: `${f}.name` })
    else {
      for (const p of csiDriverNameProblems(d.name)) errors.push({ ...p, field: `${f}.name`, value: d.name })
      if (names.has(d.name)) errors.push({ type: 'Duplicate', field: `${f}.name`, value: d.name })
      names.add(d.name)
    }
    if (!d.nodeID) errors.push({ type: 'Required', field: `${f}.nodeID`, detail: 'nodeID of the driver must be provided' })
    else if (d.nodeID.length > MAX_NODE_ID) errors.push({ type: 'TooLong', field: `${f}.nodeID`, detail: `may not be more than ${MAX_NODE_ID} bytes` })
    const keys = new Set<string>()
    ;(d.topologyKeys ?? []).forEach((k: string, j: number) => {
      const kf = `${f}.topologyKeys[${j}]`
      if (k === '') errors.push({ type: 'Required', field: kf })
      else errors.push(...invalidEach(kf, k, qualifiedNameProblems(k)))
      if (keys.has(k)) errors.push({ type: 'Duplicate', field: kf, value: k })
      keys.add(k)
    })
    const count = d.allocatable?.count
    if (typeof count === 'number' && count < 0) errors.push({ type: 'Invalid', field: `${f}.allocatable.count`, value: count, detail: 'must be greater than or equal to 0' })
  })
  return errors
}

export default defineResource({
  group: GROUPS.storage,
  version: 'v1',
  kind: 'CSINode',
  plural: 'csinodes',
  singular: 'csinode',
  scope: 'Cluster',
  schema,
  deleteReturns: 'Object',
  strategy: {
    validate: (n) => n.spec === undefined ? [{ type: 'Required', field: 'spec' }] : validateDrivers(n.spec.drivers ?? []),
    validateUpdate (n, old) {
      const errors: FieldError[] = []
      const before = new Map<string, Node>((old.spec?.drivers ?? []).map((d: Node) => [d.name, d]))
      ;(n.spec?.drivers ?? []).forEach((d: Node, i: number) => {
        const o = before.get(d.name)
        if (o === undefined) return
        errors.push(...immutable(`spec.drivers[${i}].nodeID`, d.nodeID, o.nodeID))
        errors.push(...immutable(`spec.drivers[${i}].topologyKeys`, d.topologyKeys, o.topologyKeys))
      })
      return errors
    }
  },
  columns: [
    { name: 'Drivers', type: 'integer', description: 'The number of CSI drivers on the node', value: (n: Node) => (n.spec?.drivers ?? []).length }
  ],
  example: {
    metadata: { name: 'node-1' },
    spec: { drivers: [{ name: 'csi.example.com', nodeID: 'node-1', topologyKeys: ['topology.example.com/zone'] }] }
  }
})
