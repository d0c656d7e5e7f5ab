// Event: a report of something that happened to an object. Core v1 Event is the stored form;
// events.svc.io/v1 Event serves the same objects under the newer field names (regarding, note,
// reportingController, deprecated*), converted both ways by renaming. `kubectl describe` and
// `kubectl events` list core events by involvedObject field selectors.
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { defineResource, renamedFields, type AnyObject, type Column, type RequestContext } from './define.js'
import { Int32, objectSchema, Timestamp } from './meta.js'
import { GROUPS, NAMESPACES } from './naming.js'
import { MicroTime } from './micro-time.js'
import { keepZero, message } from './protobuf.js'
import type { FieldError } from './status.js'
import { dnsSubdomainProblems, qualifiedNameProblems } from './validation.js'

const ObjectReference = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  resourceVersion: Type.Optional(Type.String()),
  fieldPath: Type.Optional(Type.String())
}, { additionalProperties: false, description: 'A reference to an object.', ...message('core.v1.ObjectReference', { kind: 1, namespace: 2, name: 3, uid: 4, apiVersion: 5, resourceVersion: 6, fieldPath: 7 }) })

const EventSource = Type.Object({
  component: Type.Optional(Type.String()),
  host: Type.Optional(Type.String())
}, { additionalProperties: false, ...message('core.v1.EventSource', { component: 1, host: 2 }) })

const EventSeries = Type.Object({
  count: Type.Optional(Int32()),
  lastObservedTime: Type.Optional(MicroTime())
}, { additionalProperties: false, ...message('EventSeries', { count: 1, lastObservedTime: 2 }) })

const schema = objectSchema('v1', 'Event', {
  involvedObject: ObjectReference,
  reason: Type.Optional(Type.String({ description: 'Short, machine understandable reason for the transition into the object\'s current status.' })),
  message: Type.Optional(Type.String({ description: 'A human-readable description of the status of this operation.' })),
  source: Type.Optional(EventSource),
  firstTimestamp: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
  lastTimestamp: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
  count: Type.Optional(Int32()),
  type: Type.Optional(Type.String({ description: 'Normal or Warning.' })),
  eventTime: Type.Optional(MicroTime({ description: 'Time when this Event was first observed.' })),
  series: Type.Optional(EventSeries),
  action: Type.Optional(Type.String()),
  related: Type.Optional(ObjectReference),
  reportingComponent: Type.Optional(Type.String()),
  reportingInstance: Type.Optional(Type.String())
}, 'Event is a report of an event somewhere in the cluster.', {
  involvedObject: 2,
  reason: 3,
  message: 4,
  source: 5,
  firstTimestamp: 6,
  lastTimestamp: 7,
  count: 8,
  type: 9,
  eventTime: 10,
  series: 11,
  action: 12,
  related: 13,
  reportingComponent: 14,
  reportingInstance: keepZero(15)
})

/** events.svc.io/v1: the same fields, the older ones renamed `deprecated*`. */
const eventsV1Schema = objectSchema(`${GROUPS.events}/v1`, 'Event', {
  eventTime: Type.Optional(MicroTime({ description: 'eventTime is the time when this Event was first observed. It is required.' })),
  series: Type.Optional(EventSeries),
  reportingController: Type.Optional(Type.String({ description: 'reportingController is the name of the controller that emitted this Event.' })),
  reportingInstance: Type.Optional(Type.String({ description: 'reportingInstance is the ID of the controller instance.' })),
  action: Type.Optional(Type.String({ description: 'action is what action was taken/failed regarding to the regarding object.' })),
  reason: Type.Optional(Type.String({ description: 'reason is why the action was taken.' })),
  regarding: Type.Optional(ObjectReference),
  related: Type.Optional(ObjectReference),
  note: Type.Optional(Type.String({ description: 'note is a human-readable description of the status of this operation.' })),
  type: Type.Optional(Type.String({ description: 'type is the type of this event (Normal, Warning).' })),
  deprecatedSource: Type.Optional(EventSource),
  deprecatedFirstTimestamp: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
  deprecatedLastTimestamp: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
  deprecatedCount: Type.Optional(Int32())
}, 'Event is a report of an event somewhere in the cluster.', {
  eventTime: 2,
  series: 3,
  reportingController: 4,
  reportingInstance: 5,
  action: 6,
  reason: 7,
  regarding: 8,
  related: 9,
  note: 10,
  type: 11,
  deprecatedSource: 12,
  deprecatedFirstTimestamp: 13,
  deprecatedLastTimestamp: 14,
  deprecatedCount: 15
})

