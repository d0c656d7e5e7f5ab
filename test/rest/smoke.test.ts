import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'

test('creates, gets, lists and deletes a configmap', async (t) => {
  const { request } = await buildTestApp(t)
  const created = await request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: 'a' }, data: { k: 'v' } } })
  assert.equal(created.statusCode, 201, created.body)
  const got = await request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps/a' })
  assert.equal(got.statusCode, 200)
  assert.equal(got.json().data.k, 'v')
  const list = await request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps' })
  assert.equal(list.json().items.length, 1)
  const del = await request({ method: 'DELETE', url: '/api/v1/namespaces/default/configmaps/a' })
  assert.equal(del.statusCode, 200)
  assert.equal(del.json().status, 'Success')
})
