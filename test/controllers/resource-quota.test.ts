// The resourcequota controller: a new quota's status is counted from what the namespace holds
// (hard as the spec, used by the quota's scopes), follows a change of the spec, and gives usage
// back when objects are deleted or pods finish; a recount also corrects a charge that admission
// made for an object that was never written.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { eventually } from '../helpers/eventually.js'

type Obj = Record<string, any>
const base = '/api/v1/namespaces/counted'

describe('resourcequota controller', () => {
  const app = suiteApp()
  const post = (plural: string, body: Obj) => app().request({ method: 'POST', url: `${base}/${plural}`, payload: body })
  const get = async (path: string): Promise<Obj> => (await app().request({ method: 'GET', url: `${base}/${path}` })).json()
  const statusOf = (name: string) => eventually(async () => {
    const q = await get(`resourcequotas/${name}`)
    assert.ok(q.status?.used !== undefined, 'not counted yet')
    return q.status as { hard: Record<string, string>, used: Record<string, string> }
  })
  const pod = (name: string, resources?: Obj) => post('pods', { metadata: { name }, spec: { containers: [{ name: 'a', image: 'nginx', ...(resources === undefined ? {} : { resources }) }] } })

  it('counts what the namespace already holds when a quota is created', async () => {
    assert.equal((await app().request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'counted' } } })).statusCode, 201)
    for (const name of ['a', 'b']) assert.equal((await post('configmaps', { metadata: { name } })).statusCode, 201)
    assert.equal((await pod('small', { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '64Mi' } })).statusCode, 201)
    assert.equal((await pod('idle')).statusCode, 201)
    const created = await post('resourcequotas', { metadata: { name: 'all' }, spec: { hard: { 'count/configmaps': '10', pods: '10', 'requests.cpu': '4', 'limits.memory': '4Gi', 'count/serviceaccounts': '5' } } })
    assert.equal(created.statusCode, 201, created.body)
    const status = await statusOf('all')
    assert.deepEqual(status.hard, { 'count/configmaps': '10', pods: '10', 'requests.cpu': '4', 'limits.memory': '4Gi', 'count/serviceaccounts': '5' })
    assert.equal(status.used['count/configmaps'], '2')
    assert.equal(status.used.pods, '2')
    assert.equal(status.used['requests.cpu'], '250m')
    assert.equal(status.used['limits.memory'], '64Mi')
    assert.ok(Number(status.used['count/serviceaccounts']) <= 1)
    const scoped = await post('resourcequotas', { metadata: { name: 'best-effort' }, spec: { hard: { pods: '10' }, scopes: ['BestEffort'] } })
    assert.equal(scoped.statusCode, 201, scoped.body)
    assert.deepEqual((await statusOf('best-effort')).used, { pods: '1' })
  })

  it('follows a change of the spec\'s limits', async () => {
    const q = await get('resourcequotas/all')
    const res = await app().request({ method: 'PUT', url: `${base}/resourcequotas/all`, payload: { ...q, spec: { hard: { 'count/configmaps': '3', pods: '10' } } } })
    assert.equal(res.statusCode, 200, res.body)
    await eventually(async () => {
      const status = (await get('resourcequotas/all')).status
      assert.deepEqual(status.hard, { 'count/configmaps': '3', pods: '10' })
      assert.deepEqual(status.used, { 'count/configmaps': '2', pods: '2' })
    })
  })

  it('gives usage back when an object is deleted, and corrects charges for objects never written', async () => {
    assert.equal((await post('configmaps', { metadata: { name: 'c' } })).statusCode, 201)
    assert.equal((await statusOf('all')).used['count/configmaps'], '3')
    const refused = await post('configmaps', { metadata: { name: 'd' } })
    assert.equal(refused.statusCode, 403, refused.body)
    // A charge whose object then failed to be written, as admission would leave it.
    const q = await get('resourcequotas/all')
    const inflated = await app().request({ method: 'PUT', url: `${base}/resourcequotas/all/status`, payload: { ...q, status: { ...q.status, used: { ...q.status.used, pods: '7' } } } })
    assert.equal(inflated.statusCode, 200, inflated.body)
    assert.equal((await app().request({ method: 'DELETE', url: `${base}/configmaps/a` })).statusCode, 200)
    await eventually(async () => assert.deepEqual((await get('resourcequotas/all')).status.used, { 'count/configmaps': '2', pods: '2' }))
    assert.equal((await post('configmaps', { metadata: { name: 'd' } })).statusCode, 201)
  })

  it('stops counting a pod\'s compute once it has finished', async () => {
    const p = await get('pods/small')
    const done = await app().request({ method: 'PUT', url: `${base}/pods/small/status`, payload: { ...p, status: { ...p.status, phase: 'Succeeded' } } })
    assert.equal(done.statusCode, 200, done.body)
    await eventually(async () => assert.equal((await get('resourcequotas/all')).status.used.pods, '1'))
  })
})
