// Writes: dry run, writes that change nothing, generateName, conflicts, finalizers, errors.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'

const CM = '/api/v1/namespaces/default/configmaps'
const merge = { 'content-type': 'application/merge-patch+json' }
const events = (body: string): any[] => body.trim() === '' ? [] : body.trim().split('\n').map(l => JSON.parse(l))

test('dryRun=All validates and admits but never stores', async (t) => {
  const app = await buildTestApp(t)
  const dry = await app.request({ method: 'POST', url: `${CM}?dryRun=All`, payload: { metadata: { name: 'dry' }, data: { a: 'b' } } })
  assert.equal(dry.statusCode, 201)
  assert.equal(dry.json().metadata.name, 'dry')
  assert.equal((await app.request({ method: 'GET', url: `${CM}/dry` })).statusCode, 404)
  const invalid = await app.request({ method: 'POST', url: `${CM}?dryRun=All`, payload: { metadata: { name: 'dry' }, data: { 'bad key': 'b' } } })
  assert.equal(invalid.statusCode, 422)
  const missingNs = await app.request({ method: 'POST', url: '/api/v1/namespaces/nope/configmaps?dryRun=All', payload: { metadata: { name: 'x' } } })
  assert.equal(missingNs.statusCode, 404, 'admission runs under dry run')

  await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'real' }, data: { a: 'b' } } })
  const dryUpdate = await app.request({ method: 'PUT', url: `${CM}/real?dryRun=All`, payload: { metadata: { name: 'real' }, data: { a: 'c' } } })
  assert.equal(dryUpdate.statusCode, 200)
  assert.equal(dryUpdate.json().data.a, 'c')
  const dryDelete = await app.request({ method: 'DELETE', url: `${CM}/real?dryRun=All` })
  assert.equal(dryDelete.statusCode, 200)
  const after = await app.request({ method: 'GET', url: `${CM}/real` })
  assert.equal(after.json().data.a, 'b')

  const bad = await app.request({ method: 'POST', url: `${CM}?dryRun=Some`, payload: { metadata: { name: 'x' } } })
  assert.equal(bad.statusCode, 422)
  assert.equal(bad.json().details.kind, 'CreateOptions')
  assert.equal(bad.json().details.group, 'meta.svc.io')
  const badDelete = await app.request({ method: 'DELETE', url: `${CM}/real?propagationPolicy=Sometimes` })
  assert.equal(badDelete.statusCode, 422)
  assert.equal(badDelete.json().details.kind, 'DeleteOptions')
})

test('a write that changes nothing keeps the resourceVersion and sends no event', async (t) => {
  const app = await buildTestApp(t)
  const created = (await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'same' }, data: { a: 'b' } } })).json()
  const rv = created.metadata.resourceVersion
  const watch = app.request({ method: 'GET', url: `${CM}?watch=1&timeoutSeconds=1&resourceVersion=${rv}` })
  await new Promise(resolve => setTimeout(resolve, 100))
  const put = await app.request({ method: 'PUT', url: `${CM}/same`, payload: created })
  assert.equal(put.statusCode, 200)
  assert.equal(put.json().metadata.resourceVersion, rv)
  const patch = await app.request({ method: 'PATCH', url: `${CM}/same`, headers: merge, payload: JSON.stringify({ data: { a: 'b' } }) })
  assert.equal(patch.json().metadata.resourceVersion, rv)
  assert.deepEqual(events((await watch).body), [])
})

test('generateName, uid, creationTimestamp and resourceVersion are the server\'s', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.request({ method: 'POST', url: CM, payload: { metadata: { generateName: 'gen-', uid: 'mine', resourceVersion: '5', creationTimestamp: '2000-01-01T00:00:00Z' } } })
  assert.equal(res.statusCode, 201)
  const meta = res.json().metadata
  assert.match(meta.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/)
  assert.notEqual(meta.uid, 'mine')
  assert.notEqual(meta.creationTimestamp, '2000-01-01T00:00:00Z')
  assert.match(meta.resourceVersion, /^\d+$/)
  assert.equal(typeof meta.resourceVersion, 'string')
  const missing = await app.request({ method: 'POST', url: CM, payload: { metadata: {} } })
  assert.equal(missing.statusCode, 422)
  assert.equal(missing.json().details.causes[0].field, 'metadata.name')
})

