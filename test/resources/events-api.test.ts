// events.svc.io/v1 Event beside core v1 Event over one storage: the same stored objects through
// both APIs with the reference server's field mapping, lossless both ways; the strict
// validation of events/v1 creates and updates; field selectors in each form's labels;
// discovery, OpenAPI, watches, tables, patches, --runtime-config and the upstream alias.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { GROUPS } from '../../resources/naming.js'
import { renamedFields } from '../../resources/define.js'

const EVENTS = GROUPS.events
const CORE = '/api/v1/namespaces/default/events'
const V1 = `/apis/${EVENTS}/v1/namespaces/default/events`
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io'

const coreEvent = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, labels: { a: 'b' } },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1', apiVersion: 'v1' },
  reason: 'Started',
  message: 'Started container web',
  source: { component: 'svclet', host: 'node-1' },
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:05:00Z',
  count: 3,
  type: 'Normal'
})

const newEvent = (name: string, extra: Record<string, unknown> = {}): Record<string, any> => ({
  apiVersion: `${EVENTS}/v1`,
  kind: 'Event',
  metadata: { name },
  eventTime: '2026-01-01T00:00:00.123456Z',
  reportingController: 'example.com/scheduler',
  reportingInstance: 'scheduler-1',
  action: 'Binding',
  reason: 'Scheduled',
  regarding: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'u1', apiVersion: 'v1' },
  note: 'Assigned default/web to node-1',
  type: 'Normal',
  ...extra
})

/** The fields of an object other than its server-set metadata. */
const content = (o: Record<string, any>) => {
  const { apiVersion: _a, kind: _k, metadata, ...fields } = o
  return { ...fields, name: metadata.name, labels: metadata.labels }
}

test('the renaming conversion is lossless both ways and drops the other form\'s names', () => {
  const c = renamedFields({ regarding: 'involvedObject', note: 'message' })
  const stored = { involvedObject: { name: 'x' }, message: 'm', reason: 'r' }
  assert.deepEqual(c.fromStored(stored), { regarding: { name: 'x' }, note: 'm', reason: 'r' })
  assert.deepEqual(c.toStored(c.fromStored(stored)), stored)
  const served = { regarding: { name: 'x' }, note: 'm', reason: 'r' }
  assert.deepEqual(c.fromStored(c.toStored(served)), served)
  assert.deepEqual(c.toStored({ involvedObject: 1, note: 'm' }), { message: 'm' })
})

