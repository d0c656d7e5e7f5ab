// PodDisruptionBudget (policy/v1): the spec's rules (int-or-percent bounds, the two counts
// exclusive, selector, eviction policy), the status's, a new object's zero status, the mutable
// spec with its generation, the columns, and an empty selector selecting every pod of the
// namespace while an unset one selects none.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'
import { eventually } from '../helpers/eventually.js'
import type { TestApp } from '../helpers/app.js'

type Obj = Record<string, any>
const budgets = '/apis/policy/v1/namespaces/default/poddisruptionbudgets'
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }

interface Case { name: string, spec: Obj, field?: string, reason?: string, message?: string }

const selector = { matchLabels: { app: 'web' } }
const PERCENT_DETAIL = "a valid percent string must be a numeric string followed by an ending '%'"

const cases: Case[] = [
  { name: 'an integer minAvailable', spec: { minAvailable: 2, selector } },
  { name: 'a percent minAvailable', spec: { minAvailable: '50%', selector } },
  { name: 'a percent maxUnavailable', spec: { maxUnavailable: '25%', selector } },
  { name: 'no counts and no selector', spec: {} },
  { name: 'both counts', spec: { minAvailable: 1, maxUnavailable: 1, selector }, field: 'spec', reason: 'FieldValueInvalid', message: 'minAvailable and maxUnavailable cannot be both set' },
  { name: 'a negative minAvailable', spec: { minAvailable: -1, selector }, field: 'spec.minAvailable', message: 'must be greater than or equal to 0' },
  { name: 'a negative maxUnavailable', spec: { maxUnavailable: -2, selector }, field: 'spec.maxUnavailable', message: 'must be greater than or equal to 0' },
  { name: 'a minAvailable over 100%', spec: { minAvailable: '101%', selector }, field: 'spec.minAvailable', message: 'must not be greater than 100%' },
  { name: 'a maxUnavailable over 100%', spec: { maxUnavailable: '150%', selector }, field: 'spec.maxUnavailable', message: 'must not be greater than 100%' },
  { name: 'a string that is no percent', spec: { minAvailable: 'half', selector }, field: 'spec.minAvailable', message: PERCENT_DETAIL },
  { name: 'a bad selector operator', spec: { minAvailable: 1, selector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['a'] }] } }, field: 'spec.selector.matchExpressions[0].operator', reason: 'FieldValueInvalid' },
  { name: 'a bad selector label value', spec: { minAvailable: 1, selector: { matchLabels: { app: 'not ok' } } }, field: 'spec.selector.matchLabels', reason: 'FieldValueInvalid' },
  { name: 'the AlwaysAllow policy', spec: { minAvailable: 1, selector, unhealthyPodEvictionPolicy: 'AlwaysAllow' } },
  { name: 'the IfHealthyBudget policy', spec: { minAvailable: 1, selector, unhealthyPodEvictionPolicy: 'IfHealthyBudget' } },
  { name: 'an unknown policy', spec: { minAvailable: 1, selector, unhealthyPodEvictionPolicy: 'Never' }, field: 'spec.unhealthyPodEvictionPolicy', reason: 'FieldValueNotSupported', message: 'supported values: "AlwaysAllow", "IfHealthyBudget"' }
]

function client (app: () => TestApp): { request: (method: string, url: string, payload?: Obj) => ReturnType<TestApp['request']>, get: (url: string) => Promise<Obj> } {
  const request = (method: string, url: string, payload?: Obj): ReturnType<TestApp['request']> => app().request({ method: method as 'GET', url, payload })
  return { request, get: async (url: string): Promise<Obj> => (await request('GET', url)).json() }
}

