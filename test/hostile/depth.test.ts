// Bodies nested deeper than the decoder's bound are 400 wherever they arrive; at the bound they
// are handled as any other body (never a stack overflow, never a 500).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { GROUPS } from '../../resources/naming.js'

const CM = '/api/v1/namespaces/default/configmaps'
const nest = (depth: number, leaf = '1'): string => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth)
const nestArrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth)
const json = { 'content-type': 'application/json' }

test('a create, update or patch body nested over 1,000 levels is 400 and changes nothing', async (t) => {
  const app = await buildTestApp(t)
  const created = await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'keep' }, data: { a: 'b' } } })
  assert.equal(created.statusCode, 201)
  const before = created.json().metadata.resourceVersion
  // depth 10,001: the body object itself plus 1,000 levels inside `data`.
  const deepCreate = `{"metadata":{"name":"deep"},"data":${nest(1_000)}}`
  for (const url of [CM, `${CM}?fieldValidation=Strict`, `${CM}?fieldValidation=Ignore`]) {
    const res = await app.request({ method: 'POST', url, headers: json, payload: deepCreate })
    assert.equal(res.statusCode, 400, url)
    assert.deepEqual(res.json(), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'BadRequest', code: 400,
      message: 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: exceeded max depth ({"metadata":{"name":"deep"},"d ...)'
    })
  }
  const unknownField = await app.request({ method: 'POST', url: `${CM}?fieldValidation=Strict`, headers: json, payload: `{"metadata":{"name":"deep","labels":${nest(1_000, '"x"')}},"zzz":1}` })
  assert.equal(unknownField.statusCode, 400)
  const put = await app.request({ method: 'PUT', url: `${CM}/keep`, headers: json, payload: `{"metadata":{"name":"keep"},"data":${nest(1_000)}}` })
  assert.equal(put.statusCode, 400)
  for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
    const res = await app.request({ method: 'PATCH', url: `${CM}/keep`, headers: { 'content-type': type }, payload: `{"data":${nest(1_000)}}` })
    assert.equal(res.statusCode, 400, type)
    assert.equal(res.json().message, 'error decoding patch: exceeded max depth')
  }
  const jsonPatch = await app.request({ method: 'PATCH', url: `${CM}/keep`, headers: { 'content-type': 'application/json-patch+json' }, payload: `[{"op":"add","path":"/data/x","value":${nestArrays(1_000)}}]` })
  assert.equal(jsonPatch.statusCode, 400)
  assert.equal(jsonPatch.json().message, 'error decoding patch: exceeded max depth')
  const yaml = await app.request({ method: 'POST', url: CM, headers: { 'content-type': 'application/yaml' }, payload: `metadata: {name: deep}\ndata: ${'['.repeat(1_001)}${']'.repeat(1_001)}\n` })
  assert.equal(yaml.statusCode, 400)
  // Flow mappings 5,000 deep overflow the YAML parser's stack: the depth error, never the JavaScript one.
  const flow = `${'{a: '.repeat(5_000)}1${'}'.repeat(5_000)}`
  for (const [method, url, type, payload] of [
    ['POST', CM, 'application/yaml', `metadata: {name: deep}\ndata: ${flow}\n`],
    ['PATCH', `${CM}/keep?fieldManager=deep`, 'application/apply-patch+yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep}\ndata: ${flow}\n`]
  ] as const) {
    const res = await app.request({ method, url, headers: { 'content-type': type }, payload })
    assert.equal(res.statusCode, 400, type)
    assert.match(res.json().message, /exceeded max depth/, type)
    assert.doesNotMatch(res.json().message, /call stack/, type)
  }

  const review = await app.request({ method: 'POST', url: `/apis/${GROUPS.authentication}/v1/tokenreviews`, headers: json, payload: `{"spec":{"token":"x","zzz":${nest(1_000)}}}` })
  assert.equal(review.statusCode, 400)

  const after = await app.request({ method: 'GET', url: `${CM}/keep` })
  assert.equal(after.json().metadata.resourceVersion, before)
  assert.equal((await app.request({ method: 'GET', url: `${CM}/deep` })).statusCode, 404)
})

test('a body nested exactly to the bound is decoded and answered with a Status, never a 500', async (t) => {
  const app = await buildTestApp(t)
  await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'keep' }, data: { a: 'b' } } })
  // 1,000 levels in all: the outer object and 999 inside.
  const bodies: Array<[string, string, string, Record<string, string>]> = [
    ['POST', CM, `{"metadata":{"name":"deep"},"data":${nest(998)}}`, json],
    ['POST', `${CM}?fieldValidation=Strict`, `{"metadata":{"name":"deep"},"zzz":${nest(998)}}`, json],
    ['POST', CM, `{"metadata":{"name":"deep","labels":${nest(997)}}}`, json],
    ['PUT', `${CM}/keep`, `{"metadata":{"name":"keep"},"data":${nest(998)}}`, json],
    ['PUT', `${CM}/keep`, `{"metadata":{"name":"keep"},"zzz":${nest(998)}}`, json],
    ['PATCH', `${CM}/keep`, `{"data":${nest(998)}}`, { 'content-type': 'application/merge-patch+json' }],
    ['PATCH', `${CM}/keep`, `{"zzz":${nest(998)}}`, { 'content-type': 'application/merge-patch+json' }],
    ['PATCH', `${CM}/keep`, `{"data":${nest(998)}}`, { 'content-type': 'application/strategic-merge-patch+json' }],
    ['PATCH', `${CM}/keep`, `{"zzz":${nest(998)}}`, { 'content-type': 'application/strategic-merge-patch+json' }],
    ['PATCH', `${CM}/keep`, `[{"op":"add","path":"/zzz","value":${nestArrays(998)}}]`, { 'content-type': 'application/json-patch+json' }],
    ['POST', `/apis/${GROUPS.authentication}/v1/tokenreviews`, `{"spec":{"token":"x","zzz":${nest(998)}}}`, json]
  ]
  for (const [method, url, payload, headers] of bodies) {
    const res = await app.request({ method: method as 'POST', url, headers, payload })
    assert.ok(res.statusCode < 500, `${method} ${url} ${payload.slice(0, 40)}: ${res.statusCode} ${res.body.slice(0, 200)}`)
    assert.equal(res.json().kind === 'Status' || res.statusCode < 300, true)
  }
  const after = await app.request({ method: 'GET', url: `${CM}/keep` })
  assert.equal(after.statusCode, 200)
})
