// Hostile and broken input (issue 23): each case answers a Status with the reference server's
// code, reason and words, writes nothing it should not, and leaves the server serving.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'

const CM = '/api/v1/namespaces/default/configmaps'
const json = { 'content-type': 'application/json' }
const merge = { 'content-type': 'application/merge-patch+json' }
const jsonPatch = { 'content-type': 'application/json-patch+json' }
const status = (code: number, reason: string, message: string, details?: object): object =>
  ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details === undefined ? {} : { details }), code })

async function seed (app: TestApp, name = 'keep'): Promise<any> {
  const res = await app.request({ method: 'POST', url: CM, payload: { metadata: { name }, data: { a: 'b' } } })
  assert.equal(res.statusCode, 201)
  return res.json()
}
async function unchanged (app: TestApp, before: any): Promise<void> {
  const now = await app.request({ method: 'GET', url: `${CM}/${before.metadata.name as string}` })
  assert.equal(now.statusCode, 200)
  assert.deepEqual(now.json(), before)
}

test('Impersonate-Extra keys named like object built-ins are keys, never a 500', async (t) => {
  const app = await buildTestApp(t, { anonymousAuth: true })
  for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    const res = await app.request({ method: 'GET', url: CM, headers: { 'impersonate-user': 'bob', [`impersonate-extra-${key}`]: 'x' } })
    assert.equal(res.statusCode, 200, key)
    // Without credentials (anonymous, allowed everything by AlwaysAllow here).
    const anonymous = await app.request({ method: 'GET', url: CM, as: null, headers: { 'impersonate-user': 'bob', [`impersonate-extra-${key}`]: 'x' } })
    assert.equal(anonymous.statusCode, 200, key)
  }
  const noUser = await app.request({ method: 'GET', url: CM, headers: { 'impersonate-extra-__proto__': 'x' } })
  assert.deepEqual(noUser.json(), status(400, 'BadRequest', 'requested [Impersonate-Extra-__proto__: x] without impersonating a user'))
})

test('unknown fields named like object built-ins are unknown fields: dropped, warned, refused under Strict', async (t) => {
  const app = await buildTestApp(t)
  const body = '{"metadata":{"name":"proto","constructor":"m"},"data":{"__proto__":"kept","constructor":"kept"},"__proto__":{"x":1},"constructor":1,"toString":"t","valueOf":2,"hasOwnProperty":3}'
  const strict = await app.request({ method: 'POST', url: `${CM}?fieldValidation=Strict`, headers: json, payload: body })
  assert.deepEqual(strict.json(), status(400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: ' +
    'unknown field "metadata.constructor", unknown field "__proto__", unknown field "constructor", unknown field "toString", unknown field "valueOf", unknown field "hasOwnProperty"'))
  // A patch: the patched object's error, which names no kind; repeated keys come first.
  await seed(app, 'strict-patch')
  const patched = await app.request({ method: 'PATCH', url: `${CM}/strict-patch?fieldValidation=Strict`, headers: merge, payload: '{"data":{"a":"1","a":"2"},"valueOf":1}' })
  assert.deepEqual(patched.json(), status(400, 'BadRequest', 'strict decoding error: duplicate field "data.a", unknown field "valueOf"'))
  const warned = await app.request({ method: 'POST', url: CM, headers: json, payload: body })
  assert.equal(warned.statusCode, 201)
  assert.deepEqual([warned.headers.warning].flat().length, 6)
  const got = (await app.request({ method: 'GET', url: `${CM}/proto` })).json()
  // Data keys named like built-ins are legal keys, kept as data.
  assert.deepEqual(Object.entries(got.data), [['__proto__', 'kept'], ['constructor', 'kept']])
  for (const k of ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty']) assert.equal(Object.hasOwn(got, k), false, k)
  assert.equal(Object.hasOwn(got.metadata, 'constructor'), false)
  assert.deepEqual(got.metadata.managedFields[0].fieldsV1, { 'f:data': { '.': {}, 'f:__proto__': {}, 'f:constructor': {} } })
})

test('Warning headers: each message once, 4 KiB at most', async (t) => {
  const app = await buildTestApp(t)
  const repeated = '{"metadata":{"name":"dups"},' + '"data":{"a":"b"},'.repeat(10_000) + '"data":{"a":"b"}}'
  const res = await app.request({ method: 'POST', url: CM, headers: json, payload: repeated })
  assert.equal(res.statusCode, 201)
  assert.deepEqual([res.headers.warning].flat(), ['299 - "duplicate field \\"data\\""'])
  const many = '{"metadata":{"name":"many"},' + Array.from({ length: 2000 }, (_, i) => `"unknown${i}":1`).join(',') + '}'
  const lots = await app.request({ method: 'POST', url: CM, headers: json, payload: many })
  assert.equal(lots.statusCode, 201)
  const headers = [lots.headers.warning].flat() as string[]
  assert.ok(headers.length > 10)
  assert.ok(headers.reduce((n, h) => n + h.length, 0) <= 4096)
})

test('a warning quoting a field name in any script is sent as UTF-8, never a 500 after the write', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.request({ method: 'POST', url: CM, headers: json, payload: '{"metadata":{"name":"wide"},"é":1,"\u{1F600}":2}' })
  assert.equal(res.statusCode, 201)
  const headers = ([res.headers.warning].flat() as string[]).map(h => Buffer.from(h, 'latin1').toString('utf8'))
  assert.deepEqual(headers, ['299 - "unknown field \\"é\\""', '299 - "unknown field \\"\u{1F600}\\""'])
})

