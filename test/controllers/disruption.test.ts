// The disruption controller: a budget's status follows its pods turning ready and going; a
// percentage minAvailable and a maxUnavailable count the pods there should be from the scale of
// their controllers (a Deployment's for the pods of its ReplicaSet); a pod whose controller
// cannot be found stops all disruption with a SyncFailed condition; granted evictions expire.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { eventually } from '../helpers/eventually.js'

type Obj = Record<string, any>
const NS = 'guarded'
const pods = `/api/v1/namespaces/${NS}/pods`
const budgets = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`
const deployments = `/apis/apps/v1/namespaces/${NS}/deployments`
const replicasets = `/apis/apps/v1/namespaces/${NS}/replicasets`

describe('disruption controller', () => {
  // Without the garbage collector: a pod whose controller is gone must stay to be counted.
  const app = suiteApp({ controllers: ['*', '-garbagecollector'] })
  const request = (method: string, url: string, payload?: Obj) => app().request({ method: method as 'GET', url, payload })
  const get = async (url: string): Promise<Obj> => (await request('GET', url)).json()
  const created = async (url: string, body: Obj): Promise<Obj> => {
    const res = await request('POST', url, body)
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }
  const owner = (o: Obj) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, controller: true })
  const pod = (name: string, labels: Obj, ownerReferences?: Obj[]) =>
    created(pods, { metadata: { name, labels, ...(ownerReferences === undefined ? {} : { ownerReferences }) }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })
  const setReady = async (name: string, ready: boolean): Promise<void> => {
    const p = await get(`${pods}/${name}`)
    const res = await request('PUT', `${pods}/${name}/status`, { ...p, status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } })
    assert.equal(res.statusCode, 200, res.body)
  }
  const statusIs = (name: string, want: Obj) => eventually(async () => {
    const pdb = await get(`${budgets}/${name}`)
    const status = pdb.status
    for (const [k, v] of Object.entries(want)) assert.deepEqual(status[k], v, `${k} of ${JSON.stringify(status)}`)
    assert.equal(status.observedGeneration, pdb.metadata.generation)
    return status
  })
  const allowedCondition = (status: Obj) => status.conditions.find((c: Obj) => c.type === 'DisruptionAllowed')
  // failSafe writes no observedGeneration: the budget was never counted.
  const failedSync = (name: string) => eventually(async () => {
    const status = (await get(`${budgets}/${name}`)).status
    assert.equal(status.disruptionsAllowed, 0)
    assert.equal(status.observedGeneration, undefined)
    assert.equal((status.conditions ?? []).find((c: Obj) => c.type === 'DisruptionAllowed')?.reason, 'SyncFailed')
    return status
  })

  it('follows the selected pods as they turn ready and go', async () => {
    await created('/api/v1/namespaces', { metadata: { name: NS } })
    for (const name of ['web-1', 'web-2', 'web-3']) await pod(name, { app: 'web' })
    await pod('other', { app: 'other' })
    await created(budgets, { metadata: { name: 'web' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } })
    let status = await statusIs('web', { expectedPods: 3, currentHealthy: 0, desiredHealthy: 2, disruptionsAllowed: 0 })
    assert.deepEqual({ ...allowedCondition(status), lastTransitionTime: undefined }, { type: 'DisruptionAllowed', status: 'False', observedGeneration: 1, reason: 'InsufficientPods', message: '', lastTransitionTime: undefined })
    for (const name of ['web-1', 'web-2', 'web-3', 'other']) await setReady(name, true)
    status = await statusIs('web', { expectedPods: 3, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1 })
    assert.equal(allowedCondition(status).status, 'True')
    assert.equal(allowedCondition(status).reason, 'SufficientPods')
    await setReady('web-3', false)
    await statusIs('web', { currentHealthy: 2, disruptionsAllowed: 0 })
    assert.equal((await request('DELETE', `${pods}/web-3`)).statusCode, 200)
    await statusIs('web', { expectedPods: 2, currentHealthy: 2, disruptionsAllowed: 0 })
    // A spec change is observed with its generation.
    const pdb = await get(`${budgets}/web`)
    assert.equal((await request('PUT', `${budgets}/web`, { ...pdb, spec: { ...pdb.spec, minAvailable: 1 } })).statusCode, 200)
    await statusIs('web', { desiredHealthy: 1, disruptionsAllowed: 1, observedGeneration: 2 })
  })

  it('counts a percentage minAvailable from the scale of the Deployment whose ReplicaSet owns the pods', async () => {
    const template = { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }
    const deployment = await created(deployments, { metadata: { name: 'api' }, spec: { replicas: 4, selector: { matchLabels: { app: 'api' } }, template } })
    const rs = await created(replicasets, { metadata: { name: 'api-1', ownerReferences: [owner(deployment)] }, spec: { replicas: 4, selector: { matchLabels: { app: 'api' } }, template } })
    for (const name of ['api-a', 'api-b', 'api-c']) {
      await pod(name, { app: 'api' }, [owner(rs)])
      await setReady(name, true)
    }
    await created(budgets, { metadata: { name: 'api-half' }, spec: { minAvailable: '50%', selector: { matchLabels: { app: 'api' } } } })
    await statusIs('api-half', { expectedPods: 4, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 })
    // Scaling the Deployment changes what is expected, whatever the ReplicaSet says.
    const d = await get(`${deployments}/api`)
    assert.equal((await request('PUT', `${deployments}/api`, { ...d, spec: { ...d.spec, replicas: 6 } })).statusCode, 200)
    await statusIs('api-half', { expectedPods: 6, desiredHealthy: 3, currentHealthy: 3, disruptionsAllowed: 0 })
  })

  it('counts a maxUnavailable from the controllers\' scale', async () => {
    await created(budgets, { metadata: { name: 'api-max' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'api' } } } })
    await statusIs('api-max', { expectedPods: 6, desiredHealthy: 5, currentHealthy: 3, disruptionsAllowed: 0 })
    await created(budgets, { metadata: { name: 'api-max-pct' }, spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'api' } } } })
    // 50% of 6 rounded up is 3 unavailable: 3 must be healthy.
    await statusIs('api-max-pct', { expectedPods: 6, desiredHealthy: 3, currentHealthy: 3, disruptionsAllowed: 0 })
  })

  it('stops disruption when a pod\'s controller cannot be found or has no scale', async () => {
    const gone = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'gone', uid: '00000000-0000-0000-0000-000000000001', controller: true }
    await pod('orphan', { app: 'lost' }, [gone])
    await setReady('orphan', true)
    await created(budgets, { metadata: { name: 'lost' }, spec: { minAvailable: '10%', selector: { matchLabels: { app: 'lost' } } } })
    let status = await failedSync('lost')
    assert.deepEqual({ ...allowedCondition(status), lastTransitionTime: undefined }, { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: 'found no controllers for pod "orphan"', lastTransitionTime: undefined })

    const cm = await created(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'owner' } })
    await pod('config-owned', { app: 'config' }, [{ ...owner(cm), apiVersion: 'v1', kind: 'ConfigMap' }])
    await created(budgets, { metadata: { name: 'config' }, spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'config' } } } })
    status = await failedSync('config')
    assert.equal(allowedCondition(status).message, 'configmaps does not implement the scale subresource')

    // An integer minAvailable needs no controllers: the selected pods are what is expected.
    await created(budgets, { metadata: { name: 'lost-int' }, spec: { minAvailable: 0, selector: { matchLabels: { app: 'lost' } } } })
    await statusIs('lost-int', { expectedPods: 1, currentHealthy: 1, desiredHealthy: 0, disruptionsAllowed: 1 })
  })

  it('keeps a granted eviction\'s pod out of the healthy count until its entry expires', async () => {
    await pod('solo', { app: 'solo' })
    await setReady('solo', true)
    await created(budgets, { metadata: { name: 'solo' }, spec: { minAvailable: 0, selector: { matchLabels: { app: 'solo' } } } })
    await statusIs('solo', { currentHealthy: 1, disruptionsAllowed: 1 })
    const pdb = await get(`${budgets}/solo`)
    const justNow = new Date(Date.now() - 1000).toISOString().slice(0, 19) + 'Z'
    const expired = new Date(Date.now() - 3 * 60_000).toISOString().slice(0, 19) + 'Z'
    const res = await request('PUT', `${budgets}/solo/status`, { ...pdb, status: { ...pdb.status, disruptionsAllowed: 0, disruptedPods: { solo: justNow, departed: expired } } })
    assert.equal(res.statusCode, 200, res.body)
    // The entry of a pod that is not selected goes; the pod just granted does not count as healthy.
    const status = await statusIs('solo', { currentHealthy: 0, disruptionsAllowed: 0 })
    assert.deepEqual(status.disruptedPods, { solo: justNow })
  })
})