/** events.svc.io/v1 name → core v1 name (the reference server's conversion functions). */
const EVENTS_V1_RENAMES = {
  regarding: 'involvedObject',
  note: 'message',
  reportingController: 'reportingComponent',
  deprecatedSource: 'source',
  deprecatedFirstTimestamp: 'firstTimestamp',
  deprecatedLastTimestamp: 'lastTimestamp',
  deprecatedCount: 'count'
} as const

const TYPES = ['Normal', 'Warning']
const LENGTH_LIMITS = { reportingInstance: 128, action: 128, reason: 128, message: 1024 }
const EVENTS_V1 = `${GROUPS.events}/v1`

type Ev = AnyObject
const set = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && v !== 0
const tooLong = (field: keyof typeof LENGTH_LIMITS, value: unknown): FieldError[] =>
  typeof value === 'string' && value.length > LENGTH_LIMITS[field]
    ? [{ type: 'Invalid', field, value: '', detail: `can have at most ${LENGTH_LIMITS[field]} characters` }]
    : []

/**
 * The rules every write of an event meets, through either API (upstream's legacyValidateEvent):
 * an event with eventTime is a new-style event and needs its reporter, action and reason.
 */
function validateAnyEvent (ev: Ev): FieldError[] {
  const errors: FieldError[] = []
  const ns: string = ev.metadata?.namespace ?? ''
  const involvedNs: string = ev.involvedObject?.namespace ?? ''
  const mismatch = (): FieldError => ({ type: 'Invalid', field: 'involvedObject.namespace', value: involvedNs, detail: 'does not match event.namespace' })
  if (!set(ev.eventTime)) {
    if (involvedNs === '' ? ns !== '' && ns !== NAMESPACES.default : ns !== involvedNs) errors.push(mismatch())
  } else {
    if (involvedNs === '' && ns !== NAMESPACES.default && ns !== NAMESPACES.system) errors.push(mismatch())
    const controller: string = ev.reportingComponent ?? ''
    if (controller === '') errors.push({ type: 'Required', field: 'reportingController' })
    for (const detail of qualifiedNameProblems(controller)) errors.push({ type: 'Invalid', field: 'reportingController', value: controller, detail })
    if (!set(ev.reportingInstance)) errors.push({ type: 'Required', field: 'reportingInstance' })
    errors.push(...tooLong('reportingInstance', ev.reportingInstance))
    if (!set(ev.action)) errors.push({ type: 'Required', field: 'action' })
    errors.push(...tooLong('action', ev.action))
    if (!set(ev.reason)) errors.push({ type: 'Required', field: 'reason' })
    errors.push(...tooLong('reason', ev.reason))
    errors.push(...tooLong('message', ev.message))
  }
  for (const detail of dnsSubdomainProblems(ns)) errors.push({ type: 'Invalid', field: 'namespace', value: ns, detail })
  return errors
}

function validateSeries (ev: Ev): FieldError[] {
  if (ev.series == null) return []
  const errors: FieldError[] = []
  if ((ev.series.count ?? 0) < 2) errors.push({ type: 'Invalid', field: 'series.count', value: '', detail: 'should be at least 2' })
  if (!set(ev.series.lastObservedTime)) errors.push({ type: 'Required', field: 'series.lastObservedTime' })
  return errors
}

/** Creates through events.svc.io/v1 are strict: new-style fields required, old ones unset. */
function validateEventsV1Create (ev: Ev): FieldError[] {
  const errors = validateSeries(ev)
  if (!set(ev.eventTime)) errors.push({ type: 'Required', field: 'eventTime' })
  if (!TYPES.includes(ev.type)) errors.push({ type: 'Invalid', field: 'type', value: '', detail: `has invalid value: ${String(ev.type ?? '')}` })
  if (set(ev.firstTimestamp)) errors.push({ type: 'Invalid', field: 'firstTimestamp', value: '', detail: 'needs to be unset' })
  if (set(ev.lastTimestamp)) errors.push({ type: 'Invalid', field: 'lastTimestamp', value: '', detail: 'needs to be unset' })
  if (set(ev.count)) errors.push({ type: 'Invalid', field: 'count', value: '', detail: 'needs to be unset' })
  if (set(ev.source?.component) || set(ev.source?.host)) errors.push({ type: 'Invalid', field: 'source', value: '', detail: 'needs to be unset' })
  return errors
}

