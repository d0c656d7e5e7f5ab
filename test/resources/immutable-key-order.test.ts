// Immutable fields compare by value, not by the order of their keys: a protobuf body (whose
// decoder orders keys by field number) or a client that orders maps differently sends the same
// value in another order, and the reference's semantic equality accepts it.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'

describe('immutable fields under another key order', () => {
  it('an immutable ConfigMap takes its data back with the keys reordered', async (t) => {
    const api = await buildTestApp(t)
    const url = '/api/v1/namespaces/default/configmaps'
    const created = await api.request({ method: 'POST', url, payload: { metadata: { name: 'frozen' }, immutable: true, data: { a: '1', b: '2' } } })
    assert.equal(created.statusCode, 201, created.body)
    const current = created.json()
    const put = await api.request({ method: 'PUT', url: `${url}/frozen`, payload: { ...current, data: { b: '2', a: '1' } } })
    assert.equal(put.statusCode, 200, put.body)
    const changed = await api.request({ method: 'PUT', url: `${url}/frozen`, payload: { ...(put.json() as object), data: { b: '2', a: 'x' } } })
    assert.equal(changed.statusCode, 422, changed.body)
  })

  it('an Event through events.svc.io/v1 takes its regarding object back with the keys reordered', async (t) => {
    const api = await buildTestApp(t)
    const created = await api.request({
      method: 'POST',
      url: '/apis/events.svc.io/v1/namespaces/default/events',
      payload: { metadata: { name: 'e1' }, regarding: { apiVersion: 'v1', kind: 'Node', name: 'node-1' }, reason: 'Rebooted', note: 'rebooted', type: 'Normal', eventTime: '2024-05-01T10:00:00.000000Z', action: 'Reboot', reportingController: 'svclet', reportingInstance: 'node-1' }
    })
    assert.equal(created.statusCode, 201, created.body)
    const current = created.json()
    const put = await api.request({ method: 'PUT', url: '/apis/events.svc.io/v1/namespaces/default/events/e1', payload: { ...current, regarding: { name: 'node-1', kind: 'Node', apiVersion: 'v1' } } })
    assert.equal(put.statusCode, 200, put.body)
  })
})
