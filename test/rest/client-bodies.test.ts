// What clients outside kubectl send: a create with no Content-Type (Patroni) reads as JSON, as
// the reference's first serializer; a strategic merge patch's nulls for keys the object lacks are
// dropped, not stored (Patroni's leader annotations); a TokenRequest in the upstream group is
// taken and answered in that group.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'

const CMS = '/api/v1/namespaces/default/configmaps'

describe('bodies real clients send', () => {
  it('a create without a Content-Type is JSON; a patch without one is still 415', async (t) => {
    const api = await buildTestApp(t)
    const created = await api.app.inject({ method: 'POST', url: CMS, headers: { authorization: 'Bearer admin-token' }, payload: JSON.stringify({ metadata: { name: 'no-type' }, data: { a: 'b' } }) })
    assert.equal(created.statusCode, 201, created.body)
    assert.deepEqual(created.json().data, { a: 'b' })
    const empty = await api.app.inject({ method: 'POST', url: CMS, headers: { authorization: 'Bearer admin-token', 'content-type': '' }, payload: JSON.stringify({ metadata: { name: 'empty-type' } }) })
    assert.equal(empty.statusCode, 201, `an empty Content-Type is none: ${empty.body}`)
    const patched = await api.app.inject({ method: 'PATCH', url: `${CMS}/no-type`, headers: { authorization: 'Bearer admin-token' }, payload: JSON.stringify({ data: { a: 'c' } }) })
    assert.equal(patched.statusCode, 415, patched.body)
  })

  it('a strategic merge patch drops nulls for keys of a map the object does not have yet', async (t) => {
    const api = await buildTestApp(t)
    assert.equal((await api.request({ method: 'POST', url: CMS, payload: { metadata: { name: 'leader' } } })).statusCode, 201)
    const res = await api.request({
      method: 'PATCH',
      url: `${CMS}/leader`,
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      payload: { metadata: { annotations: { leader: 'pg-0', scheduled_at: null } } }
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().metadata.annotations, { leader: 'pg-0' })
    const again = await api.request({
      method: 'PATCH',
      url: `${CMS}/leader`,
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      payload: { metadata: { annotations: { leader: null, optime: '42' } } }
    })
    assert.equal(again.statusCode, 200, again.body)
    assert.deepEqual(again.json().metadata.annotations, { optime: '42' })
  })

  it('a TokenRequest named in the upstream group, with nulls for its unset fields, is answered in that group', async (t) => {
    const api = await buildTestApp(t)
    const sa = await api.request({ method: 'POST', url: '/api/v1/namespaces/default/serviceaccounts', payload: { metadata: { name: 'robot' } } })
    assert.equal(sa.statusCode, 201, sa.body)
    const res = await api.request({
      method: 'POST',
      url: '/api/v1/namespaces/default/serviceaccounts/robot/token',
      payload: { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, spec: { audiences: null, expirationSeconds: null, boundObjectRef: null }, status: { token: '', expirationTimestamp: null } }
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().apiVersion, 'authentication.k8s.io/v1')
    assert.match(res.json().status.token, /^ey/)
    const other = await api.request({ method: 'POST', url: '/api/v1/namespaces/default/serviceaccounts/robot/token', payload: { kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v2', spec: {} } })
    assert.equal(other.statusCode, 400, other.body)
    assert.match(other.json().message, /the API version in the data \(authentication\.k8s\.io\/v2\) does not match the expected API version/)
  })
})

describe('server-side dry run checks as the real request does', () => {
  it('a dry-run create of an existing name is 409 AlreadyExists; of a new one, answered with managedFields and nothing stored', async (t) => {
    const api = await buildTestApp(t)
    assert.equal((await api.request({ method: 'POST', url: CMS, payload: { metadata: { name: 'c1' }, data: { a: 'b' } } })).statusCode, 201)
    const again = await api.request({ method: 'POST', url: `${CMS}?dryRun=All`, payload: { metadata: { name: 'c1' }, data: { a: 'c' } } })
    assert.equal(again.statusCode, 409, again.body)
    assert.equal(again.json().reason, 'AlreadyExists')
    const fresh = await api.request({ method: 'POST', url: `${CMS}?dryRun=All`, payload: { metadata: { name: 'c2' }, data: { a: 'c' } } })
    assert.equal(fresh.statusCode, 201, fresh.body)
    assert.ok(Array.isArray(fresh.json().metadata.managedFields))
    assert.equal((await api.request({ method: 'GET', url: `${CMS}/c2` })).statusCode, 404)
  })

  it('a dry-run update with a stale resourceVersion is 409 Conflict', async (t) => {
    const api = await buildTestApp(t)
    const created = await api.request({ method: 'POST', url: CMS, payload: { metadata: { name: 'c1' }, data: { a: 'b' } } })
    const current = created.json() as { metadata: Record<string, unknown> }
    assert.equal((await api.request({ method: 'PUT', url: `${CMS}/c1`, payload: { ...current, data: { a: 'c' } } })).statusCode, 200)
    const stale = await api.request({ method: 'PUT', url: `${CMS}/c1?dryRun=All`, payload: { ...current, data: { a: 'd' } } })
    assert.equal(stale.statusCode, 409, stale.body)
    assert.equal(stale.json().reason, 'Conflict')
  })
})
