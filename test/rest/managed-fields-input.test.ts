// managedFields and fieldManager as a client sends them, read as the reference's field manager
// and ValidateManagedFields read them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { assertInvalid } from '../resources/suite.js'

const CM = '/api/v1/namespaces/default/configmaps'
type AnyObject = Record<string, any>
const entry = (manager: string, fieldsV1: unknown): AnyObject => ({ manager, operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1 })
const managers = (obj: AnyObject): string[] => (obj.metadata.managedFields ?? []).map((e: AnyObject) => e.manager)

test('entries the reference cannot decode give way to the live ones', async (t) => {
  const app = await buildTestApp(t)
  for (const bad of [{ 'x:data': {} }, { 'f:data': 'text' }, { 'k:notjson': {} }, { 'i:one': {} }]) {
    const name = `c${Math.random().toString(36).slice(2, 8)}`
    const res = await app.request({ method: 'POST', url: `${CM}?fieldManager=creator`, payload: { metadata: { name, managedFields: [entry('sender', { 'f:data': { 'f:a': {} } }), entry('broken', bad)] }, data: { a: '1' } } })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(managers(res.json()), ['creator'], JSON.stringify(bad))
  }
  const created = (await app.request({ method: 'POST', url: `${CM}?fieldManager=creator`, payload: { metadata: { name: 'live' }, data: { a: '1' } } })).json()
  const update = await app.request({ method: 'PUT', url: `${CM}/live?fieldManager=editor`, payload: { ...created, metadata: { ...created.metadata, managedFields: [entry('broken', { 'q:x': {} })] }, data: { a: '1', b: '2' } } })
  assert.equal(update.statusCode, 200, update.body)
  assert.deepEqual(managers(update.json()).sort(), ['creator', 'editor'])
})

test('a manager name over 128 bytes in an entry is 422; a printable non-ASCII fieldManager is a name', async (t) => {
  const app = await buildTestApp(t)
  const created = (await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'long' }, data: { a: '1' } } })).json()
  // Entries that own what the write leaves alone are the request's to set, and are validated.
  const long = await app.request({ method: 'PUT', url: `${CM}/long`, payload: { ...created, metadata: { ...created.metadata, managedFields: [entry('m'.repeat(129), { 'f:data': { 'f:a': {} } })] } } })
  assertInvalid(long, 'metadata.managedFields[0].manager', 'FieldValueTooLong', 'may not be more than 128 bytes')
  assert.deepEqual((await app.request({ method: 'GET', url: `${CM}/long` })).json(), created)
  const cafe = await app.request({ method: 'POST', url: `${CM}?fieldManager=${encodeURIComponent('café-manager')}`, payload: { metadata: { name: 'cafe' }, data: { a: '1' } } })
  assert.equal(cafe.statusCode, 201, cafe.body)
  assert.deepEqual(managers(cafe.json()), ['café-manager'])
  const tab = await app.request({ method: 'POST', url: `${CM}?fieldManager=${encodeURIComponent('abc\tdef')}`, payload: { metadata: { name: 'tab' }, data: { a: '1' } } })
  assert.equal(tab.statusCode, 422, tab.body)
  assert.match(tab.json().message, /fieldManager: Invalid value: "abc\\tdef": invalid character U\+0009 \(at position 3\)/)
})

test('an entry with an operation other than Apply or Update, or another fieldsType, is 422; [{}] still clears', async (t) => {
  const app = await buildTestApp(t)
  const created = (await app.request({ method: 'POST', url: `${CM}?fieldManager=creator`, payload: { metadata: { name: 'ops' }, data: { a: '1' } } })).json()
  const put = (entries: AnyObject[]) => app.request({ method: 'PUT', url: `${CM}/ops`, payload: { ...created, metadata: { ...created.metadata, managedFields: entries } } })
  assertInvalid(await put([{ ...entry('m', { 'f:data': { 'f:a': {} } }), operation: 'Replace' }]), 'metadata.managedFields[0].operation', 'FieldValueInvalid', 'must be `Apply` or `Update`')
  assertInvalid(await put([{ ...entry('m', { 'f:data': { 'f:a': {} } }), fieldsType: 'FieldsV2' }]), 'metadata.managedFields[0].fieldsType', 'FieldValueInvalid', 'must be `FieldsV1`')
  assert.deepEqual((await app.request({ method: 'GET', url: `${CM}/ops` })).json(), created)
  const cleared = await put([{}])
  assert.equal(cleared.statusCode, 200, cleared.body)
  assert.equal(cleared.json().metadata.managedFields, undefined)
})
