import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { pluginApp } from '../helpers/plugin-app.js'
import versionPlugin from '../../plugins/version.js'

test('discovery documents list the registered kinds', async (t) => {
  const app = await buildTestApp(t)
  const api = (await app.request({ method: 'GET', url: '/api' })).json()
  assert.equal(api.kind, 'APIVersions')
  assert.deepEqual(api.versions, ['v1'])
  const v1 = (await app.request({ method: 'GET', url: '/api/v1' })).json()
  assert.equal(v1.kind, 'APIResourceList')
  assert.equal(v1.groupVersion, 'v1')
  const cm = v1.resources.find((r: any) => r.name === 'configmaps')
  assert.deepEqual(cm, { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['cm'], storageVersionHash: 'qFsyl6wFWjQ=' })
  assert.ok(v1.resources.some((r: any) => r.name === 'namespaces/finalize'))
  assert.ok(v1.resources.some((r: any) => r.name === 'namespaces/status'))
  const apis = await app.request({ method: 'GET', url: '/apis', headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' } })
  assert.equal(apis.statusCode, 200)
  assert.equal(apis.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')
  assert.equal(apis.json().kind, 'APIGroupDiscoveryList')
  assert.equal((await app.request({ method: 'GET', url: '/apis' })).json().kind, 'APIGroupList')
  const unknownGroup = await app.request({ method: 'GET', url: '/apis/nope.example.com' })
  assert.equal(unknownGroup.statusCode, 404)
})

test('/version names the API level kubectl matches', async (t) => {
  const app = await pluginApp(t, versionPlugin)
  const version = (await app.inject({ method: 'GET', url: '/version' })).json()
  assert.equal(version.major, '1')
  assert.equal(version.minor, '33')
  assert.match(version.gitVersion, /^v1\.33\.0-svc\./)
})

test('health endpoints with verbose, exclude and single checks', async (t) => {
  const app = await buildTestApp(t)
  for (const path of ['/healthz', '/livez', '/readyz']) {
    const res = await app.request({ method: 'GET', url: path })
    assert.equal(res.statusCode, 200)
    assert.equal(res.body, 'ok')
  }
  const verbose = await app.request({ method: 'GET', url: '/readyz?verbose' })
  assert.match(verbose.body, /^\[\+\]ping ok$/m)
  assert.match(verbose.body, /^\[\+\]postgres ok$/m)
  assert.match(verbose.body, /^\[\+\]watch-caches ok$/m)
  assert.match(verbose.body, /readyz check passed\n$/)
  const excluded = await app.request({ method: 'GET', url: '/readyz?verbose&exclude=postgres&exclude=log&exclude=nope' })
  assert.match(excluded.body, /^\[\+\]postgres excluded: ok$/m)
  assert.match(excluded.body, /^\[\+\]log excluded: ok$/m)
  assert.match(excluded.body, /no matches for "nope"/)
  assert.equal((await app.request({ method: 'GET', url: '/livez/ping' })).body, 'ok')
  // The default roles are a post-start hook, named as the reference names it.
  assert.match((await app.request({ method: 'GET', url: '/livez?verbose' })).body, /^\[\+\]poststarthook\/rbac\/bootstrap-roles ok$/m)
  assert.equal((await app.request({ method: 'GET', url: '/readyz/poststarthook/rbac/bootstrap-roles' })).body, 'ok')
  assert.equal((await app.request({ method: 'GET', url: '/livez/nope' })).statusCode, 404)
  app.app.health.beginShutdown()
  const shutting = await app.request({ method: 'GET', url: '/readyz?verbose' })
  assert.equal(shutting.statusCode, 500)
  assert.match(shutting.body, /^\[-\]shutdown failed: reason withheld$/m)
  assert.match(shutting.body, /readyz check failed/)
  assert.equal((await app.request({ method: 'GET', url: '/livez' })).statusCode, 200, 'still live while shutting down')
})

test('two servers on one database see each other\'s writes in their watches', async (t) => {
  const a = await buildTestApp(t)
  const b = await buildTestApp(t, { databaseUrl: a.databaseUrl })
  const start = (await b.request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps' })).json().metadata.resourceVersion
  const watching = b.request({ method: 'GET', url: `/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=2&resourceVersion=${start}` })
  await new Promise(resolve => setTimeout(resolve, 100))
  for (let i = 0; i < 5; i++) await a.request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: `x${i}` } } })
  const events = (await watching).body.trim().split('\n').map(l => JSON.parse(l))
  assert.deepEqual(events.map(e => e.object.metadata.name), ['x0', 'x1', 'x2', 'x3', 'x4'])
  const conflict = await b.request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: 'x0' } } })
  assert.equal(conflict.statusCode, 409, 'preconditions are decided in the database')
})

test('a resourceVersion one server just wrote is good at once on the other, stale cache or not', async (t) => {
  const a = await buildTestApp(t)
  const b = await buildTestApp(t, { databaseUrl: a.databaseUrl })
  const url = '/api/v1/namespaces/default/configmaps'
  let rv = (await a.request({ method: 'POST', url, payload: { metadata: { name: 'shared' }, data: { n: '0' } } })).json().metadata.resourceVersion
  for (let i = 1; i <= 20; i++) {
    // Written through a; b's cache learns of it only through the log, a moment later.
    const onA = await a.request({ method: 'PUT', url: `${url}/shared`, payload: { metadata: { name: 'shared', resourceVersion: rv }, data: { n: `a${i}` } } })
    assert.equal(onA.statusCode, 200, onA.body)
    const onB = await b.request({ method: 'PUT', url: `${url}/shared`, payload: { metadata: { name: 'shared', resourceVersion: onA.json().metadata.resourceVersion }, data: { n: `b${i}` } } })
    assert.equal(onB.statusCode, 200, `round ${i}: ${onB.body}`)
    rv = onB.json().metadata.resourceVersion
  }
  const stale = await b.request({ method: 'PUT', url: `${url}/shared`, payload: { metadata: { name: 'shared', resourceVersion: '1' }, data: {} } })
  assert.equal(stale.statusCode, 409)
  assert.equal(stale.json().reason, 'Conflict')
  const onA = await a.request({ method: 'PUT', url: `${url}/shared`, payload: { metadata: { name: 'shared', resourceVersion: rv }, data: { n: 'last' } } })
  const deleted = await b.request({ method: 'DELETE', url: `${url}/shared`, payload: { preconditions: { resourceVersion: onA.json().metadata.resourceVersion } } })
  assert.equal(deleted.statusCode, 200, deleted.body)
})
