// NamespaceAutoProvision and NamespaceExists (both off by default): a create in a missing
// namespace makes the namespace, or is 404 naming it.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'

const configmaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`

describe('namespace admission plugins', () => {
  it('are off by default', async (t) => {
    const { app } = await buildTestApp(t)
    for (const name of ['NamespaceAutoProvision', 'NamespaceExists']) assert.ok(!app.admission.enabled().includes(name), name)
  })

  it('NamespaceAutoProvision creates the missing namespace of a create', async (t) => {
    const api = await buildTestApp(t, { admission: { enable: ['NamespaceAutoProvision'] } })
    const res = await api.request({ method: 'POST', url: configmaps('made-on-demand'), payload: { metadata: { name: 'cm' }, data: { a: 'b' } } })
    assert.equal(res.statusCode, 201, res.body)
    const ns = await api.request({ method: 'GET', url: '/api/v1/namespaces/made-on-demand' })
    assert.equal(ns.statusCode, 200, ns.body)
    assert.equal(ns.json().status.phase, 'Active')
    // An existing namespace is left as it is.
    const again = await api.request({ method: 'POST', url: configmaps('made-on-demand'), payload: { metadata: { name: 'cm2' } } })
    assert.equal(again.statusCode, 201, again.body)
  })

  it('NamespaceAutoProvision makes nothing for a dry run, which NamespaceLifecycle then refuses', async (t) => {
    const api = await buildTestApp(t, { admission: { enable: ['NamespaceAutoProvision'] } })
    const res = await api.request({ method: 'POST', url: `${configmaps('dry')}?dryRun=All`, payload: { metadata: { name: 'cm' } } })
    assert.equal(res.statusCode, 404, res.body)
    assert.equal((await api.request({ method: 'GET', url: '/api/v1/namespaces/dry' })).statusCode, 404)
  })

  it('NamespaceExists refuses a create in a missing namespace with 404, even with NamespaceLifecycle off', async (t) => {
    const api = await buildTestApp(t, { admission: { enable: ['NamespaceExists'], disable: ['NamespaceLifecycle'] } })
    const res = await api.request({ method: 'POST', url: configmaps('nowhere'), payload: { metadata: { name: 'cm' } } })
    assert.equal(res.statusCode, 404, res.body)
    assert.equal(res.json().reason, 'NotFound')
    assert.equal(res.json().message, 'namespaces "nowhere" not found')
    assert.deepEqual(res.json().details, { name: 'nowhere', kind: 'namespaces' })
    const ok = await api.request({ method: 'POST', url: configmaps('default'), payload: { metadata: { name: 'cm' } } })
    assert.equal(ok.statusCode, 201, ok.body)
    const update = await api.request({ method: 'PUT', url: `${configmaps('default')}/cm`, payload: { metadata: { name: 'cm' }, data: { a: 'b' } } })
    assert.equal(update.statusCode, 200, update.body)
    const ns = await api.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'fresh' } } })
    assert.equal(ns.statusCode, 201, ns.body)
  })

  it('NamespaceExists is off by default: without NamespaceLifecycle a missing namespace is no obstacle', async (t) => {
    const api = await buildTestApp(t, { admission: { disable: ['NamespaceLifecycle'] } })
    const res = await api.request({ method: 'POST', url: configmaps('nowhere'), payload: { metadata: { name: 'cm' } } })
    assert.equal(res.statusCode, 201, res.body)
  })
})
