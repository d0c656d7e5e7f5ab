// API Priority and Fairness in a running app, with a server limit of one seat: a request whose
// body has not finished arriving holds its seat (it is past onRequest), so the next request of
// its level meets a full level without any timing. Rejection (429, Retry-After, the Status),
// queuing and the queue length limit, the exempt levels, the headers, the Dangling conditions,
// the metrics, and the plain in-flight limits when APF is disabled.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { buildTestApp, USERS, type TestApp, type TestUser } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { helpOf, parsedByPrometheus, samples, value, type Sample } from '../metrics/exposition.js'
import { PF_HEADERS } from '../../plugins/flowcontrol/index.js'

const FC = '/apis/flowcontrol.apiserver.svc.io/v1'
const CM = '/api/v1/namespaces/default/configmaps'

function limited (name: string, limitResponse: object): object {
  return { apiVersion: 'flowcontrol.apiserver.svc.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse } } }
}
function forUser (name: string, user: string, level: string): object {
  return {
    apiVersion: 'flowcontrol.apiserver.svc.io/v1',
    kind: 'FlowSchema',
    metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: level },
      matchingPrecedence: 50,
      distinguisherMethod: { type: 'ByUser' },
      rules: [{ subjects: [{ kind: 'User', user: { name: user } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }]
    }
  }
}

/** A create whose body is still arriving: it holds its seat until `finish`. */
function heldCreate (t: TestApp, as: TestUser, name: string): { finish (): void, done: Promise<{ statusCode: number }> } {
  const body = new PassThrough()
  const done = t.app.inject({ method: 'POST', url: CM, payload: body, headers: { authorization: `Bearer ${USERS[as].token}`, 'content-type': 'application/json' } })
  body.write('{"apiVersion":"v1","kind":"ConfigMap",')
  return { finish: () => { body.end(`"metadata":{"name":"${name}"}}`) }, done }
}

/** Nanoseconds a timing histogram's series spent with its ratio in (lower, upper]. */
function timeBetween (all: Sample[], name: string, labels: Record<string, string>, lower: string, upper: string): number {
  return value(all, `${name}_bucket`, { ...labels, le: upper }) - value(all, `${name}_bucket`, { ...labels, le: lower })
}

const apf = (t: TestApp): Dispatching => {
  const fc = t.app.flowControl
  assert.ok('dispatcher' in fc, 'priority and fairness is enabled')
  return fc
}
type Dispatching = Extract<TestApp['app']['flowControl'], { dispatcher: unknown }>

async function uidOf (t: TestApp, resource: string, name: string): Promise<string> {
  const res = await t.request({ method: 'GET', url: `${FC}/${resource}/${name}` })
  assert.equal(res.statusCode, 200, res.body)
  return res.json().metadata.uid
}

test('a full Reject level answers 429 with Retry-After; a Queue level queues, then rejects past its queue length', async (t) => {
  const app = await buildTestApp(t, { flowControl: { maxRequestsInflight: 1, maxMutatingRequestsInflight: 0 } })
  const { request } = app
  for (const body of [limited('tiny-reject', { type: 'Reject' }), limited('tiny-queue', { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } }), forUser('bob-rejects', 'bob', 'tiny-reject'), forUser('alice-queues', 'alice', 'tiny-queue')]) {
    const plural = (body as { kind: string }).kind === 'FlowSchema' ? 'flowschemas' : 'prioritylevelconfigurations'
    assert.equal((await request({ method: 'POST', url: `${FC}/${plural}`, payload: body })).statusCode, 201)
  }
  await eventually(() => { assert.ok(apf(app).config().schemas.some(s => s.name === 'alice-queues')) })
  const schemaUid = await uidOf(app, 'flowschemas', 'bob-rejects')
  const levelUid = await uidOf(app, 'prioritylevelconfigurations', 'tiny-reject')

  // bob: one seat, held; the next request is turned away at once.
  const held = heldCreate(app, 'bob', 'bobs')
  await eventually(() => { assert.equal(apf(app).dispatcher.levels.get('tiny-reject')!.executing, 1) })
  const rejected = await request({ method: 'GET', url: CM, as: 'bob' })
  assert.equal(rejected.statusCode, 429)
  assert.equal(rejected.headers['retry-after'], '1')
  assert.equal(rejected.headers[PF_HEADERS.flowSchema], schemaUid)
  assert.equal(rejected.headers[PF_HEADERS.priorityLevel], levelUid)
  assert.deepEqual(rejected.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Too many requests, please try again later.', reason: 'TooManyRequests', details: { retryAfterSeconds: 1 }, code: 429 })
  // Probes and system:masters are exempt: they never wait.
  assert.equal((await request({ method: 'GET', url: '/readyz', as: 'bob' })).statusCode, 200)
  assert.equal((await request({ method: 'GET', url: '/livez', as: 'bob' })).statusCode, 200)
  assert.equal((await request({ method: 'GET', url: CM })).statusCode, 200)
  held.finish()
  assert.equal((await held.done).statusCode, 201)
  const after = await request({ method: 'GET', url: CM, as: 'bob' })
  assert.equal(after.statusCode, 200)
  assert.equal(after.headers[PF_HEADERS.flowSchema], schemaUid)

  // alice: one seat held, one request waits in the queue, the next finds the queue full.
  const aliceHeld = heldCreate(app, 'alice', 'alices')
  await eventually(() => { assert.equal(apf(app).dispatcher.levels.get('tiny-queue')!.executing, 1) })
  const queued = request({ method: 'GET', url: `${CM}/alices`, as: 'alice' })
  await eventually(() => { assert.equal(apf(app).dispatcher.levels.get('tiny-queue')!.waiting, 1) })
  const full = await request({ method: 'GET', url: CM, as: 'alice' })
  assert.equal(full.statusCode, 429)
  const metrics = samples((await request({ method: 'GET', url: '/metrics' })).body)
  assert.equal(value(metrics, 'apiserver_flowcontrol_current_inqueue_requests', { priority_level: 'tiny-queue', flow_schema: 'alice-queues' }), 1)
  assert.equal(value(metrics, 'apiserver_flowcontrol_current_executing_requests', { priority_level: 'tiny-queue', flow_schema: 'alice-queues' }), 1)
  assert.equal(value(metrics, 'apiserver_flowcontrol_rejected_requests_total', { priority_level: 'tiny-reject', flow_schema: 'bob-rejects', reason: 'concurrency-limit' }), 1)
  // Each 429 (bob's, and alice's past the queue) is a termination in self-defense, under the request's own labels.
  assert.equal(value(metrics, 'apiserver_request_terminations_total', { verb: 'LIST', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver', code: '429' }), 2)
  assert.equal(value(metrics, 'apiserver_flowcontrol_rejected_requests_total', { priority_level: 'tiny-queue', flow_schema: 'alice-queues', reason: 'queue-full' }), 1)
  assert.equal(value(metrics, 'apiserver_flowcontrol_nominal_limit_seats', { priority_level: 'tiny-queue' }), 1)
  // The level has had its one seat in use (1 of 1 nominal) and one request of its one-long queue
  // waiting for a while, and 2 seats of demand against 1 nominal; the queued request found no seat.
  const tinyQueue = { priority_level: 'tiny-queue' }
  assert.ok(timeBetween(metrics, 'apiserver_flowcontrol_priority_level_seat_utilization', { phase: 'executing', ...tinyQueue }, '0.99', '1') > 0)
  assert.ok(timeBetween(metrics, 'apiserver_flowcontrol_priority_level_request_utilization', { phase: 'executing', ...tinyQueue }, '0.75', '1') > 0)
  assert.ok(timeBetween(metrics, 'apiserver_flowcontrol_priority_level_request_utilization', { phase: 'waiting', ...tinyQueue }, '0.75', '1') > 0)
  assert.ok(timeBetween(metrics, 'apiserver_flowcontrol_demand_seats', tinyQueue, '1.7', '2') > 0)
  const seatCount = value(metrics, 'apiserver_flowcontrol_priority_level_seat_utilization_count', { phase: 'executing', ...tinyQueue })
  assert.equal(value(metrics, 'apiserver_flowcontrol_priority_level_seat_utilization_bucket', { phase: 'executing', ...tinyQueue, le: '+Inf' }), seatCount)
  assert.ok(value(metrics, 'apiserver_flowcontrol_priority_level_seat_utilization_sum', { phase: 'executing', ...tinyQueue }) <= seatCount, 'the ratio never passed 1')
  assert.ok(timeBetween(metrics, 'apiserver_flowcontrol_read_vs_write_current_requests', { phase: 'waiting', request_kind: 'readOnly' }, '0', '1') > 0)
  assert.ok(timeBetween(metrics, 'apiserver_flowcontrol_read_vs_write_current_requests', { phase: 'executing', request_kind: 'mutating' }, '0', '1') > 0)
  assert.ok(value(metrics, 'apiserver_flowcontrol_request_dispatch_no_accommodation_total', { priority_level: 'tiny-queue', flow_schema: 'alice-queues' }) >= 1)
  // The seat-demand statistics start with the configuration, as the reference's.
  for (const name of ['high_watermark', 'average', 'stdev', 'smoothed']) assert.equal(typeof value(metrics, `apiserver_flowcontrol_demand_seats_${name}`, tinyQueue), 'number')
  aliceHeld.finish()
  assert.equal((await aliceHeld.done).statusCode, 201)
  const served = await queued
  assert.equal(served.statusCode, 200, 'the queued request runs once the seat is free')
  const later = samples((await request({ method: 'GET', url: '/metrics' })).body)
  assert.equal(value(later, 'apiserver_flowcontrol_current_inqueue_requests', { priority_level: 'tiny-queue', flow_schema: 'alice-queues' }), 0)
  assert.ok(value(later, 'apiserver_flowcontrol_dispatched_requests_total', { priority_level: 'tiny-queue', flow_schema: 'alice-queues' })! >= 2)
  // alice's create was sampled for its watchers (none).
  assert.equal(value(later, 'apiserver_flowcontrol_watch_count_samples_bucket', { priority_level: 'tiny-queue', flow_schema: 'alice-queues', le: '0' }), 1)
})

test('the utilization histograms have the reference\'s HELP; the deprecated concurrency gauges follow the stability rules', async (t) => {
  const { request } = await buildTestApp(t)
  assert.equal((await request({ method: 'GET', url: CM, as: 'alice' })).statusCode, 200)
  const text = (await request({ method: 'GET', url: '/metrics' })).body
  assert.equal(helpOf(text, 'apiserver_flowcontrol_priority_level_seat_utilization'),
    'EXPERIMENTAL: [ALPHA] Observations, at the end of every nanosecond, of utilization of seats for any stage of execution (but only initial stage for WATCHes)')
  assert.equal(helpOf(text, 'apiserver_flowcontrol_request_concurrency_in_use'),
    '[ALPHA] (Deprecated since 1.31.0) Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem')
  const all = samples(text)
  assert.equal(value(all, 'apiserver_flowcontrol_request_concurrency_in_use', { priority_level: 'global-default', flow_schema: 'global-default' }),
    value(all, 'apiserver_flowcontrol_current_executing_seats', { priority_level: 'global-default', flow_schema: 'global-default' }))
  // Deprecated in 1.30, so hidden in 1.33 unless the operator asks for 1.32's hidden metrics.
  assert.equal(helpOf(text, 'apiserver_flowcontrol_request_concurrency_limit'), undefined)
  const n = parsedByPrometheus(text)
  if (n !== undefined) assert.ok(n > 0)

  const shown = await buildTestApp(t, { showHiddenMetricsForVersion: '1.32' })
  const again = samples((await shown.request({ method: 'GET', url: '/metrics' })).body)
  assert.equal(value(again, 'apiserver_flowcontrol_request_concurrency_limit', { priority_level: 'global-default' }),
    value(again, 'apiserver_flowcontrol_nominal_limit_seats', { priority_level: 'global-default' }))
})

test('every request names its FlowSchema and priority level by uid; FlowSchemas carry the Dangling condition', async (t) => {
  const app = await buildTestApp(t)
  const { request } = app
  const res = await request({ method: 'GET', url: CM, as: 'alice' })
  assert.equal(res.statusCode, 200)
  assert.equal(res.headers[PF_HEADERS.flowSchema], await uidOf(app, 'flowschemas', 'global-default'))
  assert.equal(res.headers[PF_HEADERS.priorityLevel], await uidOf(app, 'prioritylevelconfigurations', 'global-default'))
  const admin = await request({ method: 'GET', url: CM })
  assert.equal(admin.headers[PF_HEADERS.flowSchema], await uidOf(app, 'flowschemas', 'exempt'))

  await eventually(async () => {
    const fs = (await request({ method: 'GET', url: `${FC}/flowschemas/global-default` })).json()
    assert.deepEqual(fs.status?.conditions?.map((c: { type: string, status: string, reason: string, message: string }) => [c.type, c.status, c.reason, c.message]),
      [['Dangling', 'False', 'Found', 'This FlowSchema references the PriorityLevelConfiguration object named "global-default" and it exists']])
  })
  assert.equal((await request({ method: 'POST', url: `${FC}/flowschemas`, payload: forUser('orphan', 'nobody', 'no-such-level') })).statusCode, 201)
  await eventually(async () => {
    const fs = (await request({ method: 'GET', url: `${FC}/flowschemas/orphan` })).json()
    const c = fs.status?.conditions?.[0]
    assert.deepEqual([c?.type, c?.status, c?.reason, c?.message], ['Dangling', 'True', 'NotFound', 'This FlowSchema references the PriorityLevelConfiguration object named "no-such-level" but there is no such object'])
    assert.match(c.lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  })
  assert.equal((await request({ method: 'POST', url: `${FC}/prioritylevelconfigurations`, payload: limited('no-such-level', { type: 'Reject' }) })).statusCode, 201)
  await eventually(async () => {
    const fs = (await request({ method: 'GET', url: `${FC}/flowschemas/orphan` })).json()
    assert.equal(fs.status.conditions[0].status, 'False')
  })
  const table = await request({ method: 'GET', url: `${FC}/flowschemas/orphan`, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })
  assert.equal(table.json().rows[0].cells.at(-1), 'False', 'the MissingPL column reads the condition')

  const metrics = samples((await request({ method: 'GET', url: '/metrics' })).body)
  assert.ok(value(metrics, 'apiserver_flowcontrol_dispatched_requests_total', { priority_level: 'global-default', flow_schema: 'global-default' })! >= 1)
  assert.equal(value(metrics, 'apiserver_flowcontrol_nominal_limit_seats', { priority_level: 'global-default' }), 49)
})

test('with priority and fairness disabled, the plain in-flight limits answer 429; system:masters passes', async (t) => {
  const app = await buildTestApp(t, { flowControl: { enabled: false, maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 } })
  const { request } = app
  const fc = app.app.flowControl
  assert.ok('inflight' in fc)
  const held = heldCreate(app, 'bob', 'held')
  await eventually(() => { assert.equal(fc.inflight.inUse.mutating, 1) })
  // The mutating slot is taken: another write is refused, a read is not.
  await eventually(async () => {
    const res = await request({ method: 'POST', url: CM, as: 'alice', payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'refused-' } } })
    assert.equal(res.statusCode, 429)
    assert.equal(res.headers['retry-after'], '1')
    assert.equal(res.json().message, 'Too many requests, please try again later.')
    assert.equal(res.headers[PF_HEADERS.flowSchema], undefined)
  })
  assert.equal((await request({ method: 'GET', url: CM, as: 'alice' })).statusCode, 200)
  const refused = samples((await request({ method: 'GET', url: '/metrics' })).body)
  assert.ok(value(refused, 'apiserver_request_terminations_total', { verb: 'POST', resource: 'configmaps', scope: 'resource', code: '429' }) >= 1, 'the in-flight limit\'s 429s are terminations')
  // The held write is the one mutating request the limit allows: a ratio of 1 while it runs.
  assert.ok(timeBetween(refused, 'apiserver_flowcontrol_read_vs_write_current_requests', { phase: 'executing', request_kind: 'mutating' }, '0.99', '1') > 0)
  assert.equal((await request({ method: 'POST', url: CM, payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'admins' } } })).statusCode, 201)
  held.finish()
  assert.equal((await held.done).statusCode, 201)
  assert.equal((await request({ method: 'POST', url: CM, as: 'alice', payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later' } } })).statusCode, 201)
})

test('a request past its deadline is 504 Timeout; the timeout parameter shortens it, and must parse', async (t) => {
  const { request } = await buildTestApp(t)
  const res = await request({ method: 'POST', url: `${CM}?timeout=1ns`, payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'slow' } } })
  assert.equal(res.statusCode, 504)
  assert.deepEqual(res.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Timeout: request did not complete within requested timeout - context deadline exceeded', reason: 'Timeout', details: {}, code: 504 })
  const terminated = samples((await request({ method: 'GET', url: '/metrics' })).body)
  assert.equal(value(terminated, 'apiserver_request_terminations_total', { verb: 'POST', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'resource', component: 'apiserver', code: '504' }), 1)
  const bad = await request({ method: 'GET', url: `${CM}?timeout=soon` })
  assert.equal(bad.statusCode, 400)
  assert.equal(bad.json().message, 'invalid timeout specified in the request URL - time: invalid duration "soon"')
  assert.equal((await request({ method: 'GET', url: `${CM}?timeout=30s` })).statusCode, 200)
  // A watch is long-running: its own timeoutSeconds bounds it, not the request timeout.
  assert.equal((await request({ method: 'GET', url: `${CM}?watch=1&timeoutSeconds=1&timeout=1ns` })).statusCode, 200)
})

test('the watches a write is charged for are the open watch streams of its resource', async (t) => {
  const app = await buildTestApp(t)
  const write = { apiGroup: '', resource: 'configmaps', namespace: 'default', name: 'x' }
  assert.equal(app.app.watchCounts.interested(write), 0)
  const watches = [`${CM}?watch=1&timeoutSeconds=1`, '/api/v1/configmaps?watch=1&timeoutSeconds=1', `${CM}?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dx`, '/api/v1/namespaces/other/configmaps?watch=1&timeoutSeconds=1']
    .map(url => app.request({ method: 'GET', url }))
  await eventually(() => { assert.equal(app.app.watchCounts.interested(write), 3, 'the namespace\'s, the cluster\'s and the object\'s') })
  for (const w of await Promise.all(watches)) assert.equal(w.statusCode, 200)
  await eventually(() => { assert.equal(app.app.watchCounts.interested(write), 0, 'uncounted when they end') })
})

test('a watch\'s execution is observed as type watch, every other request\'s as regular', async (t) => {
  const app = await buildTestApp(t)
  const watched = await app.request({ method: 'GET', url: `${CM}?watch=1&timeoutSeconds=1`, as: 'alice' })
  assert.equal(watched.statusCode, 200)
  assert.equal((await app.request({ method: 'GET', url: CM, as: 'alice' })).statusCode, 200)
  const all = samples((await app.request({ method: 'GET', url: '/metrics' })).body)
  const count = (type: string): number => value(all, 'apiserver_flowcontrol_request_execution_seconds_count', { priority_level: 'global-default', flow_schema: 'global-default', type })
  assert.equal(count('watch'), 1)
  assert.ok(count('regular') >= 1)
})