const IMMUTABLE_THROUGH_EVENTS_V1 = ['involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type', 'eventTime', 'action', 'related', 'reportingComponent', 'reportingInstance']

/** Updates through events.svc.io/v1 may change only the series (and metadata). */
function validateEventsV1Update (ev: Ev, old: Ev): FieldError[] {
  const errors = isDeepStrictEqual(ev.series, old.series) ? [] : validateSeries(ev)
  for (const field of IMMUTABLE_THROUGH_EVENTS_V1) {
    if (!isDeepStrictEqual(ev[field] ?? null, old[field] ?? null)) {
      errors.push({ type: 'Invalid', field: field === 'reportingComponent' ? 'reportingController' : field, value: ev[field], detail: 'field is immutable' })
    }
  }
  return errors
}

const throughEventsV1 = (ctx: RequestContext): boolean => ctx.requestVersion === EVENTS_V1

/** kubectl's event columns, over either form (`names` gives the form's field names). */
function eventColumns (names: { involvedObject: string, message: string, source: string, count: string, reporter: string, lastTimestamp: string }): Column[] {
  return [
    { name: 'Last Seen', type: 'date', value: (ev) => ev[names.lastTimestamp] ?? ev.series?.lastObservedTime ?? ev.eventTime ?? ev.metadata?.creationTimestamp ?? undefined },
    { name: 'Type', type: 'string', value: (ev) => ev.type },
    { name: 'Reason', type: 'string', value: (ev) => ev.reason },
    { name: 'Object', type: 'string', value: (ev) => `${String(ev[names.involvedObject]?.kind ?? '').toLowerCase()}/${String(ev[names.involvedObject]?.name ?? '')}` },
    { name: 'Message', type: 'string', value: (ev) => ev[names.message] },
    { name: 'Source', type: 'string', priority: 1, value: (ev) => ev[names.source]?.component ?? ev[names.reporter] },
    { name: 'Count', type: 'integer', priority: 1, value: (ev) => ev[names.count] ?? ev.series?.count ?? 1 }
  ]
}

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
    // PUT creates, as the reference's strategy allows (AllowCreateOnUpdate).
    allowCreateOnUpdate: true,
    validate (ev, ctx) {
      const errors = validateAnyEvent(ev)
      if (!throughEventsV1(ctx) && set(ev.type) && !TYPES.includes(ev.type as string)) errors.push({ type: 'NotSupported', field: 'type', value: ev.type, supported: TYPES })
      return errors
    },
    validateCreate (ev, ctx) {
      return throughEventsV1(ctx) ? validateEventsV1Create(ev) : []
    },
    validateUpdate (ev, old, ctx) {
      return throughEventsV1(ctx) ? validateEventsV1Update(ev, old) : []
    }
  },
  columns: eventColumns({ involvedObject: 'involvedObject', message: 'message', source: 'source', count: 'count', reporter: 'reportingComponent', lastTimestamp: 'lastTimestamp' }),
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
  },
  servedAs: [{
    group: GROUPS.events,
    version: 'v1',
    kind: 'Event',
    introduced: '1.19',
    schema: eventsV1Schema,
    ...renamedFields(EVENTS_V1_RENAMES),
    // The reference server's field label conversion for events.k8s.io/v1.
    fieldLabels: {
      'regarding.kind': 'involvedObject.kind',
      'regarding.namespace': 'involvedObject.namespace',
      'regarding.name': 'involvedObject.name',
      'regarding.uid': 'involvedObject.uid',
      'regarding.apiVersion': 'involvedObject.apiVersion',
      'regarding.resourceVersion': 'involvedObject.resourceVersion',
      'regarding.fieldPath': 'involvedObject.fieldPath',
      reason: 'reason',
      reportingController: 'reportingComponent',
      type: 'type',
      'metadata.namespace': 'metadata.namespace',
      'metadata.name': 'metadata.name'
    },
    columns: eventColumns({ involvedObject: 'regarding', message: 'note', source: 'deprecatedSource', count: 'deprecatedCount', reporter: 'reportingController', lastTimestamp: 'deprecatedLastTimestamp' })
  }],
  example: {
    metadata: { name: 'node-1.rebooted' },
    involvedObject: { apiVersion: 'v1', kind: 'Node', name: 'node-1' },
    reason: 'Rebooted',
    message: 'Node node-1 has been rebooted',
    type: 'Normal',
    eventTime: '2024-05-01T10:00:00.000000Z',
    action: 'Reboot',
    reportingComponent: 'kubelet',
    reportingInstance: 'node-1'
  }
})
