// The bad-input catalogue: one family per kind of hostile or broken input, each case answered
// with a Status of the expected code, the object it aimed at unchanged, and the server serving.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { GROUPS, MEDIA_TYPES } from '../../resources/naming.js'

const CM = '/api/v1/namespaces/default/configmaps'
const TARGET = `${CM}/target`
const json = { 'content-type': 'application/json' }
const yaml = { 'content-type': 'application/yaml' }
const merge = { 'content-type': 'application/merge-patch+json' }
const strategic = { 'content-type': 'application/strategic-merge-patch+json' }
const jsonPatch = { 'content-type': 'application/json-patch+json' }
const protobuf = { 'content-type': MEDIA_TYPES.protobuf }

interface Case { method: string, url: string, headers?: Record<string, string>, payload?: string | Buffer, code: number, as?: null }

const nest = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)

export const CATALOGUE: Record<string, Case[]> = {
  'malformed and truncated bodies': [
    { method: 'POST', url: CM, headers: json, payload: '{"metadata":{"name":"x"', code: 400 },
    { method: 'POST', url: CM, headers: json, payload: 'not json', code: 400 },
    { method: 'POST', url: CM, headers: json, payload: '', code: 400 },
    { method: 'POST', url: CM, headers: json, payload: '[]', code: 400 },
    { method: 'POST', url: CM, headers: json, payload: '"configmap"', code: 400 },
    { method: 'POST', url: CM, headers: json, payload: 'null', code: 400 },
    { method: 'PUT', url: TARGET, headers: json, payload: '{"metadata":{"name":"target"},"data":{"a":', code: 400 },
    { method: 'PATCH', url: TARGET, headers: merge, payload: '{"data":', code: 400 },
    { method: 'POST', url: CM, headers: yaml, payload: 'metadata: {name: [x\n', code: 400 },
    { method: 'POST', url: CM, headers: yaml, payload: 'a: &a [x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n', code: 400 }
  ],
  depth: [
    { method: 'POST', url: CM, headers: json, payload: `{"metadata":{"name":"deep"},"data":${nest(1000)}}`, code: 400 },
    { method: 'PUT', url: TARGET, headers: json, payload: `{"metadata":{"name":"target"},"x":${nest(5000)}}`, code: 400 },
    { method: 'PATCH', url: TARGET, headers: strategic, payload: `{"x":${nest(10_000)}}`, code: 400 },
    { method: 'PATCH', url: TARGET, headers: jsonPatch, payload: `[{"op":"add","path":"/x","value":${nest(1000)}}]`, code: 400 }
  ],
  size: [
    { method: 'POST', url: CM, headers: json, payload: `{"metadata":{"name":"big"},"data":{"a":"${'x'.repeat(3 * 1024 * 1024)}"}}`, code: 413 },
    { method: 'PATCH', url: TARGET, headers: jsonPatch, payload: JSON.stringify(Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }))), code: 413 }
  ],
  encodings: [
    { method: 'POST', url: CM, headers: json, payload: '\uFEFF{"metadata":{"name":"bom"}}', code: 400 },
    { method: 'POST', url: CM, headers: { 'content-type': 'application/json; charset=utf-16' }, payload: Buffer.from('{"metadata":{"name":"u16"}}', 'utf16le'), code: 400 },
    { method: 'POST', url: CM, headers: { 'content-type': 'text/plain' }, payload: '{}', code: 415 },
    // No Content-Type reads as JSON, the reference's first serializer: `{}` then names nothing.
    { method: 'POST', url: CM, payload: '{}', code: 422 }
  ],
  'prototype keys': [
    { method: 'POST', url: `${CM}?fieldValidation=Strict`, headers: json, payload: '{"metadata":{"name":"p1"},"__proto__":{"x":1}}', code: 400 },
    { method: 'POST', url: `${CM}?fieldValidation=Strict`, headers: json, payload: '{"metadata":{"name":"p2","constructor":{}}}', code: 400 },
    { method: 'PATCH', url: `${TARGET}?fieldValidation=Strict`, headers: merge, payload: '{"toString":"x"}', code: 400 },
    { method: 'PATCH', url: TARGET, headers: jsonPatch, payload: '[{"op":"add","path":"/__proto__/x","value":1}]', code: 422 },
    { method: 'PATCH', url: TARGET, headers: jsonPatch, payload: '[{"op":"add","path":"/constructor/prototype/x","value":1}]', code: 422 }
  ],
  numbers: [
    { method: 'POST', url: CM, headers: json, payload: '{"metadata":{"name":"n1"},"data":{"a":1}}', code: 422 },
    { method: 'POST', url: CM, headers: json, payload: '{"metadata":{"name":"n2"},"immutable":1e400}', code: 422 },
    { method: 'PUT', url: TARGET, headers: json, payload: '{"metadata":{"name":"target","resourceVersion":1},"data":{}}', code: 400 },
    { method: 'DELETE', url: `${TARGET}?gracePeriodSeconds=1e3`, code: 400 },
    { method: 'DELETE', url: `${TARGET}?gracePeriodSeconds=99999999999999999999`, code: 400 },
    { method: 'GET', url: `${CM}?limit=99999999999999999999`, code: 400 }
  ],
  types: [
    { method: 'POST', url: CM, headers: json, payload: '{"metadata":{"name":"t1","labels":["a"]}}', code: 422 },
    { method: 'POST', url: CM, headers: json, payload: '{"metadata":{"name":"t2"},"data":"x"}', code: 422 },
    { method: 'POST', url: CM, headers: json, payload: '{"metadata":"t3"}', code: 400 },
    { method: 'POST', url: CM, headers: json, payload: '{"metadata":{"name":7}}', code: 400 },
    { method: 'POST', url: CM, headers: json, payload: '{"kind":"Secret","metadata":{"name":"t4"}}', code: 400 },
    { method: 'POST', url: CM, headers: json, payload: '{"apiVersion":"v2","metadata":{"name":"t5"}}', code: 400 }
  ],
  'every patch type': [
    { method: 'PATCH', url: TARGET, headers: merge, payload: '[]', code: 400 },
    { method: 'PATCH', url: TARGET, headers: strategic, payload: '{"$patch":"explode"}', code: 400 },
    { method: 'PATCH', url: TARGET, headers: strategic, payload: '"x"', code: 400 },
    { method: 'PATCH', url: TARGET, headers: jsonPatch, payload: '{"op":"add"}', code: 400 },
    { method: 'PATCH', url: TARGET, headers: jsonPatch, payload: '[{"op":"explode","path":"/x"}]', code: 422 },
    { method: 'PATCH', url: TARGET, headers: jsonPatch, payload: '[{"op":"add","value":1}]', code: 422 },
    { method: 'PATCH', url: TARGET, headers: jsonPatch, payload: '[{"op":"replace","path":"/data/nope/deeper","value":1}]', code: 422 },
    { method: 'PATCH', url: TARGET, headers: jsonPatch, payload: '[{"op":"replace","path":"","value":[]}]', code: 422 },
    { method: 'PATCH', url: TARGET, headers: { 'content-type': 'application/x-patch' }, payload: '{}', code: 415 }
  ],
  'identity changes': [
    { method: 'PUT', url: TARGET, headers: json, payload: '{"metadata":{"name":"other"}}', code: 400 },
    { method: 'PUT', url: TARGET, headers: json, payload: '{}', code: 400 },
    { method: 'PATCH', url: TARGET, headers: merge, payload: '{"metadata":null}', code: 400 },
    { method: 'PATCH', url: TARGET, headers: merge, payload: '{"metadata":{"namespace":"svc-system"}}', code: 400 },
    { method: 'PATCH', url: TARGET, headers: merge, payload: '{"metadata":{"uid":"forged"}}', code: 409 },
    { method: 'PATCH', url: TARGET, headers: jsonPatch, payload: '[{"op":"remove","path":"/metadata"}]', code: 400 },
    { method: 'PUT', url: TARGET, headers: json, payload: '{"metadata":{"name":"target","resourceVersion":"1"}}', code: 409 }
  ],
  options: [
    { method: 'POST', url: `${CM}?dryRun=Bogus`, headers: json, payload: '{"metadata":{"name":"o1"}}', code: 422 },
    { method: 'POST', url: `${CM}?fieldValidation=Loud`, headers: json, payload: '{"metadata":{"name":"o2"}}', code: 422 },
    { method: 'DELETE', url: TARGET, headers: json, payload: '{"preconditions":"x"}', code: 400 },
    { method: 'DELETE', url: TARGET, headers: json, payload: '{"preconditions":{"uid":"not-its-uid"}}', code: 409 },
    { method: 'DELETE', url: TARGET, headers: json, payload: '{"kind":"Pod"}', code: 400 },
    { method: 'GET', url: `${CM}?resourceVersion=abc`, code: 400 },
    { method: 'GET', url: `${CM}?resourceVersion=99999999999999999999`, code: 400 },
    { method: 'GET', url: `${CM}?watch=1&resourceVersion=99999999999999999999`, code: 400 },
    { method: 'GET', url: `${CM}?watch=maybe`, code: 400 },
    { method: 'GET', url: `${CM}?watch=1&timeoutSeconds=-1`, code: 422 },
    { method: 'GET', url: `${CM}?resourceVersionMatch=Exact`, code: 422 }
  ],
  selectors: [
    { method: 'GET', url: `${CM}?labelSelector=${encodeURIComponent('a=b=c')}`, code: 400 },
    { method: 'GET', url: `${CM}?labelSelector=${encodeURIComponent('!')}`, code: 400 },
    { method: 'GET', url: `${CM}?labelSelector=${encodeURIComponent('a in (b')}`, code: 400 },
    { method: 'GET', url: `${CM}?fieldSelector=${encodeURIComponent('spec.nope=1')}`, code: 400 },
    { method: 'GET', url: `${CM}?fieldSelector=${encodeURIComponent('metadata.name==a==b')}`, code: 400 },
    { method: 'DELETE', url: `${CM}?fieldSelector=${encodeURIComponent('metadata.name=a=b')}`, code: 400 }
  ],
  headers: [
    { method: 'GET', url: TARGET, headers: { accept: 'application/bogus' }, code: 406 },
    { method: 'GET', url: CM, headers: { 'impersonate-extra-__proto__': 'x' }, code: 400 },
    { method: 'GET', url: CM, headers: { 'impersonate-extra-constructor': 'x' }, code: 400 },
    { method: 'GET', url: CM, headers: { 'impersonate-group': 'system:masters' }, code: 400 }
  ],
  paths: [
    { method: 'GET', url: `${CM}/%FF%FE`, code: 400 },
    { method: 'GET', url: '/api/v1/bogus', code: 404 },
    { method: 'GET', url: '/apis/nope.example/v1/things', code: 404 },
    { method: 'GET', url: `${TARGET}/a/b/c`, code: 404 },
    { method: 'GET', url: '/api/v1/namespaces/default/namespaces', code: 404 },
    { method: 'GET', url: '/api/v1/namespaces/default/nodes', code: 404 },
    { method: 'GET', url: `${CM}/${'a'.repeat(5000)}`, code: 404 }
  ],
  methods: [
    { method: 'POST', url: TARGET, headers: json, payload: '{"metadata":{"name":"target"}}', code: 405 },
    { method: 'PUT', url: CM, headers: json, payload: '{"metadata":{"name":"target"}}', code: 405 },
    { method: 'DELETE', url: '/api/v1/namespaces', code: 405 },
    { method: 'GET', url: `/apis/${GROUPS.authentication}/v1/tokenreviews`, code: 405 }
  ],
  tokens: [
    { method: 'DELETE', url: TARGET, as: null, headers: { authorization: 'Bearer forged' }, code: 401 },
    { method: 'DELETE', url: TARGET, as: null, headers: { authorization: 'Bearer a b c' }, code: 401 },
    { method: 'DELETE', url: TARGET, as: null, headers: { authorization: 'Bearer ab\tcd' }, code: 401 },
    { method: 'DELETE', url: TARGET, as: null, headers: { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.' }, code: 401 },
    { method: 'DELETE', url: TARGET, as: null, code: 401 }
  ],
  protobuf: [
    { method: 'POST', url: CM, headers: protobuf, payload: Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xff, 0xff]), code: 400 },
    { method: 'POST', url: CM, headers: protobuf, payload: Buffer.from('not protobuf'), code: 400 },
    { method: 'PUT', url: TARGET, headers: protobuf, payload: Buffer.from([0x6b, 0x38, 0x73, 0x00]), code: 400 }
  ]
}