test('a generated name that is taken is generated again, and the whole create runs on it', async (t) => {
  const app = await buildTestApp(t)
  const JOBS = '/apis/batch/v1/namespaces/default/jobs'
  const job = (metadata: Record<string, string>) => ({ metadata, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } } } })
  assert.equal((await app.request({ method: 'POST', url: JOBS, payload: job({ name: 'pi-bbbbb' }) })).statusCode, 201)
  // The first suffix drawn is the taken one's (the first letter five times), the next another.
  const random = Math.random
  let draws = 0
  t.after(() => { Math.random = random })
  Math.random = () => draws++ < 5 ? 0 : random()
  const res = await app.request({ method: 'POST', url: JOBS, payload: job({ generateName: 'pi-' }) })
  Math.random = random
  assert.equal(res.statusCode, 201, res.body)
  const created = res.json()
  assert.match(created.metadata.name, /^pi-[bcdfghjklmnpqrstvwxz2456789]{5}$/)
  assert.notEqual(created.metadata.name, 'pi-bbbbb')
  // What the strategy derives from the name and uid is the stored object's own.
  assert.equal(created.spec.template.metadata.labels['batch.kubernetes.io/job-name'], created.metadata.name)
  assert.equal(created.spec.selector.matchLabels['batch.kubernetes.io/controller-uid'], created.metadata.uid)
})

test('stale resourceVersion is a Conflict; a missing one retries', async (t) => {
  const app = await buildTestApp(t)
  const created = (await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'c' }, data: { n: '0' } } })).json()
  await app.request({ method: 'PUT', url: `${CM}/c`, payload: { ...created, data: { n: '1' } } })
  const stale = await app.request({ method: 'PUT', url: `${CM}/c`, payload: { ...created, data: { n: '2' } } })
  assert.equal(stale.statusCode, 409)
  assert.equal(stale.json().reason, 'Conflict')
  assert.match(stale.json().message, /the object has been modified/)
  const unconditional = await app.request({ method: 'PUT', url: `${CM}/c`, payload: { metadata: { name: 'c' }, data: { n: '3' } } })
  assert.equal(unconditional.statusCode, 200)
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) =>
    app.request({ method: 'PATCH', url: `${CM}/c`, headers: merge, payload: JSON.stringify({ data: { [`k${i}`]: 'v' } }) })))
  assert.deepEqual(results.map(r => r.statusCode), Array(10).fill(200))
  const final = (await app.request({ method: 'GET', url: `${CM}/c` })).json()
  assert.equal(Object.keys(final.data).length, 11, 'every concurrent patch landed')
  const exists = await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'c' } } })
  assert.equal(exists.statusCode, 409)
  assert.equal(exists.json().reason, 'AlreadyExists')
  assert.equal(exists.json().message, 'configmaps "c" already exists')
})

test('finalizers hold a deleted object until the last one is removed', async (t) => {
  const app = await buildTestApp(t)
  await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'f', finalizers: ['example.com/hold', 'example.com/two'] } } })
  const del = await app.request({ method: 'DELETE', url: `${CM}/f` })
  assert.equal(del.statusCode, 200)
  assert.ok(del.json().metadata.deletionTimestamp)
  const again = await app.request({ method: 'DELETE', url: `${CM}/f` })
  assert.equal(again.statusCode, 200)
  await app.request({ method: 'PATCH', url: `${CM}/f`, headers: { 'content-type': 'application/json-patch+json' }, payload: JSON.stringify([{ op: 'remove', path: '/metadata/finalizers/0' }]) })
  assert.equal((await app.request({ method: 'GET', url: `${CM}/f` })).statusCode, 200)
  const last = await app.request({ method: 'PATCH', url: `${CM}/f`, headers: merge, payload: JSON.stringify({ metadata: { finalizers: null } }) })
  assert.equal(last.statusCode, 200)
  assert.equal((await app.request({ method: 'GET', url: `${CM}/f` })).statusCode, 404)
})