test('a core event reads through events.svc.io/v1 with the new names, and back without loss', async (t) => {
  const { request } = await buildTestApp(t)
  const created = await request({ method: 'POST', url: CORE, payload: coreEvent('old') })
  assert.equal(created.statusCode, 201, created.body)
  const viaV1 = await request({ method: 'GET', url: `${V1}/old` })
  assert.equal(viaV1.statusCode, 200, viaV1.body)
  const ev = viaV1.json()
  assert.equal(ev.apiVersion, `${EVENTS}/v1`)
  assert.equal(ev.kind, 'Event')
  assert.deepEqual(ev.regarding, coreEvent('old').involvedObject)
  assert.equal(ev.note, 'Started container web')
  assert.deepEqual(ev.deprecatedSource, { component: 'svclet', host: 'node-1' })
  assert.equal(ev.deprecatedFirstTimestamp, '2026-01-01T00:00:00Z')
  assert.equal(ev.deprecatedLastTimestamp, '2026-01-01T00:05:00Z')
  assert.equal(ev.deprecatedCount, 3)
  for (const old of ['involvedObject', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count']) assert.equal(ev[old], undefined, old)
  assert.equal(ev.metadata.uid, created.json().metadata.uid)

  // The events/v1 object written back unchanged is no change at all: the stored one is the same.
  const put = await request({ method: 'PUT', url: `${V1}/old`, payload: ev })
  assert.equal(put.statusCode, 200, put.body)
  assert.deepEqual(put.json(), ev)
  const again = (await request({ method: 'GET', url: `${CORE}/old` })).json()
  assert.deepEqual(content(again), content(created.json()))
  assert.equal(again.metadata.resourceVersion, created.json().metadata.resourceVersion)
})

test('an events.svc.io/v1 event reads through core v1 with the old names, and back without loss', async (t) => {
  const { request } = await buildTestApp(t)
  const sent = newEvent('new', { series: { count: 2, lastObservedTime: '2026-01-01T00:01:00.000001Z' }, related: { kind: 'Node', name: 'node-1' } })
  const created = await request({ method: 'POST', url: V1, payload: sent })
  assert.equal(created.statusCode, 201, created.body)
  assert.deepEqual(content(created.json()), content(sent))
  const core = (await request({ method: 'GET', url: `${CORE}/new` })).json()
  assert.equal(core.apiVersion, 'v1')
  assert.deepEqual(core.involvedObject, sent.regarding)
  assert.equal(core.message, sent.note)
  assert.equal(core.reportingComponent, 'example.com/scheduler')
  assert.equal(core.reportingInstance, 'scheduler-1')
  assert.equal(core.eventTime, '2026-01-01T00:00:00.123456Z')
  assert.deepEqual(core.series, sent.series)
  assert.equal(core.action, 'Binding')
  const back = (await request({ method: 'GET', url: `${V1}/new` })).json()
  assert.deepEqual(back, created.json())
})

test('events/v1 creates are validated as the reference server does', async (t) => {
  const { request } = await buildTestApp(t)
  const causes = async (payload: Record<string, unknown>) => {
    const res = await request({ method: 'POST', url: V1, payload })
    assert.equal(res.statusCode, 422, res.body)
    return (res.json().details.causes as Array<{ field: string, message: string }>).map(c => `${c.field}: ${c.message}`)
  }
  const bare = { apiVersion: `${EVENTS}/v1`, kind: 'Event', metadata: { name: 'bare' }, regarding: { kind: 'Pod', namespace: 'default', name: 'web' } }
  const missing = await causes(bare)
  assert.ok(missing.includes('eventTime: Required value'), missing.join('\n'))
  assert.ok(missing.some(m => m.startsWith('type: Invalid value: "": has invalid value: ')), missing.join('\n'))

  // With eventTime set, the reporter, action and reason are required.
  const noReporter = await causes({ ...bare, eventTime: '2026-01-01T00:00:00.000000Z', type: 'Normal' })
  for (const field of ['reportingController', 'reportingInstance', 'action', 'reason']) {
    assert.ok(noReporter.includes(`${field}: Required value`), noReporter.join('\n'))
  }
  // The old fields may not be set on a new object, under their names in the stored form.
  const old = await causes(newEvent('old-fields', { deprecatedCount: 2, deprecatedSource: { component: 'x' }, deprecatedFirstTimestamp: '2026-01-01T00:00:00Z', deprecatedLastTimestamp: '2026-01-01T00:00:00Z' }))
  for (const field of ['count', 'source', 'firstTimestamp', 'lastTimestamp']) {
    assert.ok(old.includes(`${field}: Invalid value: "": needs to be unset`), old.join('\n'))
  }
  const series = await causes(newEvent('series', { series: { count: 1 } }))
  assert.ok(series.includes('series.count: Invalid value: "": should be at least 2'), series.join('\n'))
  assert.ok(series.includes('series.lastObservedTime: Required value'), series.join('\n'))
  const long = await causes(newEvent('long', { action: 'a'.repeat(129), type: 'Info' }))
  assert.ok(long.includes('action: Invalid value: "": can have at most 128 characters'), long.join('\n'))
  assert.ok(long.includes('type: Invalid value: "": has invalid value: Info'), long.join('\n'))
  const controller = await causes(newEvent('controller', { reportingController: 'not a name!' }))
  assert.ok(controller.some(m => m.startsWith('reportingController: Invalid value: "not a name!"')), controller.join('\n'))

  // Core v1 stays lenient: an old-style event without eventTime needs none of these.
  const core = await request({ method: 'POST', url: CORE, payload: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'lenient' }, involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' } } })
  assert.equal(core.statusCode, 201, core.body)
  // ...but a core event with eventTime is a new-style one and needs its reporter.
  const coreNew = await request({ method: 'POST', url: CORE, payload: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'newstyle' }, eventTime: '2026-01-01T00:00:00.000000Z', involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' } } })
  assert.equal(coreNew.statusCode, 422, coreNew.body)
  assert.match(coreNew.json().message, /reportingController: Required value/)
})

test('unknown fields are those of the form the client wrote', async (t) => {
  const { request } = await buildTestApp(t)
  const strict = await request({ method: 'POST', url: `${V1}?fieldValidation=Strict`, payload: { ...newEvent('strict'), involvedObject: { name: 'x' } } })
  assert.equal(strict.statusCode, 400, strict.body)
  assert.equal(strict.json().message, 'Event in version "v1" cannot be handled as a Event: strict decoding error: unknown field "involvedObject"')
  const warned = await request({ method: 'POST', url: `${V1}?fieldValidation=Warn`, payload: { ...newEvent('warned'), message: 'old name' } })
  assert.equal(warned.statusCode, 201, warned.body)
  assert.match(String(warned.headers.warning), /unknown field \\"message\\"/)
  assert.equal((await request({ method: 'GET', url: `${CORE}/warned` })).json().message, 'Assigned default/web to node-1', 'the note, not the unknown field')
})

test('events/v1 updates may change the series only; patches apply to the events/v1 form', async (t) => {
  const { request } = await buildTestApp(t)
  assert.equal((await request({ method: 'POST', url: V1, payload: newEvent('p') })).statusCode, 201)
  const series = { count: 2, lastObservedTime: '2026-01-01T00:02:00.000000Z' }
  const patched = await request({ method: 'PATCH', url: `${V1}/p`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { series } })
  assert.equal(patched.statusCode, 200, patched.body)
  assert.deepEqual(patched.json().series, series)
  assert.deepEqual((await request({ method: 'GET', url: `${CORE}/p` })).json().series, series)
  const note = await request({ method: 'PATCH', url: `${V1}/p`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { note: 'changed' } })
  assert.equal(note.statusCode, 422, note.body)
  assert.match(note.json().message, /message: Invalid value: "changed": field is immutable/)
  const json = await request({ method: 'PATCH', url: `${V1}/p`, headers: { 'content-type': 'application/json-patch+json' }, payload: [{ op: 'replace', path: '/series/count', value: 3 }] })
  assert.equal(json.statusCode, 200, json.body)
  assert.equal(json.json().series.count, 3)
  // Through core v1 the old rules hold: the message may change.
  const coreMerge = await request({ method: 'PATCH', url: `${CORE}/p`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { message: 'changed' } })
  assert.equal(coreMerge.statusCode, 200, coreMerge.body)
  assert.equal((await request({ method: 'GET', url: `${V1}/p` })).json().note, 'changed')
})

test('lists, field selectors, watches and tables through events.svc.io/v1', async (t) => {
  const { request } = await buildTestApp(t)
  await request({ method: 'POST', url: CORE, payload: coreEvent('a') })
  await request({ method: 'POST', url: V1, payload: newEvent('b', { regarding: { kind: 'Pod', namespace: 'default', name: 'db' } }) })
  const list = await request({ method: 'GET', url: V1 })
  assert.equal(list.statusCode, 200, list.body)
  assert.equal(list.json().kind, 'EventList')
  assert.equal(list.json().apiVersion, `${EVENTS}/v1`)
  assert.deepEqual(list.json().items.map((e: any) => [e.apiVersion, e.metadata.name, e.regarding.name]), [[`${EVENTS}/v1`, 'a', 'web'], [`${EVENTS}/v1`, 'b', 'db']])

  const selected = await request({ method: 'GET', url: `${V1}?fieldSelector=regarding.name%3Ddb,reportingController%3Dexample.com/scheduler` })
  assert.equal(selected.statusCode, 200, selected.body)
  assert.deepEqual(selected.json().items.map((e: any) => e.metadata.name), ['b'])
  const coreSelected = await request({ method: 'GET', url: `${CORE}?fieldSelector=involvedObject.name%3Dweb` })
  assert.deepEqual(coreSelected.json().items.map((e: any) => e.metadata.name), ['a'])
  const unsupported = await request({ method: 'GET', url: `${V1}?fieldSelector=involvedObject.name%3Ddb` })
  assert.equal(unsupported.statusCode, 400, unsupported.body)
  assert.equal(unsupported.json().message, 'field label not supported: involvedObject.name')

  const watch = await request({ method: 'GET', url: `${V1}?watch=true&timeoutSeconds=1&fieldSelector=regarding.name%3Dweb` })
  const events = watch.body.split('\n').filter(l => l !== '').map(l => JSON.parse(l))
  assert.deepEqual(events.map(e => [e.type, e.object.apiVersion, e.object.metadata.name, e.object.note]), [['ADDED', `${EVENTS}/v1`, 'a', 'Started container web']])

  const table = await request({ method: 'GET', url: V1, headers: { accept: TABLE } })
  assert.equal(table.statusCode, 200, table.body)
  const rows = table.json().rows.map((r: any) => [r.cells[0], r.cells[3], r.cells[4], r.cells[5]])
  assert.deepEqual(rows[1], ['b', 'Scheduled', 'pod/db', 'Assigned default/web to node-1'])
})

test('discovery, OpenAPI, the upstream alias and --runtime-config', async (t) => {
  const { request } = await buildTestApp(t)
  const resources = (await request({ method: 'GET', url: `/apis/${EVENTS}/v1` })).json().resources
  const events = resources.find((r: any) => r.name === 'events')
  assert.equal(events.kind, 'Event')
  assert.equal(events.namespaced, true)
  const core = (await request({ method: 'GET', url: '/api/v1' })).json().resources.find((r: any) => r.name === 'events')
  assert.equal(events.storageVersionHash, core.storageVersionHash, 'one stored form')
  const doc = (await request({ method: 'GET', url: `/openapi/v3/apis/${EVENTS}/v1` })).json()
  const schema = doc.components.schemas['io.k8s.api.events.v1.Event']
  assert.ok(schema.properties.regarding !== undefined && schema.properties.involvedObject === undefined)

  const viaAlias = await request({ method: 'POST', url: '/apis/events.k8s.io/v1/namespaces/default/events', payload: { ...newEvent('alias'), apiVersion: 'events.k8s.io/v1' } })
  assert.equal(viaAlias.statusCode, 201, viaAlias.body)
  assert.equal(viaAlias.json().apiVersion, 'events.k8s.io/v1')
  assert.equal((await request({ method: 'GET', url: `${V1}/alias` })).json().apiVersion, `${EVENTS}/v1`)

  const off = await buildTestApp(t, { runtimeConfig: [`${EVENTS}/v1=false`] })
  assert.equal((await off.request({ method: 'GET', url: V1 })).statusCode, 404)
  assert.equal((await off.request({ method: 'GET', url: CORE })).statusCode, 200)
  const groups = (await off.request({ method: 'GET', url: '/apis' })).json().groups.map((g: { name: string }) => g.name)
  assert.equal(groups.includes(EVENTS), false)
})
