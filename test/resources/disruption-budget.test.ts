// The eviction decision the pods/eviction subresource will make from the budgets of a pod's
// namespace (the reference's EvictionREST.Create and checkAndDecrement), and the status
// computation's pure parts: selectors, scaled counts, expiring disruptedPods.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { budgetSelects, evictionVerdict, syncBudgetStatus, type ScaleReader } from '../../resources/disruption-budget.js'
import { ApiError } from '../../resources/status.js'

type Obj = Record<string, any>
const NOW = new Date('2025-01-01T12:00:00Z')

const pod = (name: string, extra: { phase?: string, ready?: boolean, labels?: Obj, deleting?: boolean, owner?: Obj } = {}): Obj => ({
  metadata: {
    name,
    namespace: 'ns',
    resourceVersion: '42',
    labels: extra.labels ?? { app: 'web' },
    ...(extra.deleting === true ? { deletionTimestamp: '2025-01-01T11:59:00Z' } : {}),
    ...(extra.owner === undefined ? {} : { ownerReferences: [{ controller: true, ...extra.owner }] })
  },
  status: { phase: extra.phase ?? 'Running', conditions: [{ type: 'Ready', status: extra.ready === false ? 'False' : 'True' }] }
})

const budget = (name: string, status: Obj, spec: Obj = {}, generation = 1): Obj => ({
  metadata: { name, namespace: 'ns', generation },
  spec: { selector: { matchLabels: { app: 'web' } }, ...spec },
  status: { observedGeneration: generation, ...status }
})

const refusal = (v: ReturnType<typeof evictionVerdict>): ApiError => {
  assert.equal(v.action, 'refuse')
  return (v as { error: ApiError }).error
}

describe('evictionVerdict', () => {
  const healthy = budget('web', { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3 })

  it('deletes finished, pending and deleting pods whatever the budget', () => {
    const none = budget('web', { disruptionsAllowed: 0 })
    assert.deepEqual(evictionVerdict(pod('a', { phase: 'Succeeded' }), [none], NOW), { action: 'delete' })
    assert.deepEqual(evictionVerdict(pod('a', { phase: 'Failed' }), [none], NOW), { action: 'delete' })
    assert.deepEqual(evictionVerdict(pod('a', { deleting: true }), [none], NOW), { action: 'delete' })
    // A pending pod may turn running meanwhile: its delete is conditional on the version read.
    assert.deepEqual(evictionVerdict(pod('a', { phase: 'Pending' }), [none], NOW), { action: 'delete', resourceVersion: '42' })
  })

  it('deletes a pod no budget selects', () => {
    assert.deepEqual(evictionVerdict(pod('a', { labels: { app: 'db' } }), [healthy], NOW), { action: 'delete' })
    assert.deepEqual(evictionVerdict(pod('a'), [{ ...healthy, metadata: { ...healthy.metadata, namespace: 'elsewhere' } }], NOW), { action: 'delete' })
    assert.deepEqual(evictionVerdict(pod('a'), [{ ...healthy, spec: {} }], NOW), { action: 'delete' })
  })

  it('refuses a pod more than one budget selects', () => {
    const err = refusal(evictionVerdict(pod('a'), [healthy, { ...healthy, metadata: { ...healthy.metadata, name: 'all' }, spec: { selector: {} } }], NOW))
    assert.equal(err.code, 500)
    assert.equal(err.status.message, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.')
  })

  it('takes one allowed disruption and records the pod', () => {
    const v = evictionVerdict(pod('a'), [healthy], NOW)
    assert.equal(v.action, 'disrupt')
    if (v.action !== 'disrupt') return
    assert.equal(v.budget, 'web')
    assert.equal(v.status.disruptionsAllowed, 0)
    assert.deepEqual(v.status.disruptedPods, { a: '2025-01-01T12:00:00Z' })
    assert.deepEqual(v.status.conditions, [{ type: 'DisruptionAllowed', status: 'False', observedGeneration: 1, lastTransitionTime: '2025-01-01T12:00:00Z', reason: 'InsufficientPods', message: '' }])
    const dry = evictionVerdict(pod('a'), [healthy], NOW, true)
    assert.equal(dry.action === 'disrupt' && dry.status.disruptedPods, undefined)
  })

  it('refuses with 429 when no disruption is allowed', () => {
    const err = refusal(evictionVerdict(pod('a'), [budget('web', { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 })], NOW))
    assert.equal(err.code, 429)
    assert.equal(err.status.reason, 'TooManyRequests')
    assert.equal(err.status.message, "Cannot evict pod as it would violate the pod's disruption budget.")
    assert.deepEqual(err.status.details, { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web needs 2 healthy pods and has 2 currently' }] })
  })

  it('refuses with 429 and Retry-After while the budget\'s generation is not observed', () => {
    const err = refusal(evictionVerdict(pod('a'), [{ ...healthy, metadata: { ...healthy.metadata, generation: 2 } }], NOW))
    assert.equal(err.code, 429)
    assert.deepEqual(err.status.details, { retryAfterSeconds: 10, causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web is still being processed by the server.' }] })
    assert.equal(err.headers['Retry-After'], '10')
  })

  it('refuses with 403 a negative count or too many unconfirmed evictions', () => {
    const negative = refusal(evictionVerdict(pod('a'), [budget('web', { disruptionsAllowed: -1 })], NOW))
    assert.equal(negative.code, 403)
    assert.equal(negative.status.message, 'poddisruptionbudget.policy "web" is forbidden: pdb disruptions allowed is negative')
    const disruptedPods = Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`p${i}`, '2025-01-01T11:59:00Z']))
    const full = refusal(evictionVerdict(pod('a'), [budget('web', { disruptionsAllowed: 3, disruptedPods })], NOW))
    assert.equal(full.code, 403)
    assert.match(full.status.message ?? '', /DisruptedPods map too big - too many evictions not confirmed by PDB controller$/)
  })

  it('lets an unready pod go when its budget is met or its policy always allows it', () => {
    const unready = pod('a', { ready: false })
    const met = budget('web', { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 })
    assert.deepEqual(evictionVerdict(unready, [met], NOW), { action: 'delete', resourceVersion: '42' })
    const short = budget('web', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2 })
    assert.equal(refusal(evictionVerdict(unready, [short], NOW)).code, 429)
    const always = budget('web', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2 }, { unhealthyPodEvictionPolicy: 'AlwaysAllow' })
    assert.deepEqual(evictionVerdict(unready, [always], NOW), { action: 'delete', resourceVersion: '42' })
    // A ready pod is guarded whatever the policy.
    assert.equal(refusal(evictionVerdict(pod('b'), [always], NOW)).code, 429)
  })
})