test('errors are Status objects with the right code and reason', async (t) => {
  const app = await buildTestApp(t)
  await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'e' } } })
  const cases: Array<[string, Parameters<typeof app.request>[0], number, string]> = [
    ['unauthenticated', { method: 'GET', url: CM, as: null }, 401, 'Unauthorized'],
    ['bad token', { method: 'GET', url: CM, as: null, headers: { authorization: 'Bearer nope' } }, 401, 'Unauthorized'],
    ['missing object', { method: 'GET', url: `${CM}/none` }, 404, 'NotFound'],
    ['unknown resource', { method: 'GET', url: '/api/v1/namespaces/default/widgets' }, 404, 'NotFound'],
    ['POST on an item', { method: 'POST', url: `${CM}/e`, payload: {} }, 405, 'MethodNotAllowed'],
    ['create across namespaces', { method: 'POST', url: '/api/v1/configmaps', payload: { metadata: { name: 'x' } } }, 405, 'MethodNotAllowed'],
    ['unacceptable Accept', { method: 'GET', url: `${CM}/e`, headers: { accept: 'application/xml' } }, 406, 'NotAcceptable'],
    ['unknown body type', { method: 'POST', url: CM, headers: { 'content-type': 'text/plain' }, payload: 'x' }, 415, 'UnsupportedMediaType'],
    ['unknown patch type', { method: 'PATCH', url: `${CM}/e`, headers: { 'content-type': 'application/json' }, payload: '{}' }, 415, 'UnsupportedMediaType'],
    ['malformed JSON', { method: 'POST', url: CM, headers: { 'content-type': 'application/json' }, payload: '{"metadata":' }, 400, 'BadRequest'],
    ['wrong kind', { method: 'POST', url: CM, payload: { kind: 'Secret', apiVersion: 'v1', metadata: { name: 'k' } } }, 400, 'BadRequest'],
    ['namespace mismatch', { method: 'POST', url: CM, payload: { metadata: { name: 'k', namespace: 'other' } } }, 400, 'BadRequest'],
    ['type error', { method: 'POST', url: CM, payload: { metadata: { name: 'k' }, data: { a: 1 } } }, 422, 'Invalid'],
    ['body over 3 MiB', { method: 'POST', url: CM, payload: { metadata: { name: 'big' }, data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) } } }, 413, 'RequestEntityTooLarge']
  ]
  for (const [name, req, code, reason] of cases) {
    const res = await app.request(req)
    assert.equal(res.statusCode, code, `${name}: ${res.body.slice(0, 300)}`)
    const s = res.json()
    assert.equal(s.kind, 'Status', name)
    assert.equal(s.apiVersion, 'v1', name)
    assert.equal(s.status, 'Failure', name)
    assert.equal(s.code, code, name)
    assert.equal(s.reason, reason, name)
  }
})

test('fieldValidation: Strict refuses, Warn warns, Ignore drops unknown fields', async (t) => {
  const app = await buildTestApp(t)
  const body = { metadata: { name: 'u', bogus: 1 }, extra: true }
  const strict = await app.request({ method: 'POST', url: `${CM}?fieldValidation=Strict`, payload: body })
  assert.equal(strict.statusCode, 400)
  assert.equal(strict.json().message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.bogus", unknown field "extra"')
  const warn = await app.request({ method: 'POST', url: CM, payload: body })
  assert.equal(warn.statusCode, 201)
  assert.deepEqual([warn.headers.warning].flat().sort(), ['299 - "unknown field \\"extra\\""', '299 - "unknown field \\"metadata.bogus\\""'])
  assert.equal(warn.json().extra, undefined, 'never stored')
  const ignore = await app.request({ method: 'POST', url: `${CM}?fieldValidation=Ignore`, payload: { ...body, metadata: { name: 'u2' } } })
  assert.equal(ignore.statusCode, 201)
  assert.equal(ignore.headers.warning, undefined)
})

test('tables: default columns and a kind\'s own', async (t) => {
  const app = await buildTestApp(t)
  await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'tb' }, data: { a: '1', b: '2' } } })
  const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'
  const res = await app.request({ method: 'GET', url: CM, headers: { accept } })
  const tbl = res.json()
  assert.equal(tbl.kind, 'Table')
  assert.equal(tbl.apiVersion, 'meta.k8s.io/v1')
  assert.deepEqual(tbl.columnDefinitions.map((c: any) => c.name), ['Name', 'Data', 'Age'])
  assert.deepEqual(tbl.rows[0].cells.slice(0, 2), ['tb', 2])
  assert.equal(tbl.rows[0].object.kind, 'PartialObjectMetadata')
  const svc = await app.request({ method: 'GET', url: `${CM}/tb`, headers: { accept: 'application/json;as=Table;g=meta.svc.io;v=v1' } })
  assert.equal(svc.json().apiVersion, 'meta.svc.io/v1')
  const fallback = await app.request({ method: 'GET', url: `${CM}/tb`, headers: { accept: 'application/json;as=Table;g=other.io;v=v1, application/json' } })
  assert.equal(fallback.json().kind, 'ConfigMap')
})