test('every case of the bad-input catalogue is a Status of its code, with nothing written', async (t) => {
  const app = await buildTestApp(t)
  const created = await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'target', labels: { a: 'b' } }, data: { a: 'b' } } })
  assert.equal(created.statusCode, 201)
  const before = created.json()
  const listBefore = (await app.request({ method: 'GET', url: CM })).json().items
  let cases = 0
  for (const [family, list] of Object.entries(CATALOGUE)) {
    for (const c of list) {
      const res = await app.request({ method: c.method as 'GET', url: c.url, headers: c.headers, payload: c.payload, ...(c.as === null ? { as: null } : {}) })
      const label = `${family}: ${c.method} ${c.url.slice(0, 80)} ${String(c.payload ?? '').slice(0, 80)}`
      assert.equal(res.statusCode, c.code, `${label} → ${res.body.slice(0, 300)}`)
      const status = res.json()
      assert.equal(status.kind, 'Status', label)
      assert.equal(status.code, c.code, label)
      assert.equal(status.status, 'Failure', label)
      assert.equal(typeof status.message, 'string', label)
      const warnings = [res.headers.warning ?? []].flat() as string[]
      assert.ok(warnings.reduce((n, w) => n + w.length, 0) <= 4096, label)
      cases++
    }
  }
  assert.ok(cases >= 80)
  assert.deepEqual((await app.request({ method: 'GET', url: TARGET })).json(), before)
  assert.deepEqual((await app.request({ method: 'GET', url: CM })).json().items, listBefore)
  assert.equal((await app.request({ method: 'GET', url: '/readyz' })).statusCode, 200)
})
