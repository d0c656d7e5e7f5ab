// Event (core v1): a report of something that happened to an object; `kubectl describe` lists
// the events of the object it shows by involvedObject field selectors.
import { Type } from '@sinclair/typebox'
import { defineResource } from './define.js'
import { Int32, objectSchema, Timestamp } from './meta.js'

const ObjectReference = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  fieldPath: Type.Optional(Type.String())
}, { additionalProperties: false, description: 'A reference to an object.' })

const schema = objectSchema('v1', 'Event', {
  involvedObject: ObjectReference,
  reason: Type.Optional(Type.String({ description: 'Short, machine understandable reason for the transition into the object\'s current status.' })),
  message: Type.Optional(Type.String({ description: 'A human-readable description of the status of this operation.' })),
  source: Type.Optional(Type.Object({
    component: Type.Optional(Type.String()),
    host: Type.Optional(Type.String())
  }, { additionalProperties: false })),
  firstTimestamp: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
  lastTimestamp: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
  count: Type.Optional(Int32()),
  type: Type.Optional(Type.String({ description: 'Normal or Warning.' })),
  eventTime: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  series: Type.Optional(Type.Object({ count: Type.Optional(Int32()), lastObservedTime: Type.Optional(Type.String()) }, { additionalProperties: false })),
  action: Type.Optional(Type.String()),
  related: Type.Optional(ObjectReference),
  reportingComponent: Type.Optional(Type.String()),
  reportingInstance: Type.Optional(Type.String())
}, 'Event is a report of an event somewhere in the cluster.')

const TYPES = ['Normal', 'Warning']

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  singular: 'event',
  shortNames: ['ev'],
  scope: 'Namespaced',
  ignoredByGarbageCollector: true,
  schema,
  strategy: {
    validate (ev) {
      const errors = []
      const ns = ev.involvedObject.namespace
      if (ns !== undefined && ns !== '' && ns !== ev.metadata?.namespace) {
        errors.push({ type: 'Invalid' as const, field: 'involvedObject.namespace', value: ns, detail: 'does not match event.namespace' })
      }
      if (ev.type !== undefined && ev.type !== '' && !TYPES.includes(ev.type)) {
        errors.push({ type: 'NotSupported' as const, field: 'type', value: ev.type, supported: TYPES })
      }
      return errors
    }
  },
  columns: [
    { name: 'Last Seen', type: 'date', value: (ev) => ev.lastTimestamp ?? ev.eventTime ?? ev.metadata?.creationTimestamp ?? undefined },
    { name: 'Type', type: 'string', value: (ev) => ev.type },
    { name: 'Reason', type: 'string', value: (ev) => ev.reason },
    { name: 'Object', type: 'string', value: (ev) => `${(ev.involvedObject.kind ?? '').toLowerCase()}/${ev.involvedObject.name ?? ''}` },
    { name: 'Message', type: 'string', value: (ev) => ev.message },
    { name: 'Source', type: 'string', priority: 1, value: (ev) => ev.source?.component ?? ev.reportingComponent },
    { name: 'Count', type: 'integer', priority: 1, value: (ev) => ev.count ?? ev.series?.count ?? 1 }
  ],
  fieldSelectors: {
    'involvedObject.kind': (ev) => ev.involvedObject.kind,
    'involvedObject.namespace': (ev) => ev.involvedObject.namespace,
    'involvedObject.name': (ev) => ev.involvedObject.name,
    'involvedObject.uid': (ev) => ev.involvedObject.uid,
    'involvedObject.apiVersion': (ev) => ev.involvedObject.apiVersion,
    'involvedObject.resourceVersion': (ev) => ev.involvedObject.resourceVersion,
    'involvedObject.fieldPath': (ev) => ev.involvedObject.fieldPath,
    reason: (ev) => ev.reason,
    reportingComponent: (ev) => ev.reportingComponent,
    source: (ev) => ev.source?.component,
    type: (ev) => ev.type
  }
})