test('an update whose result names no object is 400 and writes nothing', async (t) => {
  const app = await buildTestApp(t)
  const before = await seed(app)
  const undeterminable = status(400, 'BadRequest', 'the name of the object (keep based on URL) was undeterminable: name must be provided')
  const cases = [
    { method: 'PUT' as const, headers: json, payload: '{}' },
    { method: 'PUT' as const, headers: json, payload: '{"metadata":null,"data":{"x":"y"}}' },
    { method: 'PUT' as const, headers: json, payload: '{"metadata":{"name":""},"data":{}}' },
    { method: 'PATCH' as const, headers: merge, payload: '{"metadata":null}' },
    { method: 'PATCH' as const, headers: merge, payload: '{"metadata":{"name":null}}' },
    { method: 'PATCH' as const, headers: { 'content-type': 'application/strategic-merge-patch+json' }, payload: '{"metadata":{"$patch":"delete"}}' },
    { method: 'PATCH' as const, headers: jsonPatch, payload: '[{"op":"remove","path":"/metadata"}]' },
    { method: 'PATCH' as const, headers: jsonPatch, payload: '[{"op":"remove","path":"/metadata/name"}]' }
  ]
  for (const c of cases) {
    const res = await app.request({ url: `${CM}/keep`, ...c })
    assert.deepEqual(res.json(), undeterminable, `${c.method} ${c.payload}`)
  }
  const renamed = await app.request({ method: 'PATCH', url: `${CM}/keep`, headers: merge, payload: '{"metadata":{"name":"other"}}' })
  assert.deepEqual(renamed.json(), status(400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (keep)'))
  await unchanged(app, before)
})

test('a resourceVersion that is not a string is refused, never a blind write', async (t) => {
  const app = await buildTestApp(t)
  const before = await seed(app)
  const stale = Number(before.metadata.resourceVersion) - 1
  for (const rv of [stale, Number(before.metadata.resourceVersion), true, {}, ['1']]) {
    const type = Array.isArray(rv) ? 'array' : typeof rv === 'boolean' ? 'bool' : typeof rv === 'object' ? 'object' : 'number'
    const expected = status(400, 'BadRequest', `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal ${type} into Go struct field ObjectMeta.metadata.resourceVersion of type string`)
    const put = await app.request({ method: 'PUT', url: `${CM}/keep`, headers: json, payload: JSON.stringify({ metadata: { name: 'keep', resourceVersion: rv }, data: { a: 'overwritten' } }) })
    assert.deepEqual(put.json(), expected)
    const patched = await app.request({ method: 'PATCH', url: `${CM}/keep`, headers: merge, payload: JSON.stringify({ metadata: { resourceVersion: rv }, data: { a: 'overwritten' } }) })
    assert.deepEqual(patched.json(), expected)
    const created = await app.request({ method: 'POST', url: CM, headers: json, payload: JSON.stringify({ metadata: { name: 'fresh', resourceVersion: rv } }) })
    assert.deepEqual(created.json(), expected)
  }
  const metadataString = await app.request({ method: 'PUT', url: `${CM}/keep`, headers: json, payload: '{"metadata":"keep"}' })
  assert.deepEqual(metadataString.json(), status(400, 'BadRequest', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta'))
  await unchanged(app, before)
})

test('delete options that cannot be decoded are 400 and delete nothing', async (t) => {
  const app = await buildTestApp(t)
  const before = await seed(app)
  const over = await app.request({ method: 'DELETE', url: `${CM}/keep?gracePeriodSeconds=99999999999999999999` })
  assert.deepEqual(over.json(), status(400, 'BadRequest', 'invalid value for gracePeriodSeconds: strconv.ParseInt: parsing "99999999999999999999": value out of range'))
  const bodies: Array<[string, string]> = [
    ['{"gracePeriodSeconds":99999999999999999999}', 'json: cannot unmarshal number 100000000000000000000 into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
    ['{"gracePeriodSeconds":"5"}', 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
    ['{"gracePeriodSeconds":1.5}', 'json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
    ['{"preconditions":"x"}', 'json: cannot unmarshal string into Go struct field DeleteOptions.preconditions of type v1.Preconditions'],
    ['{"preconditions":[]}', 'json: cannot unmarshal array into Go struct field DeleteOptions.preconditions of type v1.Preconditions'],
    ['{"preconditions":{"resourceVersion":1}}', 'json: cannot unmarshal number 1 into Go struct field DeleteOptions.preconditions.resourceVersion of type string'],
    ['{"preconditions":{"uid":true}}', 'json: cannot unmarshal bool into Go struct field DeleteOptions.preconditions.uid of type types.UID'],
    ['{"propagationPolicy":1}', 'json: cannot unmarshal number 1 into Go struct field DeleteOptions.propagationPolicy of type v1.DeletionPropagation'],
    ['{"dryRun":"All"}', 'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string'],
    ['{"orphanDependents":"yes"}', 'json: cannot unmarshal string into Go struct field DeleteOptions.orphanDependents of type bool']
  ]
  for (const [payload, message] of bodies) {
    const res = await app.request({ method: 'DELETE', url: `${CM}/keep`, headers: json, payload })
    assert.deepEqual(res.json(), status(400, 'BadRequest', message), payload)
    const collection = await app.request({ method: 'DELETE', url: CM, headers: json, payload })
    assert.equal(collection.statusCode, 400, payload)
  }
  await unchanged(app, before)
})

test('namespaces: no deletecollection, and no path inside a namespace', async (t) => {
  const app = await buildTestApp(t)
  const all = await app.request({ method: 'DELETE', url: '/api/v1/namespaces' })
  assert.deepEqual(all.json(), status(405, 'MethodNotAllowed', 'deletecollection is not supported on resources of kind "namespaces"', { kind: 'namespaces' }))
  assert.equal((await app.request({ method: 'GET', url: '/api/v1/namespaces/default' })).statusCode, 200)
  const discovery = (await app.request({ method: 'GET', url: '/api/v1' })).json()
  assert.deepEqual(discovery.resources.find((r: any) => r.name === 'namespaces').verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'])
  for (const url of ['/api/v1/namespaces/default/namespaces', '/api/v1/namespaces/default/namespaces/default', '/api/v1/namespaces/x/nodes', '/api/v1/namespaces/default/persistentvolumes']) {
    assert.deepEqual((await app.request({ method: 'GET', url })).json(), status(404, 'NotFound', 'the server could not find the requested resource', {}), url)
  }
  assert.equal((await app.request({ method: 'DELETE', url: '/api/v1/namespaces/default/namespaces/default' })).statusCode, 404)
  assert.equal((await app.request({ method: 'GET', url: '/api/v1/namespaces/default/status' })).statusCode, 200)
})

test('JSON patch: at most 10,000 operations, copies bounded, failures in the reference\'s words', async (t) => {
  const app = await buildTestApp(t)
  const before = await seed(app)
  const ops = JSON.stringify(Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/data/a', value: 'b' })))
  const tooMany = await app.request({ method: 'PATCH', url: `${CM}/keep`, headers: jsonPatch, payload: ops })
  assert.deepEqual(tooMany.json(), status(413, 'RequestEntityTooLarge', 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001'))
  const doubling = JSON.stringify([{ op: 'add', path: '/data/x', value: 'y'.repeat(1000) }, ...Array.from({ length: 40 }, () => ({ op: 'copy', from: '/data', path: '/metadata/annotations' })),
    ...Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/metadata', path: `/metadata/labels${i}` }))])
  const bomb = await app.request({ method: 'PATCH', url: `${CM}/keep`, headers: jsonPatch, payload: doubling })
  const rejected = status(422, 'Invalid', 'the server rejected our request due to an error in our request', {})
  assert.deepEqual(bomb.json(), rejected)
  for (const payload of ['[{"op":"add","path":"/data/x/y/z","value":1}]', '[{"op":"replace","path":"/nope","value":1}]', '[{"op":"remove","path":"/data/zz"}]', '[{"op":"test","path":"/data/a","value":"c"}]', '[{"op":"move","from":"/nope","path":"/data/b"}]',
    '[{"op":"bogus","path":"/data/q"}]', '[{"op":"add","path":"data","value":1}]', '[{"op":"add","path":"/data/q"}]', '[{"op":"remove","path":7}]']) {
    const res = await app.request({ method: 'PATCH', url: `${CM}/keep`, headers: jsonPatch, payload })
    assert.deepEqual(res.json(), rejected, payload)
  }
  await unchanged(app, before)
})

test('selectors that do not parse are 400', async (t) => {
  const app = await buildTestApp(t)
  await seed(app)
  const cases: Array<[string, string]> = [
    ['fieldSelector=metadata.name%3D%3Da%3D%3Db', 'invalid field selector: unescaped character in value: 61'],
    ['fieldSelector=metadata.name%3Da%5Cx', 'invalid field selector: invalid escape sequence: \\x'],
    ['fieldSelector=metadata.name', "invalid selector: 'metadata.name'; can't understand 'metadata.name'"]
  ]
  for (const [query, message] of cases) {
    const res = await app.request({ method: 'GET', url: `${CM}?${query}` })
    assert.deepEqual(res.json(), status(400, 'BadRequest', message), query)
  }
  const escaped = await app.request({ method: 'GET', url: `${CM}?fieldSelector=${encodeURIComponent('metadata.name=a\\,b,metadata.namespace=default')}` })
  assert.equal(escaped.statusCode, 200)
  assert.deepEqual(escaped.json().items, [])
  const ok = await app.request({ method: 'GET', url: `${CM}?fieldSelector=metadata.name%3D%3Dkeep` })
  assert.equal(ok.json().items.length, 1)
})

test('a malformed bearer token is an invalid token (401), never anonymous', async (t) => {
  const app = await buildTestApp(t, { anonymousAuth: true })
  for (const authorization of ['Bearer a b c', 'Bearer ab\tcd', 'bearer nope', 'Bearer a\tadmin-token']) {
    const res = await app.request({ method: 'GET', url: CM, as: null, headers: { authorization } })
    assert.deepEqual(res.json(), status(401, 'Unauthorized', 'Unauthorized'), authorization)
  }
  // As the reference reads the header: the token is what follows the first space, up to the next.
  assert.equal((await app.request({ method: 'GET', url: CM, as: null, headers: { authorization: 'Bearer admin-token extra' } })).statusCode, 200)
  assert.equal((await app.request({ method: 'GET', url: '/version', as: null, headers: { authorization: 'Basic eDp5' } })).statusCode, 200)
})

test('a path segment that is not UTF-8 is a Status', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.request({ method: 'GET', url: `${CM}/%FF%FE` })
  assert.deepEqual(res.json(), status(400, 'BadRequest', 'the request path is not valid percent-encoded UTF-8'))
  assert.equal((await app.request({ method: 'GET', url: `${CM}/${'a'.repeat(2000)}` })).statusCode, 404)
})
