// GET /metrics after real requests: counts and labels of the request metrics as the reference
// server reports them, the gauges, the storage's and admission's metrics, and the whole text
// through a Prometheus parser.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { MEDIA_TYPES } from '../../resources/naming.js'
import { helpOf, parsedByPrometheus, samples, value } from './exposition.js'

const CM = '/api/v1/namespaces/default/configmaps'

test('/metrics counts requests by verb, resource, scope and code', async (t) => {
  const { request } = await buildTestApp(t)
  const create = (name: string, query = '') => request({ method: 'POST', url: `${CM}${query}`, payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } } })
  assert.equal((await create('one')).statusCode, 201)
  assert.equal((await create('two')).statusCode, 201)
  assert.equal((await create('one')).statusCode, 409)
  assert.equal((await create('dry', '?dryRun=All')).statusCode, 201)
  for (let i = 0; i < 3; i++) assert.equal((await request({ method: 'GET', url: `${CM}/one` })).statusCode, 200)
  assert.equal((await request({ method: 'GET', url: `${CM}/absent` })).statusCode, 404)
  assert.equal((await request({ method: 'GET', url: CM })).statusCode, 200)
  assert.equal((await request({ method: 'GET', url: '/api/v1/configmaps' })).statusCode, 200)
  assert.equal((await request({ method: 'GET', url: `${CM}?watch=1&timeoutSeconds=1` })).statusCode, 200)
  const apply = await request({
    method: 'PATCH',
    url: `${CM}/applied?fieldManager=test`,
    headers: { 'content-type': MEDIA_TYPES.applyPatch },
    payload: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' } })
  })
  // Server-side apply is counted as APPLY whatever it answers (it may not be served yet).
  const applied = apply.statusCode === 201
  assert.equal((await request({ method: 'DELETE', url: `${CM}/two` })).statusCode, 200)
  assert.equal((await request({ method: 'GET', url: '/api/v1/namespaces/default/nosuchthings' })).statusCode, 404)
  assert.equal((await request({ method: 'GET', url: '/healthz' })).statusCode, 200)
  assert.equal((await request({ method: 'GET', url: '/no/such/path' })).statusCode, 404)

  const res = await request({ method: 'GET', url: '/metrics' })
  assert.equal(res.statusCode, 200)
  assert.match(res.headers['content-type'] as string, /^text\/plain; version=0\.0\.4/)
  const all = samples(res.body)
  const total = (labels: Record<string, string>) => value(all, 'apiserver_request_total', { component: 'apiserver', ...labels })
  const cm = { group: '', version: 'v1', resource: 'configmaps', subresource: '' }

  assert.equal(total({ ...cm, verb: 'POST', scope: 'resource', dry_run: '', code: '201' }), 2)
  assert.equal(total({ ...cm, verb: 'POST', scope: 'resource', dry_run: '', code: '409' }), 1)
  assert.equal(total({ ...cm, verb: 'POST', scope: 'resource', dry_run: 'All', code: '201' }), 1)
  assert.equal(total({ ...cm, verb: 'GET', scope: 'resource', code: '200' }), 3)
  assert.equal(total({ ...cm, verb: 'GET', scope: 'resource', code: '404' }), 1)
  assert.equal(total({ ...cm, verb: 'LIST', scope: 'namespace', code: '200' }), 1)
  assert.equal(total({ ...cm, verb: 'LIST', scope: 'cluster', code: '200' }), 1)
  assert.equal(total({ ...cm, verb: 'WATCH', scope: 'namespace', code: '200' }), 1)
  assert.equal(total({ ...cm, verb: 'APPLY', scope: 'resource', code: String(apply.statusCode) }), 1)
  assert.equal(total({ ...cm, verb: 'DELETE', scope: 'resource', code: '200' }), 1)
  // A made-up resource or path is counted without naming itself: clients cannot add series.
  assert.equal(total({ group: '', version: '', resource: '', subresource: '', verb: 'LIST', scope: 'namespace', code: '404' }), 1)
  assert.equal(total({ resource: '', subresource: '', scope: '', verb: 'GET', code: '404' }), 1)
  assert.equal(all.some(s => JSON.stringify(s.labels).includes('nosuch')), false)
  // Non-resource paths report the path as the subresource, as the reference server does.
  assert.equal(total({ group: '', version: '', resource: '', subresource: '/healthz', scope: '', verb: 'GET', code: '200' }), 1)

  const duration = { ...cm, verb: 'GET', scope: 'resource', dry_run: '', component: 'apiserver' }
  assert.equal(value(all, 'apiserver_request_duration_seconds_count', duration), 4)
  assert.equal(value(all, 'apiserver_request_duration_seconds_bucket', { ...duration, le: '+Inf' }), 4)
  assert.ok(value(all, 'apiserver_request_duration_seconds_bucket', { ...duration, le: '60' }) <= 4)
  assert.match(helpOf(res.body, 'apiserver_request_total') ?? '', /^\[STABLE\] /)
  assert.match(helpOf(res.body, 'apiserver_watch_events_total') ?? '', /^\[ALPHA\] /)

  // The scrape itself is the one request in flight.
  assert.equal(value(all, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }), 1)
  assert.equal(value(all, 'apiserver_current_inflight_requests', { request_kind: 'mutating' }), 0)
  assert.equal(value(all, 'apiserver_longrunning_requests', { ...cm, verb: 'WATCH', scope: 'namespace' }), 0)
  // The watch sent the two configmaps there were as ADDED events.
  assert.equal(value(all, 'apiserver_watch_events_total', { group: '', version: 'v1', resource: 'configmaps' }), 2)
  assert.equal(value(all, 'apiserver_storage_objects', { resource: 'configmaps' }), applied ? 2 : 1)
  assert.ok(value(all, 'apiserver_storage_db_write_batch_size_count') >= 3)
  assert.ok(value(all, 'apiserver_storage_db_request_duration_seconds_count', { operation: 'apply-writes' }) >= 3)
  assert.ok(value(all, 'apiserver_admission_step_admission_duration_seconds_count', { operation: 'CREATE', type: 'admit', rejected: 'false' }) >= 3)
  assert.ok(all.some(s => s.name === 'process_cpu_seconds_total'))

  const parsed = parsedByPrometheus(res.body)
  if (parsed !== undefined) assert.equal(parsed, all.length)
  else t.diagnostic('python3 prometheus_client is not installed: the exposition was read by this test only')
})

test('a watch is a long-running request while it is open', async (t) => {
  const { app, request } = await buildTestApp(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address() as { port: number }
  const controller = new AbortController()
  const watch = await fetch(`http://127.0.0.1:${address.port}${CM}?watch=true`, { headers: { authorization: 'Bearer admin-token' }, signal: controller.signal })
  assert.equal(watch.status, 200)
  const labels = { group: '', version: 'v1', resource: 'configmaps', subresource: '', verb: 'WATCH', scope: 'namespace', component: 'apiserver' }
  const open = samples((await request({ method: 'GET', url: '/metrics' })).body)
  assert.equal(value(open, 'apiserver_longrunning_requests', labels), 1)
  // Watches are not requests in flight.
  assert.equal(value(open, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }), 1)
  controller.abort()
  await watch.body?.cancel().catch(() => {})
  const { eventually } = await import('../helpers/eventually.js')
  await eventually(async () => {
    const closed = samples((await request({ method: 'GET', url: '/metrics' })).body)
    assert.equal(value(closed, 'apiserver_longrunning_requests', labels), 0)
  })
})
