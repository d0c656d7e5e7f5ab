import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { buildTestApp } from '../helpers/app.js'
import { ENVELOPE_PREFIX, type ProtobufCodec } from '../../plugins/protobuf/codec.js'
import { MEDIA_TYPES, upstreamGroup } from '../../resources/naming.js'

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}.bin`, import.meta.url))
const PB: string = MEDIA_TYPES.upstreamProtobuf
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps'

/** Decodes a protobuf answer as a client does: the content type and the prefix must match. */
function readProtobuf (codec: ProtobufCodec, res: { headers: Record<string, unknown>, rawPayload: Buffer }, mediaType: string = PB): Record<string, any> {
  assert.equal(res.headers['content-type'], mediaType)
  assert.ok(res.rawPayload.subarray(0, 4).equals(ENVELOPE_PREFIX), 'the answer starts with the envelope prefix')
  return codec.decode(res.rawPayload)
}

test('creates the configmap kubectl sends as protobuf and answers JSON when JSON is asked', async (t) => {
  const { request } = await buildTestApp(t)
  const res = await request({ method: 'POST', url: CONFIGMAPS, payload: fixture('configmap'), headers: { 'content-type': PB, accept: 'application/json' } })
  assert.equal(res.statusCode, 201, res.body)
  assert.match(String(res.headers['content-type']), /^application\/json/)
  const got = (await request({ method: 'GET', url: `${CONFIGMAPS}/cap-cm2` })).json()
  assert.deepEqual(got.data, { a: 'b' })
  assert.deepEqual(got.binaryData, { bin: 'AAH+/w==' })
})

test('answers protobuf when the client lists it first, in the media type it asked for', async (t) => {
  const { app, request } = await buildTestApp(t)
  const codec = app.protobuf
  const created = await request({ method: 'POST', url: CONFIGMAPS, payload: fixture('configmap'), headers: { 'content-type': PB, accept: `${PB},application/json` } })
  assert.equal(created.statusCode, 201)
  const obj = readProtobuf(codec, created)
  assert.equal(obj.kind, 'ConfigMap')
  assert.equal(obj.metadata.name, 'cap-cm2')
  assert.match(obj.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  assert.equal(typeof obj.metadata.resourceVersion, 'string')

  const got = await request({ method: 'GET', url: `${CONFIGMAPS}/cap-cm2`, headers: { accept: MEDIA_TYPES.protobuf } })
  assert.equal(got.statusCode, 200)
  const json = (await request({ method: 'GET', url: `${CONFIGMAPS}/cap-cm2` })).json()
  assert.deepEqual(readProtobuf(codec, got, MEDIA_TYPES.protobuf), json)

  const list = await request({ method: 'GET', url: CONFIGMAPS, headers: { accept: PB } })
  const decoded = readProtobuf(codec, list)
  assert.equal(decoded.kind, 'ConfigMapList')
  assert.equal(decoded.items.length, 1)
  assert.equal(decoded.items[0].metadata.name, 'cap-cm2')
  assert.equal(typeof decoded.metadata.resourceVersion, 'string')
})

test('creates a secret and a namespace from kubectl protobuf bodies', async (t) => {
  const { request } = await buildTestApp(t)
  const secret = await request({ method: 'POST', url: '/api/v1/namespaces/default/secrets', payload: fixture('secret'), headers: { 'content-type': PB } })
  assert.equal(secret.statusCode, 201, secret.body)
  assert.deepEqual(secret.json().data, { pw: 'c2VjcmV0' })
  const ns = await request({ method: 'POST', url: '/api/v1/namespaces', payload: fixture('namespace'), headers: { 'content-type': PB } })
  assert.equal(ns.statusCode, 201, ns.body)
  assert.equal(ns.json().status.phase, 'Active')
})

test('rejects a protobuf body whose prefix or typeMeta is wrong with 400', async (t) => {
  const { request } = await buildTestApp(t)
  const bad = Buffer.from(fixture('configmap'))
  bad[0] = 0x6a
  const cases = [
    { name: 'bad prefix', url: CONFIGMAPS, body: bad, message: /envelope prefix/ },
    { name: 'JSON sent as protobuf', url: CONFIGMAPS, body: Buffer.from('{"kind":"ConfigMap","apiVersion":"v1"}'), message: /envelope prefix/ },
    { name: 'kind differs from the URL', url: CONFIGMAPS, body: fixture('secret'), message: /Secret in version "v1" cannot be handled as a ConfigMap/ },
    { name: 'apiVersion differs from the URL', url: CONFIGMAPS, body: fixture('role'), message: /the API version in the data \(.*\) does not match the expected API version \(v1\)/ },
    { name: 'empty body', url: CONFIGMAPS, body: Buffer.alloc(0), message: /empty/ }
  ]
  for (const c of cases) {
    const res = await request({ method: 'POST', url: c.url, payload: c.body, headers: { 'content-type': MEDIA_TYPES.protobuf } })
    assert.equal(res.statusCode, 400, `${c.name}: ${res.body}`)
    assert.equal(res.json().reason, 'BadRequest', c.name)
    assert.match(res.json().message, c.message, c.name)
  }
})

test('answers errors as a protobuf Status to a client that asked for protobuf', async (t) => {
  const { app, request } = await buildTestApp(t)
  const res = await request({ method: 'GET', url: `${CONFIGMAPS}/missing`, headers: { accept: `${PB},application/json` } })
  assert.equal(res.statusCode, 404)
  const status = readProtobuf(app.protobuf, res)
  assert.deepEqual(status, { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'configmaps "missing" not found', reason: 'NotFound', details: { name: 'missing', kind: 'configmaps' }, code: 404 })
  const again = await request({ method: 'POST', url: CONFIGMAPS, payload: fixture('configmap'), headers: { 'content-type': PB, accept: PB } })
  assert.equal(again.statusCode, 201)
  const conflict = await request({ method: 'POST', url: CONFIGMAPS, payload: fixture('configmap'), headers: { 'content-type': PB, accept: PB } })
  assert.equal(conflict.statusCode, 409)
  assert.equal(readProtobuf(app.protobuf, conflict).reason, 'AlreadyExists')
})

test('406 when only protobuf is acceptable for something without a message; JSON when JSON follows', async (t) => {
  const { request } = await buildTestApp(t)
  const onlyPb = await request({ method: 'GET', url: CONFIGMAPS, headers: { accept: `${PB};as=Table;v=v1;g=${upstreamGroup('meta')}` } })
  assert.equal(onlyPb.statusCode, 406)
  const table = await request({ method: 'GET', url: CONFIGMAPS, headers: { accept: `${PB};as=Table;v=v1;g=${upstreamGroup('meta')},application/json` } })
  assert.equal(table.statusCode, 200)
  assert.equal(table.json().kind, 'ConfigMapList')
  const discovery = await request({ method: 'GET', url: '/api/v1', headers: { accept: `${PB},application/json` } })
  assert.equal(discovery.statusCode, 200)
  assert.equal(discovery.json().kind, 'APIResourceList')
})

test('reads a protobuf DeleteOptions body', async (t) => {
  const { app, request } = await buildTestApp(t)
  await request({ method: 'POST', url: CONFIGMAPS, payload: { metadata: { name: 'd' } } })
  const opts = app.protobuf.encode({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' }, propagationPolicy: 'Background' })
  const refused = await request({ method: 'DELETE', url: `${CONFIGMAPS}/d`, payload: opts, headers: { 'content-type': PB } })
  assert.equal(refused.statusCode, 409, refused.body)
  const metaOpts = app.protobuf.encode({ apiVersion: `${upstreamGroup('meta')}/v1`, kind: 'DeleteOptions', gracePeriodSeconds: 0, propagationPolicy: 'Nope' })
  const invalid = await request({ method: 'DELETE', url: `${CONFIGMAPS}/d`, payload: metaOpts, headers: { 'content-type': PB } })
  assert.equal(invalid.statusCode, 422, invalid.body)
  // Foreground would hold the object with the foregroundDeletion finalizer until the collector releases it.
  const ok = app.protobuf.encode({ apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, propagationPolicy: 'Background' })
  const deleted = await request({ method: 'DELETE', url: `${CONFIGMAPS}/d`, payload: ok, headers: { 'content-type': PB, accept: PB } })
  assert.equal(deleted.statusCode, 200, deleted.body)
  assert.equal(readProtobuf(app.protobuf, deleted).status, 'Success')
  assert.equal((await request({ method: 'GET', url: `${CONFIGMAPS}/d` })).statusCode, 404)
})

test('streams a watch as length-prefixed protobuf WatchEvent frames', async (t) => {
  const { app, request } = await buildTestApp(t)
  await request({ method: 'POST', url: CONFIGMAPS, payload: { metadata: { name: 'w1' }, data: { a: '1' } } })
  const res = await request({ method: 'GET', url: `${CONFIGMAPS}?watch=true&timeoutSeconds=1`, headers: { accept: `${PB},application/json` } })
  assert.equal(res.statusCode, 200)
  assert.equal(res.headers['content-type'], `${PB};stream=watch`)
  const events = app.protobuf.readWatchFrames(res.rawPayload)
  assert.equal(events.length, 1)
  assert.equal(events[0]!.type, 'ADDED')
  assert.equal(events[0]!.object.kind, 'ConfigMap')
  assert.deepEqual(events[0]!.object.data, { a: '1' })
})

test('sends watch bookmarks as protobuf frames, named by the media type asked for', async (t) => {
  const { app, request } = await buildTestApp(t, { bookmarkIntervalMs: 100 })
  await request({ method: 'POST', url: CONFIGMAPS, payload: { metadata: { name: 'b1' } } })
  const list = await request({ method: 'GET', url: CONFIGMAPS })
  const rv = list.json().metadata.resourceVersion
  const res = await request({ method: 'GET', url: `${CONFIGMAPS}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=1`, headers: { accept: MEDIA_TYPES.protobuf } })
  assert.equal(res.headers['content-type'], `${MEDIA_TYPES.protobuf};stream=watch`)
  const events = app.protobuf.readWatchFrames(res.rawPayload)
  assert.ok(events.length >= 1)
  for (const e of events) {
    assert.equal(e.type, 'BOOKMARK')
    assert.equal(e.object.kind, 'ConfigMap')
    assert.ok(Number(e.object.metadata.resourceVersion) >= Number(rv))
  }
})