describe('syncBudgetStatus', () => {
  const scales: Record<string, number> = { 'rs-uid': 5 }
  const readScale: ScaleReader = (ref) => scales[ref.uid] === undefined ? undefined : { uid: ref.uid, replicas: scales[ref.uid]! }

  it('selects nothing without a selector and everything with an empty one', () => {
    const p = pod('a', { labels: { any: 'thing' } })
    assert.equal(budgetSelects({ spec: {} }, p), false)
    assert.equal(budgetSelects({ spec: { selector: {} } }, p), true)
  })

  it('rounds percentages up and never allows disruption when no pods are expected', () => {
    const owned = [1, 2, 3].map(i => pod(`p${i}`, { owner: { uid: 'rs-uid', kind: 'ReplicaSet', apiVersion: 'apps/v1', name: 'rs' } }))
    const min = syncBudgetStatus(budget('b', {}, { minAvailable: '30%' }), owned, readScale, NOW).status!
    assert.deepEqual([min.expectedPods, min.desiredHealthy, min.currentHealthy, min.disruptionsAllowed], [5, 2, 3, 1])
    const max = syncBudgetStatus(budget('b', {}, { maxUnavailable: '30%' }), owned, readScale, NOW).status!
    assert.deepEqual([max.expectedPods, max.desiredHealthy, max.disruptionsAllowed], [5, 3, 0])
    const empty = syncBudgetStatus(budget('b', {}, { minAvailable: 0 }), [], readScale, NOW).status!
    assert.deepEqual([empty.expectedPods, empty.disruptionsAllowed], [0, 0])
  })

  it('drops expired disruptedPods entries and asks to run again when the next one expires', () => {
    const pods = [pod('fresh'), pod('stale')]
    const pdb = budget('b', { disruptedPods: { fresh: '2025-01-01T11:59:00Z', stale: '2025-01-01T11:57:00Z', absent: '2025-01-01T11:59:30Z' } }, { minAvailable: 1 })
    const { status, recheckAt } = syncBudgetStatus(pdb, pods, readScale, NOW)
    assert.deepEqual(status!.disruptedPods, { fresh: '2025-01-01T11:59:00Z' })
    assert.equal(status!.currentHealthy, 1)
    assert.equal(recheckAt, Date.parse('2025-01-01T12:01:00Z'))
  })

  it('writes nothing when the stored status is current', () => {
    const pdb = budget('b', {}, { minAvailable: 1 })
    const first = syncBudgetStatus(pdb, [pod('a')], readScale, NOW).status!
    assert.deepEqual(syncBudgetStatus({ ...pdb, status: first }, [pod('a')], readScale, NOW), { recheckAt: undefined })
    const failing = budget('f', {}, { minAvailable: '50%' })
    const orphan = [pod('o', { owner: { uid: 'missing', kind: 'ReplicaSet', apiVersion: 'apps/v1', name: 'gone' } })]
    const failed = syncBudgetStatus(failing, orphan, readScale, NOW).status!
    assert.equal(failed.conditions[0].message, 'found no controllers for pod "o"')
    assert.deepEqual(syncBudgetStatus({ ...failing, status: failed }, orphan, readScale, NOW), {})
  })
})
