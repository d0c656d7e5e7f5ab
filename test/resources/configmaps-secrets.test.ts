import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'

const CM = '/api/v1/namespaces/default/configmaps'
const SEC = '/api/v1/namespaces/default/secrets'

test('configmap validation', async (t) => {
  const app = await buildTestApp(t)
  const cases: Array<[string, object, number, string?]> = [
    ['valid keys', { data: { 'a.b_c-d': 'x' }, binaryData: { bin: Buffer.from([0xff, 0]).toString('base64') } }, 201],
    ['bad data key', { data: { 'a b': 'x' } }, 422, 'data[a b]'],
    ['bad binaryData key', { binaryData: { 'a/b': 'eA==' } }, 422, 'binaryData[a/b]'],
    ['overlap', { data: { k: 'x' }, binaryData: { k: 'eA==' } }, 422, 'data[k]'],
    ['binaryData not base64', { binaryData: { k: '***' } }, 422, 'binaryData[k]'],
    ['key ..', { data: { '..': 'x' } }, 422, 'data[..]'],
    ['over 1 MiB', { data: { a: 'x'.repeat(1024 * 1024 + 1) } }, 422, '']
  ]
  let i = 0
  for (const [name, body, code, field] of cases) {
    const res = await app.request({ method: 'POST', url: CM, payload: { metadata: { name: `cm${i++}` }, ...body } })
    assert.equal(res.statusCode, code, `${name}: ${res.body.slice(0, 300)}`)
    if (field !== undefined) assert.equal(res.json().details.causes[0].field, field, name)
  }
})

test('__proto__ and constructor are legal keys, stored as data', async (t) => {
  const app = await buildTestApp(t)
  const payload = '{"metadata":{"name":"proto"},"data":{"__proto__":"x","constructor":"y"}}'
  const res = await app.request({ method: 'POST', url: CM, headers: { 'content-type': 'application/json' }, payload })
  assert.equal(res.statusCode, 201, res.body)
  const got = await app.request({ method: 'GET', url: `${CM}/proto` })
  assert.match(got.body, /"data":\{"__proto__":"x","constructor":"y"\}/)
})

test('immutable configmaps and secrets keep their data, and stay immutable', async (t) => {
  const app = await buildTestApp(t)
  for (const [url, data] of [[CM, { a: 'b' }], [SEC, { a: 'Yg==' }]] as const) {
    const created = (await app.request({ method: 'POST', url, payload: { metadata: { name: 'frozen' }, data, immutable: true } })).json()
    const change = await app.request({ method: 'PUT', url: `${url}/frozen`, payload: { ...created, data: { a: 'Yw==' } } })
    assert.equal(change.statusCode, 422)
    assert.equal(change.json().details.causes[0].field, 'data')
    const unset = await app.request({ method: 'PUT', url: `${url}/frozen`, payload: { ...created, immutable: false } })
    assert.equal(unset.statusCode, 422)
    assert.equal(unset.json().details.causes[0].field, 'immutable')
    const labels = await app.request({ method: 'PUT', url: `${url}/frozen`, payload: { ...created, metadata: { ...created.metadata, labels: { ok: 'yes' } } } })
    assert.equal(labels.statusCode, 200, 'metadata may change')
  }
})

test('secrets: stringData merges into data and is never returned; type rules', async (t) => {
  const app = await buildTestApp(t)
  const res = await app.request({ method: 'POST', url: SEC, payload: { metadata: { name: 's' }, data: { a: Buffer.from('old').toString('base64'), b: 'Yg==' }, stringData: { a: 'new' } } })
  assert.equal(res.statusCode, 201)
  const s = res.json()
  assert.equal(s.stringData, undefined)
  assert.equal(Buffer.from(s.data.a, 'base64').toString(), 'new')
  assert.equal(s.type, 'Opaque')
  const got = (await app.request({ method: 'GET', url: `${SEC}/s` })).json()
  assert.equal(got.stringData, undefined)
  const retype = await app.request({ method: 'PUT', url: `${SEC}/s`, payload: { ...got, type: 'other' } })
  assert.equal(retype.statusCode, 422)
  assert.equal(retype.json().details.causes[0].field, 'type')
  const tls = await app.request({ method: 'POST', url: SEC, payload: { metadata: { name: 't' }, type: 'svc.io/tls', data: { 'tls.crt': 'eA==' } } })
  assert.equal(tls.statusCode, 422)
  assert.equal(tls.json().details.causes[0].field, 'data[tls.key]')
  const big = await app.request({ method: 'POST', url: SEC, payload: { metadata: { name: 'big' }, stringData: { a: 'x'.repeat(1024 * 1024 + 1) } } })
  assert.equal(big.statusCode, 422)
  const notBase64 = await app.request({ method: 'POST', url: SEC, payload: { metadata: { name: 'nb' }, data: { a: 'not base64!' } } })
  assert.equal(notBase64.statusCode, 422)
  const del = await app.request({ method: 'DELETE', url: `${SEC}/s` })
  assert.equal(del.json().kind, 'Status')
  assert.equal(del.json().details.kind, 'secrets')
})
