// Gets, updates and deletes read the watch cache once it has caught up with the database: they
// must answer exactly as a database read would, across replicas and under concurrent writers.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { buildTestApp } from '../helpers/app.js'

const CM = '/api/v1/namespaces/default/configmaps'

describe('consistent reads from the watch cache', () => {
  it('gets what another replica on the same database wrote a moment ago', async (t) => {
    const a = await buildTestApp(t)
    const b = await buildTestApp(t, { databaseUrl: a.databaseUrl })
    for (let i = 0; i < 20; i++) {
      const created = await a.request({ method: 'POST', url: CM, payload: { metadata: { name: `r${i}` }, data: { i: String(i) } } })
      assert.equal(created.statusCode, 201, created.body)
      const got = await b.request({ method: 'GET', url: `${CM}/r${i}` })
      assert.equal(got.statusCode, 200, `replica b misses r${i}: ${got.body}`)
      assert.equal(got.body, created.body)
      const updated = await a.request({ method: 'PUT', url: `${CM}/r${i}`, payload: { metadata: { name: `r${i}`, resourceVersion: created.json().metadata.resourceVersion }, data: { i: 'changed' } } })
      assert.equal(updated.statusCode, 200, updated.body)
      // b updates with the resourceVersion a just returned: no false conflict from a lagging cache.
      const again = await b.request({ method: 'PUT', url: `${CM}/r${i}`, payload: { metadata: { name: `r${i}`, resourceVersion: updated.json().metadata.resourceVersion }, data: { i: 'again' } } })
      assert.equal(again.statusCode, 200, again.body)
      const deleted = await a.request({ method: 'DELETE', url: `${CM}/r${i}` })
      assert.equal(deleted.statusCode, 200, deleted.body)
      assert.equal((await b.request({ method: 'GET', url: `${CM}/r${i}` })).statusCode, 404)
    }
  })

  it('loses no merge patch of concurrent unconditional writers (conflicts retried on the server)', async (t) => {
    const { request } = await buildTestApp(t)
    assert.equal((await request({ method: 'POST', url: CM, payload: { metadata: { name: 'hot' }, data: {} } })).statusCode, 201)
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => request({
      method: 'PATCH', url: `${CM}/hot`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ data: { [`w${i}`]: 'x' } })
    })))
    const ok = answers.flatMap((r, i) => r.statusCode === 200 ? [`w${i}`] : [])
    for (const r of answers) assert.ok(r.statusCode === 200 || r.statusCode === 409, r.body)
    assert.ok(ok.length > 0)
    const final = (await request({ method: 'GET', url: `${CM}/hot` })).json()
    for (const k of ok) assert.equal(final.data[k], 'x', `the acknowledged patch ${k} is in the object`)
  })

  it('answers a stale resourceVersion with 409 and a fresh one with success', async (t) => {
    const { request } = await buildTestApp(t)
    const created = (await request({ method: 'POST', url: CM, payload: { metadata: { name: 'c' }, data: { v: '1' } } })).json()
    const first = await request({ method: 'PUT', url: `${CM}/c`, payload: { metadata: { name: 'c', resourceVersion: created.metadata.resourceVersion }, data: { v: '2' } } })
    assert.equal(first.statusCode, 200)
    const stale = await request({ method: 'PUT', url: `${CM}/c`, payload: { metadata: { name: 'c', resourceVersion: created.metadata.resourceVersion }, data: { v: '3' } } })
    assert.equal(stale.statusCode, 409)
    assert.equal(stale.json().reason, 'Conflict')
  })

  it('admits a create in a namespace made a moment ago, and refuses one in a missing namespace', async (t) => {
    const { request } = await buildTestApp(t)
    for (let i = 0; i < 5; i++) {
      assert.equal((await request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: `fresh${i}` } } })).statusCode, 201)
      const created = await request({ method: 'POST', url: `/api/v1/namespaces/fresh${i}/configmaps`, payload: { metadata: { name: 'x' } } })
      assert.equal(created.statusCode, 201, created.body)
    }
    const missing = await request({ method: 'POST', url: '/api/v1/namespaces/nowhere/configmaps', payload: { metadata: { name: 'x' } } })
    assert.equal(missing.statusCode, 404)
    assert.equal(missing.json().details.kind, 'namespaces')
  })
})
