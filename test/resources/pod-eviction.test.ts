// pods/eviction: a pod under no budget is evicted (deleted, its DisruptionTarget condition set
// first); one whose budget allows a disruption is evicted and charged to it; one whose budget
// allows none is refused with 429 in the reference's words; dry run deletes and charges nothing.
// Discovery names the Eviction's group version, as kubectl drain looks for it. The budgets'
// status is written by hand here (the disruption controller is off).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from './suite.js'
import type { TestApp } from '../helpers/app.js'

type Obj = Record<string, any>

const PODS = '/api/v1/namespaces/default/pods'
const PDBS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets'
const eviction = (name: string, deleteOptions?: Obj): Obj => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' }, ...(deleteOptions === undefined ? {} : { deleteOptions }) })

async function readyPod (api: TestApp, name: string, app: string): Promise<void> {
  const created = await api.request({ method: 'POST', url: PODS, payload: { metadata: { name, labels: { app } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } })
  assert.equal(created.statusCode, 201, created.body)
  const status = await api.request({ method: 'PATCH', url: `${PODS}/${name}/status`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } } })
  assert.equal(status.statusCode, 200, status.body)
}

async function budget (api: TestApp, name: string, app: string, status: Obj): Promise<void> {
  const created = await api.request({ method: 'POST', url: PDBS, payload: { metadata: { name }, spec: { minAvailable: 1, selector: { matchLabels: { app } } } } })
  assert.equal(created.statusCode, 201, created.body)
  const written = await api.request({ method: 'PATCH', url: `${PDBS}/${name}/status`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { status: { observedGeneration: 1, ...status } } })
  assert.equal(written.statusCode, 200, written.body)
}

const evict = (api: TestApp, pod: string, body: Obj, query = '') => api.request({ method: 'POST', url: `${PODS}/${pod}/eviction${query}`, payload: body })
const gone = async (api: TestApp, pod: string): Promise<boolean> => {
  const res = await api.request({ method: 'GET', url: `${PODS}/${pod}` })
  return res.statusCode === 404 || res.json().metadata.deletionTimestamp !== undefined
}

describe('pods/eviction', () => {
  const app = suiteApp({ controllers: ['*', '-disruption'] })

  it('is in discovery as policy/v1 Eviction', async () => {
    const resources = (await app().request({ method: 'GET', url: '/api/v1' })).json().resources
    assert.deepEqual(resources.find((r: Obj) => r.name === 'pods/eviction'), { name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] })
    assert.deepEqual(resources.find((r: Obj) => r.name === 'pods/binding'), { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] })
  })

  it('evicts a pod no budget covers', async () => {
    await readyPod(app(), 'free', 'free')
    const res = await evict(app(), 'free', eviction('free'))
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 })
    assert.ok(await gone(app(), 'free'))
  })

  it('charges a budget that allows a disruption, and refuses the next with 429', async () => {
    await readyPod(app(), 'web-1', 'web')
    await readyPod(app(), 'web-2', 'web')
    await budget(app(), 'web', 'web', { currentHealthy: 2, desiredHealthy: 1, expectedPods: 2, disruptionsAllowed: 1 })
    const first = await evict(app(), 'web-1', eviction('web-1'))
    assert.equal(first.statusCode, 201, first.body)
    assert.ok(await gone(app(), 'web-1'))
    const charged = (await app().request({ method: 'GET', url: `${PDBS}/web` })).json().status
    assert.equal(charged.disruptionsAllowed, 0)
    assert.ok(charged.disruptedPods['web-1'])

    const second = await evict(app(), 'web-2', eviction('web-2'))
    assert.equal(second.statusCode, 429, second.body)
    const refusal = second.json()
    assert.equal(refusal.reason, 'TooManyRequests')
    assert.equal(refusal.message, "Cannot evict pod as it would violate the pod's disruption budget.")
    assert.deepEqual(refusal.details.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 1 healthy pods and has 2 currently' }])
    assert.equal(await gone(app(), 'web-2'), false)
  })

  it('deletes and charges nothing under dry run, and refuses a misnamed Eviction', async () => {
    await readyPod(app(), 'api-1', 'api')
    await budget(app(), 'api', 'api', { currentHealthy: 1, desiredHealthy: 0, expectedPods: 1, disruptionsAllowed: 1 })
    const dry = await evict(app(), 'api-1', eviction('api-1'), '?dryRun=All')
    assert.equal(dry.statusCode, 201, dry.body)
    assert.equal(await gone(app(), 'api-1'), false)
    assert.equal((await app().request({ method: 'GET', url: `${PDBS}/api` })).json().status.disruptionsAllowed, 1)
    const misnamed = await evict(app(), 'api-1', eviction('other'))
    assert.equal(misnamed.statusCode, 400)
    assert.equal(misnamed.json().message, 'name in URL does not match name in Eviction object')
  })
})
