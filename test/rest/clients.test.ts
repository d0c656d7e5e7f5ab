// What real clients rely on beyond the spec: Table answers, aggregated-discovery Accept headers,
// field validation, strategic merge patch, write and delete flow details.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'

const KUBECTL_GET_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'
const cms = '/api/v1/namespaces/default/configmaps'

describe('real clients', () => {
  it('answers kubectl get with a meta.k8s.io/v1 Table for get, list and watch', async (t) => {
    const { request } = await buildTestApp(t)
    await request({ method: 'POST', url: cms, payload: { metadata: { name: 'a' }, data: { x: '1', y: '2' } } })
    const list = await request({ method: 'GET', url: cms, headers: { accept: KUBECTL_GET_ACCEPT } })
    assert.equal(list.statusCode, 200)
    const table = list.json()
    assert.equal(table.kind, 'Table')
    assert.equal(table.apiVersion, 'meta.k8s.io/v1')
    assert.deepEqual(table.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Data', 'Age'])
    assert.deepEqual(table.rows[0].cells.slice(0, 2), ['a', 2])
    assert.equal(table.rows[0].object.kind, 'PartialObjectMetadata')
    assert.equal(table.rows[0].object.metadata.namespace, 'default')

    const one = await request({ method: 'GET', url: `${cms}/a?includeObject=Object`, headers: { accept: KUBECTL_GET_ACCEPT } })
    assert.equal(one.json().rows[0].object.data.y, '2')

    const watch = await request({ method: 'GET', url: `${cms}?watch=true&timeoutSeconds=1&resourceVersion=0`, headers: { accept: KUBECTL_GET_ACCEPT } })
    const events = watch.body.trim().split('\n').map(l => JSON.parse(l))
    assert.equal(events[0].type, 'ADDED')
    assert.equal(events[0].object.kind, 'Table')
    assert.equal(events[0].object.rows.length, 1)
    assert.deepEqual(events[0].object.rows[0].cells.slice(0, 2), ['a', 2])
  })

  it('answers the aggregated-discovery Accept with an APIGroupDiscoveryList of the version asked first', async (t) => {
    const { request } = await buildTestApp(t)
    const cases = [
      { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json', v: 'v2' },
      { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json', v: 'v2beta1' }
    ]
    for (const c of cases) {
      const core = await request({ method: 'GET', url: '/api', headers: { accept: c.accept } })
      assert.equal(core.statusCode, 200)
      assert.equal(core.headers['content-type'], `application/json;g=apidiscovery.k8s.io;v=${c.v};as=APIGroupDiscoveryList`)
      const list = core.json()
      assert.equal(list.kind, 'APIGroupDiscoveryList')
      assert.equal(list.apiVersion, `apidiscovery.k8s.io/${c.v}`)
      assert.equal(list.items.length, 1)
      assert.equal(list.items[0].metadata.name, '')
      const v1 = list.items[0].versions[0]
      assert.equal(v1.version, 'v1')
      assert.equal(v1.freshness, 'Current')
      assert.deepEqual(v1.resources.find((r: { resource: string }) => r.resource === 'configmaps'), {
        resource: 'configmaps', responseKind: { group: '', version: 'v1', kind: 'ConfigMap' }, scope: 'Namespaced', singularResource: 'configmap',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['cm']
      })
      const ns = v1.resources.find((r: { resource: string }) => r.resource === 'namespaces')
      assert.equal(ns.scope, 'Cluster')
      assert.deepEqual(ns.subresources.map((s: { subresource: string, verbs: string[] }) => [s.subresource, s.verbs]), [['status', ['get', 'patch', 'update']], ['finalize', ['update']]])
      const named = (await request({ method: 'GET', url: '/apis', headers: { accept: c.accept } })).json()
      assert.ok(named.items.every((g: { metadata: { name: string } }) => g.metadata.name !== ''))
    }
    // Plain JSON first (or only) gets the classic documents.
    for (const [url, kind] of [['/api', 'APIVersions'], ['/apis', 'APIGroupList']]) {
      const r = await request({ method: 'GET', url, headers: { accept: 'application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } })
      assert.match(r.headers['content-type'] as string, /^application\/json; charset=utf-8$/)
      assert.equal(r.json().kind, kind)
    }
    const resources = (await request({ method: 'GET', url: '/api/v1' })).json()
    assert.deepEqual(resources.resources.find((r: { name: string }) => r.name === 'configmaps'),
      { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['cm'], storageVersionHash: 'qFsyl6wFWjQ=' })
  })

  const validationCases = [
    { name: 'Strict refuses unknown fields, 400 as the strict decoder', fv: 'Strict', body: '{"metadata":{"name":"u","bogus":1},"data":{},"extra":true}', code: 400, message: 'strict decoding error: unknown field "metadata.bogus", unknown field "extra"', warnings: 0 },
    { name: 'Strict refuses duplicate fields, 400 as the strict decoder', fv: 'Strict', body: '{"metadata":{"name":"d","name":"d"},"data":{"k":"1","k":"2"}}', code: 400, message: 'strict decoding error: duplicate field "metadata.name", duplicate field "data.k"', warnings: 0 },
    { name: 'Warn accepts and warns per unknown or duplicate field', fv: 'Warn', body: '{"metadata":{"name":"w"},"data":{"k":"1","k":"2"},"extra":true}', code: 201, message: '', warnings: 2 },
    { name: 'Ignore accepts silently', fv: 'Ignore', body: '{"metadata":{"name":"i"},"data":{"k":"1","k":"2"},"extra":true}', code: 201, message: '', warnings: 0 }
  ]
  for (const c of validationCases) {
    it(`fieldValidation=${c.name}`, async (t) => {
      const { request } = await buildTestApp(t)
      const r = await request({ method: 'POST', url: `${cms}?fieldValidation=${c.fv}`, payload: c.body, headers: { 'content-type': 'application/json' } })
      assert.equal(r.statusCode, c.code, r.body)
      // The reference's strict decoder: 400, the kind it could not decode, then every field.
      if (c.code === 400) assert.deepEqual(r.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'BadRequest', code: 400, message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${c.message}` })
      const warning = r.headers.warning
      const warnings = warning === undefined ? [] : Array.isArray(warning) ? warning : [warning]
      assert.equal(warnings.length, c.warnings, String(warning))
      for (const w of warnings) assert.match(w, /^299 - "(unknown|duplicate) field /)
    })
  }

  it('applies a strategic merge patch and names it among the accepted patch types', async (t) => {
    const { request } = await buildTestApp(t)
    await request({ method: 'POST', url: cms, payload: { metadata: { name: 's', labels: { a: '1' }, finalizers: ['x.io/one'] }, data: { k: 'v' } } })
    const patched = await request({
      method: 'PATCH',
      url: `${cms}/s?fieldManager=kubectl-label`,
      payload: { metadata: { labels: { b: '2' }, finalizers: ['x.io/two'] } },
      headers: { 'content-type': 'application/strategic-merge-patch+json' }
    })
    assert.equal(patched.statusCode, 200, patched.body)
    const obj = patched.json()
    assert.deepEqual(obj.metadata.labels, { a: '1', b: '2' })
    assert.deepEqual(obj.metadata.finalizers, ['x.io/two', 'x.io/one'])
    assert.ok(obj.metadata.managedFields.some((m: { manager: string }) => m.manager === 'kubectl-label'))
    const refused = await request({ method: 'PATCH', url: `${cms}/s`, payload: '{}', headers: { 'content-type': 'application/xml' } })
    assert.equal(refused.statusCode, 415)
    assert.match(refused.json().message, /application\/strategic-merge-patch\+json/)
  })

  it('records the field manager of a create and answers 201 as JSON', async (t) => {
    const { request } = await buildTestApp(t)
    const r = await request({ method: 'POST', url: `${cms}?fieldManager=kubectl-create`, payload: { metadata: { name: 'm' }, data: { k: 'v' } } })
    assert.equal(r.statusCode, 201)
    assert.match(r.headers['content-type'] as string, /^application\/json/)
    assert.deepEqual(r.json().metadata.managedFields.map((m: { manager: string, operation: string }) => [m.manager, m.operation]), [['kubectl-create', 'Update']])
  })

  it('deletes with a DeleteOptions body, after which get answers 404', async (t) => {
    const { request } = await buildTestApp(t)
    await request({ method: 'POST', url: cms, payload: { metadata: { name: 'gone' } } })
    const del = await request({ method: 'DELETE', url: `${cms}/gone`, payload: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } })
    assert.equal(del.statusCode, 200, del.body)
    assert.equal(del.json().status, 'Success')
    const get = await request({ method: 'GET', url: `${cms}/gone` })
    assert.equal(get.statusCode, 404)
    assert.equal(get.json().reason, 'NotFound')
  })

  it('sends the named object as an initial ADDED to a watch at resourceVersion 0 with a name field selector', async (t) => {
    const { request } = await buildTestApp(t)
    await request({ method: 'POST', url: cms, payload: { metadata: { name: 'one' } } })
    await request({ method: 'POST', url: cms, payload: { metadata: { name: 'two' } } })
    const r = await request({ method: 'GET', url: `${cms}?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Done&allowWatchBookmarks=true&timeoutSeconds=1` })
    const events = r.body.trim().split('\n').map(l => JSON.parse(l)).filter(e => e.type !== 'BOOKMARK')
    assert.deepEqual(events.map(e => [e.type, e.object.metadata.name]), [['ADDED', 'one']])
  })
})