// Without the disruption controller, whose status writes would race these tests' updates.
describe('PodDisruptionBudget', () => {
  const app = suiteApp({ controllers: ['*', '-disruption'] })
  const { request, get } = client(app)

  cases.forEach((c, i) => {
    it(c.field === undefined ? `accepts ${c.name}` : `refuses ${c.name}`, async () => {
      const res = await request('POST', budgets, { metadata: { name: `case-${i}` }, spec: c.spec })
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  })

  it('creates with the zero status and generation 1, and lets the spec change', async () => {
    const res = await request('POST', budgets, { metadata: { name: 'mutable' }, spec: { minAvailable: 1, selector }, status: { disruptionsAllowed: 5 } })
    assert.equal(res.statusCode, 201, res.body)
    const created = res.json()
    assert.equal(created.metadata.generation, 1)
    assert.deepEqual(created.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 })
    const pdb = await get(`${budgets}/mutable`)
    const updated = await request('PUT', `${budgets}/mutable`, { ...pdb, spec: { maxUnavailable: '10%', selector: { matchLabels: { app: 'other' } } } })
    assert.equal(updated.statusCode, 200, updated.body)
    assert.equal(updated.json().metadata.generation, 2)
    assert.deepEqual(updated.json().spec, { maxUnavailable: '10%', selector: { matchLabels: { app: 'other' } } })
  })

  it('checks the status written through /status', async () => {
    const pdb = await get(`${budgets}/mutable`)
    const negative = await request('PUT', `${budgets}/mutable/status`, { ...pdb, status: { ...pdb.status, disruptionsAllowed: -1, expectedPods: -3 } })
    assertInvalid(negative, 'status.disruptionsAllowed', 'FieldValueInvalid', 'must be greater than or equal to 0')
    assertInvalid(negative, 'status.expectedPods', 'FieldValueInvalid', 'must be greater than or equal to 0')
    const condition = { type: 'DisruptionAllowed', status: 'Maybe', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'Bad Reason', message: '' }
    const badCondition = await request('PUT', `${budgets}/mutable/status`, { ...pdb, status: { ...pdb.status, conditions: [condition, { ...condition, status: 'True', reason: 'Fine', lastTransitionTime: undefined }] } })
    assertInvalid(badCondition, 'status.conditions[0].status', 'FieldValueNotSupported', 'supported values: "False", "True", "Unknown"')
    assertInvalid(badCondition, 'status.conditions[0].reason', 'FieldValueInvalid', 'a condition reason must start with alphabetic character')
    assertInvalid(badCondition, 'status.conditions[1].type', 'FieldValueDuplicate')
    assertInvalid(badCondition, 'status.conditions[1].lastTransitionTime', 'FieldValueRequired', 'must be set')
  })

  it('shows min available, max unavailable and allowed disruptions, N/A where unset', async () => {
    const t = (await app().request({ method: 'GET', url: budgets, headers: TABLE })).json()
    assert.deepEqual(t.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age'])
    const row = (name: string) => t.rows.find((r: { cells: unknown[] }) => r.cells[0] === name).cells
    assert.deepEqual(row('case-0').slice(0, 4), ['case-0', '2', 'N/A', 0])
    assert.deepEqual(row('case-2').slice(0, 4), ['case-2', 'N/A', '25%', 0])
  })
})

describe('PodDisruptionBudget status from the disruption controller', () => {
  const app = suiteApp()
  const { request, get } = client(app)

  it('counts every pod of the namespace under an empty selector and none under an unset one', async () => {
    assert.equal((await request('POST', '/api/v1/namespaces', { metadata: { name: 'selected' } })).statusCode, 201)
    const pods = '/api/v1/namespaces/selected/pods'
    for (const [name, labels] of [['a', { app: 'web' }], ['b', { tier: 'db' }]] as const) {
      const created = await request('POST', pods, { metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })
      assert.equal(created.statusCode, 201, created.body)
      const pod = created.json()
      const ready = await request('PUT', `${pods}/${name}/status`, { ...pod, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } })
      assert.equal(ready.statusCode, 200, ready.body)
    }
    const ns = '/apis/policy/v1/namespaces/selected/poddisruptionbudgets'
    assert.equal((await request('POST', ns, { metadata: { name: 'everything' }, spec: { minAvailable: 1, selector: {} } })).statusCode, 201)
    assert.equal((await request('POST', ns, { metadata: { name: 'nothing' }, spec: { minAvailable: 1 } })).statusCode, 201)
    await eventually(async () => {
      const status = (await get(`${ns}/everything`)).status
      assert.equal(status.observedGeneration, 1)
      assert.equal(status.expectedPods, 2)
      assert.equal(status.currentHealthy, 2)
      assert.equal(status.desiredHealthy, 1)
      assert.equal(status.disruptionsAllowed, 1)
    })
    await eventually(async () => {
      const status = (await get(`${ns}/nothing`)).status
      assert.equal(status.observedGeneration, 1)
      assert.equal(status.expectedPods, 0)
      assert.equal(status.currentHealthy, 0)
      assert.equal(status.desiredHealthy, 1)
      assert.equal(status.disruptionsAllowed, 0)
      assert.equal(status.conditions[0].reason, 'InsufficientPods')
    })
  })
})
