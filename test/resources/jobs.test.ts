// Job (batch/v1): the defaults of SetDefaults_Job, the generated selector and pod labels, the
// rules of ValidateJob and ValidateJobUpdate, the status transitions /status refuses, and the
// columns kubectl shows.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { suiteApp, type Cause } from './suite.js'

const jobs = '/apis/batch/v1/namespaces/default/jobs'
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }

type Obj = Record<string, any>

const container = { name: 'main', image: 'busybox:1.36' }
const template = (spec: Obj = {}, metadata?: Obj): Obj => ({ ...(metadata === undefined ? {} : { metadata }), spec: { restartPolicy: 'Never', containers: [container], ...spec } })
const job = (spec: Obj = {}, podSpec: Obj = {}): Obj => ({ spec: { template: template(podSpec), ...spec } })
const indexed = (spec: Obj = {}): Obj => job({ completionMode: 'Indexed', completions: 4, ...spec })
const exitRule = (onExitCodes: Obj, action = 'FailJob'): Obj => ({ action, onExitCodes })

/**
 * A 422 Invalid with a cause for `field` of `reason` whose message has `message`: any of the
 * causes, since a field may carry several (the pod spec's rule and the Job's own).
 */
function assertInvalid (res: LightMyRequestResponse, field: string, reason?: string, message?: string): void {
  assert.equal(res.statusCode, 422, res.body)
  const causes: Cause[] = res.json().details.causes
  const found = causes.some(c => c.field === field && (reason === undefined || c.reason === reason) && (message === undefined || c.message.includes(message)))
  assert.ok(found, `no ${reason ?? ''} cause for ${field} with "${message ?? ''}" in ${JSON.stringify(causes)}`)
}

interface Case { name: string, body: Obj, jobName?: string, field?: string, reason?: string, message?: string }

const cases: Case[] = [
  { name: 'a plain job', body: job() },
  { name: 'OnFailure restarts', body: job({}, { restartPolicy: 'OnFailure' }) },
  { name: 'restartPolicy Always', body: job({}, { restartPolicy: 'Always' }), field: 'spec.template.spec.restartPolicy', reason: 'FieldValueRequired', message: 'Required value: valid values: "OnFailure", "Never"' },
  { name: 'no restartPolicy (defaulted to Always)', body: job({}, { restartPolicy: undefined }), field: 'spec.template.spec.restartPolicy', reason: 'FieldValueRequired', message: 'valid values: "OnFailure", "Never"' },
  { name: 'an unknown restartPolicy', body: job({}, { restartPolicy: 'Sometimes' }), field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'supported values: "OnFailure", "Never"' },
  { name: 'no containers', body: job({}, { containers: [] }), field: 'spec.template.spec.containers', reason: 'FieldValueRequired' },
  { name: 'no template at all', body: { spec: {} }, field: 'spec.template.spec.containers', reason: 'FieldValueRequired' },
  { name: 'negative parallelism', body: job({ parallelism: -1 }), field: 'spec.parallelism', reason: 'FieldValueInvalid', message: 'must be greater than or equal to 0' },
  { name: 'negative completions', body: job({ completions: -1 }), field: 'spec.completions', message: 'must be greater than or equal to 0' },
  { name: 'negative activeDeadlineSeconds', body: job({ activeDeadlineSeconds: -5 }), field: 'spec.activeDeadlineSeconds', message: 'must be greater than or equal to 0' },
  { name: 'negative backoffLimit', body: job({ backoffLimit: -1 }), field: 'spec.backoffLimit', message: 'must be greater than or equal to 0' },
  { name: 'negative ttlSecondsAfterFinished', body: job({ ttlSecondsAfterFinished: -1 }), field: 'spec.ttlSecondsAfterFinished', message: 'must be greater than or equal to 0' },
  { name: 'an unknown completionMode', body: job({ completionMode: 'Sometimes' }), field: 'spec.completionMode', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"' },
  { name: 'an Indexed job', body: indexed() },
  { name: 'an Indexed job without completions', body: job({ completionMode: 'Indexed', parallelism: 2 }), field: 'spec.completions', reason: 'FieldValueRequired', message: 'Required value: when completion mode is Indexed' },
  { name: 'an Indexed job over the parallelism limit', body: indexed({ parallelism: 100001 }), field: 'spec.parallelism', message: 'must be less than or equal to 100000 when completion mode is Indexed' },
  { name: 'an Indexed job whose last pod name is no DNS label', jobName: 'x'.repeat(62), body: indexed({ completions: 10 }), field: 'metadata.name', message: `will not able to create pod with invalid DNS label: ${'x'.repeat(62)}-9` },
  { name: 'backoffLimitPerIndex on a NonIndexed job', body: job({ backoffLimitPerIndex: 1 }), field: 'spec.backoffLimitPerIndex', message: 'requires indexed completion mode' },
  { name: 'maxFailedIndexes without backoffLimitPerIndex', body: indexed({ maxFailedIndexes: 1 }), field: 'spec.backoffLimitPerIndex', reason: 'FieldValueRequired', message: 'when maxFailedIndexes is specified' },
  { name: 'maxFailedIndexes above completions', body: indexed({ backoffLimitPerIndex: 1, maxFailedIndexes: 5 }), field: 'spec.maxFailedIndexes', message: 'must be less than or equal to completions' },
  { name: 'a huge Indexed job with backoffLimitPerIndex and no maxFailedIndexes', body: indexed({ completions: 100001, parallelism: 1, backoffLimitPerIndex: 1 }), field: 'spec.maxFailedIndexes', reason: 'FieldValueRequired', message: 'must be specified when completions is above 100000' },
  { name: 'a managedBy that is no domain-prefixed path', body: job({ managedBy: 'controller' }), field: 'spec.managedBy', message: 'must be a domain-prefixed path (such as "acme.io/foo")' },
  { name: 'a managedBy over 63 characters', body: job({ managedBy: `example.com/${'a'.repeat(60)}` }), field: 'spec.managedBy', reason: 'FieldValueTooLong', message: 'may not be more than 63 bytes' },
  { name: 'a managedBy of another controller', body: job({ managedBy: 'example.com/queue' }) },
  { name: 'an unknown podReplacementPolicy', body: job({ podReplacementPolicy: 'Never' }), field: 'spec.podReplacementPolicy', reason: 'FieldValueNotSupported', message: 'supported values: "Failed", "TerminatingOrFailed"' },
  { name: 'TerminatingOrFailed with a podFailurePolicy', body: job({ podReplacementPolicy: 'TerminatingOrFailed', podFailurePolicy: { rules: [exitRule({ operator: 'In', values: [1] })] } }), field: 'spec.podReplacementPolicy', message: 'supported values: "Failed"' },
  { name: 'a pod failure policy', body: job({ podFailurePolicy: { rules: [exitRule({ operator: 'In', values: [1, 2, 42], containerName: 'main' }), { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } }) },
  { name: 'a pod failure policy with OnFailure restarts', body: job({ podFailurePolicy: { rules: [exitRule({ operator: 'In', values: [1] })] } }, { restartPolicy: 'OnFailure' }), field: 'spec.template.spec.restartPolicy', message: 'only "Never" is supported when podFailurePolicy is specified' },
  { name: 'a pod failure rule without action', body: job({ podFailurePolicy: { rules: [{ onExitCodes: { operator: 'In', values: [1] } }] } }), field: 'spec.podFailurePolicy.rules[0].action', reason: 'FieldValueRequired', message: 'valid values: ["Count" "FailIndex" "FailJob" "Ignore"]' },
  { name: 'an unknown pod failure action', body: job({ podFailurePolicy: { rules: [exitRule({ operator: 'In', values: [1] }, 'Retry')] } }), field: 'spec.podFailurePolicy.rules[0].action', reason: 'FieldValueNotSupported' },
  { name: 'FailIndex without backoffLimitPerIndex', body: job({ podFailurePolicy: { rules: [exitRule({ operator: 'In', values: [1] }, 'FailIndex')] } }), field: 'spec.podFailurePolicy.rules[0].action', message: 'requires the backoffLimitPerIndex to be set' },
  { name: 'a rule with neither requirement', body: job({ podFailurePolicy: { rules: [{ action: 'FailJob' }] } }), field: 'spec.podFailurePolicy.rules[0]', message: 'Invalid value: specifying one of OnExitCodes and OnPodConditions is required' },
  { name: 'a rule with both requirements', body: job({ podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1] }, onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] } }), field: 'spec.podFailurePolicy.rules[0]', message: 'specifying both OnExitCodes and OnPodConditions is not supported' },
  { name: 'exit codes without operator', body: job({ podFailurePolicy: { rules: [exitRule({ values: [1] })] } }), field: 'spec.podFailurePolicy.rules[0].onExitCodes.operator', reason: 'FieldValueRequired', message: 'valid values: ["In" "NotIn"]' },
  { name: 'exit codes without values', body: job({ podFailurePolicy: { rules: [exitRule({ operator: 'In', values: [] })] } }), field: 'spec.podFailurePolicy.rules[0].onExitCodes.values', message: 'at least one value is required' },
  { name: 'exit code 0 with In', body: job({ podFailurePolicy: { rules: [exitRule({ operator: 'In', values: [0, 1] })] } }), field: 'spec.podFailurePolicy.rules[0].onExitCodes.values[0]', message: 'must not be 0 for the In operator' },
  { name: 'unordered exit codes', body: job({ podFailurePolicy: { rules: [exitRule({ operator: 'NotIn', values: [3, 1] })] } }), field: 'spec.podFailurePolicy.rules[0].onExitCodes.values', message: 'must be ordered' },
  { name: 'exit codes of an unknown container', body: job({ podFailurePolicy: { rules: [exitRule({ operator: 'In', values: [1], containerName: 'other' })] } }), field: 'spec.podFailurePolicy.rules[0].onExitCodes.containerName', message: 'must be one of the container or initContainer names in the pod template' },
  { name: 'an unknown pod condition status', body: job({ podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'Maybe' }] }] } }), field: 'spec.podFailurePolicy.rules[0].onPodConditions[0].status', reason: 'FieldValueNotSupported', message: 'supported values: "False", "True", "Unknown"' },
  { name: 'a pod condition type that is no qualified name', body: job({ podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'not a name' }] }] } }), field: 'spec.podFailurePolicy.rules[0].onPodConditions[0].type', reason: 'FieldValueInvalid' },
  { name: 'too many pod failure rules', body: job({ podFailurePolicy: { rules: Array.from({ length: 21 }, () => exitRule({ operator: 'In', values: [1] })) } }), field: 'spec.podFailurePolicy.rules', reason: 'FieldValueTooMany', message: 'Too many: 21: must have at most 20 items' },
  { name: 'a success policy on a NonIndexed job', body: job({ successPolicy: { rules: [{ succeededCount: 1 }] } }), field: 'spec.successPolicy', message: 'requires indexed completion mode' },
  { name: 'a success policy', body: indexed({ successPolicy: { rules: [{ succeededIndexes: '0,2-3', succeededCount: 2 }] } }) },
  { name: 'a success policy without rules', body: indexed({ successPolicy: { rules: [] } }), field: 'spec.successPolicy.rules', reason: 'FieldValueRequired', message: 'at least one rules must be specified when the successPolicy is specified' },
  { name: 'an empty success rule', body: indexed({ successPolicy: { rules: [{}] } }), field: 'spec.successPolicy.rules[0]', reason: 'FieldValueRequired', message: 'at least one of succeededCount or succeededIndexes must be specified' },
  { name: 'succeededIndexes out of range', body: indexed({ successPolicy: { rules: [{ succeededIndexes: '1-4' }] } }), field: 'spec.successPolicy.rules[0].succeededIndexes', message: 'error parsing succeededIndexes: too large index: "4"' },
  { name: 'succeededIndexes out of order', body: indexed({ successPolicy: { rules: [{ succeededIndexes: '2,1' }] } }), field: 'spec.successPolicy.rules[0].succeededIndexes', message: 'error parsing succeededIndexes: non-increasing order, previous: 2, current: 1' },
  { name: 'succeededIndexes that are no numbers', body: indexed({ successPolicy: { rules: [{ succeededIndexes: 'a' }] } }), field: 'spec.successPolicy.rules[0].succeededIndexes', message: 'cannot convert string to integer for index: "a"' },
  { name: 'succeededCount above completions', body: indexed({ successPolicy: { rules: [{ succeededCount: 5 }] } }), field: 'spec.successPolicy.rules[0].succeededCount', message: 'must be less than or equal to 4 (the number of specified completions)' },
  { name: 'succeededCount above the indexes named', body: indexed({ successPolicy: { rules: [{ succeededIndexes: '0-1', succeededCount: 3 }] } }), field: 'spec.successPolicy.rules[0].succeededCount', message: 'must be less than or equal to 2 (the number of indexes in the specified succeededIndexes field)' },
  { name: 'a selector without manualSelector', body: job({ selector: { matchLabels: { app: 'x' } } }, {}), field: 'spec.selector', message: '`selector` not auto-generated' },
  { name: 'manualSelector without a selector', body: job({ manualSelector: true }), field: 'spec.selector', reason: 'FieldValueRequired' },
  { name: 'a manual selector not matching the template', body: job({ manualSelector: true, selector: { matchLabels: { app: 'x' } } }), field: 'spec.template.metadata.labels', message: '`selector` does not match template `labels`' },
  { name: 'a manual selector matching the template', body: { spec: { manualSelector: true, selector: { matchLabels: { app: 'x' } }, template: template({}, { labels: { app: 'x' } }) } } },
  { name: 'a template label contradicting the generated one', body: { spec: { template: template({}, { labels: { 'controller-uid': 'not-mine' } }) } }, field: 'spec.template.metadata.labels[controller-uid]', reason: 'FieldValueInvalid', message: "must be '" },
  { name: 'a bad selector operator', body: job({ manualSelector: true, selector: { matchExpressions: [{ key: 'app', operator: 'Near' }] } }), field: 'spec.selector.matchExpressions[0].operator', reason: 'FieldValueInvalid' }
]

describe('batch/v1 Job', () => {
  const app = suiteApp()
  let n = 0
  const create = (body: Obj, name = `j${++n}`) => app().request({ method: 'POST', url: jobs, payload: { metadata: { name }, ...body } })
  const get = async (name: string): Promise<Obj> => (await app().request({ method: 'GET', url: `${jobs}/${name}` })).json()
  const patch = (name: string, body: Obj, sub = '') => app().request({ method: 'PATCH', url: `${jobs}/${name}${sub}`, headers: mergePatch, payload: body })

  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await create(c.body, c.jobName)
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  it('defaults as SetDefaults_Job: completions and parallelism 1, backoffLimit 6, NonIndexed, not suspended', async () => {
    const res = await create(job(), 'defaults')
    assert.equal(res.statusCode, 201, res.body)
    const spec = res.json().spec
    assert.equal(spec.completions, 1)
    assert.equal(spec.parallelism, 1)
    assert.equal(spec.backoffLimit, 6)
    assert.equal(spec.completionMode, 'NonIndexed')
    assert.equal(spec.suspend, false)
    assert.equal(spec.manualSelector, false)
    assert.equal(spec.podReplacementPolicy, 'TerminatingOrFailed')
    assert.equal(spec.template.spec.dnsPolicy, 'ClusterFirst')
    assert.equal(spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent')
  })

  it('defaults parallelism alone when completions is set, and not completions when parallelism is', async () => {
    const a = (await create(job({ completions: 5 }))).json().spec
    assert.deepEqual([a.completions, a.parallelism], [5, 1])
    const b = (await create(job({ parallelism: 3 }))).json().spec
    assert.deepEqual([b.completions, b.parallelism], [undefined, 3])
  })

  it('defaults backoffLimit to the int32 maximum with backoffLimitPerIndex, and podReplacementPolicy to Failed with a podFailurePolicy', async () => {
    const a = (await create(indexed({ backoffLimitPerIndex: 2 }))).json().spec
    assert.equal(a.backoffLimit, 2147483647)
    const res = await create(job({ podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } }))
    assert.equal(res.statusCode, 201, res.body)
    const b = res.json().spec
    assert.equal(b.podReplacementPolicy, 'Failed')
    assert.equal(b.podFailurePolicy.rules[0].onPodConditions[0].status, 'True')
  })

  it('generates the selector and the pod labels from the uid and name', async () => {
    const res = await create({ spec: { template: template({}, { labels: { app: 'batch' } }) } }, 'generated')
    assert.equal(res.statusCode, 201, res.body)
    const j = res.json()
    const uid = j.metadata.uid
    assert.ok(uid)
    assert.deepEqual(j.spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } })
    assert.deepEqual(j.spec.template.metadata.labels, {
      app: 'batch', 'job-name': 'generated', 'batch.kubernetes.io/job-name': 'generated', 'controller-uid': uid, 'batch.kubernetes.io/controller-uid': uid
    })
    // The Job's own labels default to the template's as the user gave them.
    assert.deepEqual(j.metadata.labels, { app: 'batch' })
  })

  it('keeps a Job\'s own labels, and gives the pods\' generated ones when the template has none', async () => {
    const own = (await create({ metadata: { name: 'own', labels: { team: 'a' } }, spec: { template: template({}, { labels: { app: 'b' } }) } }, 'own')).json()
    assert.deepEqual(own.metadata.labels, { team: 'a' })
    // As the reference's Job read back from storage (defaulted again after the selector was made).
    const none = (await create(job(), 'unlabelled')).json()
    const uid = none.metadata.uid
    assert.deepEqual(none.metadata.labels, { 'job-name': 'unlabelled', 'batch.kubernetes.io/job-name': 'unlabelled', 'controller-uid': uid, 'batch.kubernetes.io/controller-uid': uid })
  })

  it('generates a name-based label from generateName', async () => {
    const res = await app().request({ method: 'POST', url: jobs, payload: { metadata: { generateName: 'gen-' }, ...job() } })
    assert.equal(res.statusCode, 201, res.body)
    const j = res.json()
    assert.equal(j.spec.template.metadata.labels['job-name'], j.metadata.name)
  })

  it('leaves labels and selector to the user with manualSelector', async () => {
    const res = await create({ spec: { manualSelector: true, selector: { matchLabels: { app: 'm' } }, template: template({}, { labels: { app: 'm' } }) } }, 'manual')
    assert.equal(res.statusCode, 201, res.body)
    const j = res.json()
    assert.deepEqual(j.spec.selector, { matchLabels: { app: 'm' } })
    assert.deepEqual(j.spec.template.metadata.labels, { app: 'm' })
  })

  it('keeps the selector, template, completionMode and policies immutable; backoffLimit and parallelism change', async () => {
    await create(job({ completions: 2 }), 'fixed')
    const immutables: Array<[Obj, string]> = [
      [{ spec: { selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'other' } } } }, 'spec.selector'],
      [{ spec: { template: { spec: { containers: [{ name: 'main', image: 'busybox:1.37' }] } } } }, 'spec.template'],
      [{ spec: { completions: 3 } }, 'spec.completions'],
      [{ spec: { managedBy: 'example.com/queue' } }, 'spec.managedBy'],
      [{ spec: { podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] }, podReplacementPolicy: 'Failed' } }, 'spec.podFailurePolicy']
    ]
    for (const [body, field] of immutables) assertInvalid(await patch('fixed', body), field, 'FieldValueInvalid', 'field is immutable')
    const ok = await patch('fixed', { spec: { backoffLimit: 2, parallelism: 2, activeDeadlineSeconds: 60 } })
    assert.equal(ok.statusCode, 200, ok.body)
    assert.equal(ok.json().metadata.generation, 2)
  })

  it('lets an Indexed job change completions only along with parallelism', async () => {
    await create(indexed({ parallelism: 4 }), 'elastic')
    assertInvalid(await patch('elastic', { spec: { completions: 6 } }), 'spec.completions', 'FieldValueInvalid', 'can only be modified in tandem with spec.parallelism')
    const ok = await patch('elastic', { spec: { completions: 6, parallelism: 6 } })
    assert.equal(ok.statusCode, 200, ok.body)
  })

  it('lets a suspended Job that never started change its scheduling directives and pod labels, not its containers', async () => {
    await create(job({ suspend: true }), 'queued')
    const ok = await patch('queued', { spec: { template: { metadata: { labels: { queue: 'a' }, annotations: { note: 'x' } }, spec: { nodeSelector: { zone: 'a' }, tolerations: [{ key: 'k', operator: 'Exists' }], schedulingGates: [{ name: 'example.com/gate' }] } } } })
    assert.equal(ok.statusCode, 200, ok.body)
    assertInvalid(await patch('queued', { spec: { template: { spec: { containers: [{ name: 'main', image: 'busybox:1.37' }] } } } }), 'spec.template', 'FieldValueInvalid', 'field is immutable')
    await create(job(), 'running')
    assertInvalid(await patch('running', { spec: { template: { spec: { nodeSelector: { zone: 'a' } } } } }), 'spec.template', 'FieldValueInvalid', 'field is immutable')
  })

  it('takes status only through /status', async () => {
    await create({ ...job(), status: { active: 3 } }, 'status')
    assert.equal((await get('status')).status, undefined)
    const main = await patch('status', { status: { active: 2 } })
    assert.equal(main.statusCode, 200, main.body)
    assert.equal(main.json().status, undefined)
    const res = await patch('status', { status: { active: 1, ready: 1, startTime: '2026-01-01T00:00:00Z' } }, '/status')
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().status.active, 1)
    assert.equal(res.json().spec.completions, 1)
  })

  it('refuses status transitions no controller may make', async () => {
    await create(job(), 'transitions')
    const status = (s: Obj) => patch('transitions', { status: s }, '/status')
    assertInvalid(await status({ active: -1 }), 'status.active', 'FieldValueInvalid', 'must be greater than or equal to 0')
    assertInvalid(await status({ active: 1, ready: 2 }), 'status.ready', 'FieldValueInvalid', 'cannot set more ready pods than active')
    assertInvalid(await status({ completedIndexes: '0' }), 'status.completedIndexes', 'FieldValueInvalid', 'cannot set non-empty completedIndexes when non-indexed completion mode')
    assertInvalid(await status({ failedIndexes: '0' }), 'status.failedIndexes', 'FieldValueInvalid', 'cannot set non-null failedIndexes when backoffLimitPerIndex is null')
    assertInvalid(await status({ uncountedTerminatedPods: { succeeded: ['a'], failed: ['a'] } }), 'status.uncountedTerminatedPods.failed[0]', 'FieldValueDuplicate')
    const complete = { type: 'Complete', status: 'True' }
    const met = { type: 'SuccessCriteriaMet', status: 'True' }
    assertInvalid(await status({ conditions: [complete], startTime: '2026-01-01T00:00:00Z', completionTime: '2026-01-01T00:01:00Z' }), 'status.conditions', 'FieldValueInvalid', 'Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition')
    assertInvalid(await status({ conditions: [met, complete], startTime: '2026-01-01T00:00:00Z' }), 'status.completionTime', 'FieldValueRequired', 'completionTime is required for Complete jobs')
    assertInvalid(await status({ conditions: [met, complete], completionTime: '2026-01-01T00:01:00Z' }), 'status.startTime', 'FieldValueRequired', 'startTime is required for finished job')
    assertInvalid(await status({ conditions: [met, complete], startTime: '2026-01-01T00:02:00Z', completionTime: '2026-01-01T00:01:00Z' }), 'status.completionTime', 'FieldValueInvalid', 'completionTime cannot be set before startTime')
    const done = await status({ conditions: [met, complete], startTime: '2026-01-01T00:00:00Z', completionTime: '2026-01-01T00:01:00Z', succeeded: 1 })
    assert.equal(done.statusCode, 200, done.body)
    const finished: Obj = done.json()
    assertInvalid(await app().request({ method: 'PUT', url: `${jobs}/transitions/status`, payload: { ...finished, status: { ...finished.status, conditions: [met] } } }), 'status.conditions', 'FieldValueInvalid', 'cannot disable the terminal Complete=True condition')
    assertInvalid(await status({ succeeded: 0 }), 'status.succeeded', 'FieldValueInvalid', 'cannot decrease the succeeded counter')
    assertInvalid(await status({ completionTime: '2026-01-01T00:05:00Z' }), 'status.completionTime', 'FieldValueInvalid', 'completionTime cannot be mutated')
    assertInvalid(await status({ active: 1 }), 'status.active', 'FieldValueInvalid', 'active>0 is invalid for finished job')
  })

  it('checks the index lists of an Indexed job\'s status', async () => {
    await create(indexed({ backoffLimitPerIndex: 1 }), 'indexes')
    const status = (s: Obj) => patch('indexes', { status: s }, '/status')
    assertInvalid(await status({ completedIndexes: '0-9' }), 'status.completedIndexes', 'FieldValueInvalid', 'error parsing completedIndexes: too large index: "9"')
    assertInvalid(await status({ completedIndexes: '0-1', failedIndexes: '1' }), 'status.failedIndexes', 'FieldValueInvalid', 'failedIndexes and completedIndexes overlap at index: 1')
    const ok = await status({ completedIndexes: '0,2', failedIndexes: '1,3' })
    assert.equal(ok.statusCode, 200, ok.body)
  })

  it('warns of a name that is no DNS label', async () => {
    const res = await create(job(), 'dotted.name')
    assert.equal(res.statusCode, 201, res.body)
    assert.match(String(res.headers.warning), /metadata\.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: \[a lowercase RFC 1123 label/)
  })

  it('selects by status.successful', async () => {
    await create(job(), 'succeeding')
    await patch('succeeding', { status: { succeeded: 2 } }, '/status')
    const list = (await app().request({ method: 'GET', url: `${jobs}?fieldSelector=status.successful=2` })).json()
    assert.deepEqual(list.items.map((j: Obj) => j.metadata.name), ['succeeding'])
  })

  it('shows a job as kubectl does: status, completions, duration, and wide containers, images and selector', async () => {
    await create(job({ parallelism: 3, completions: undefined }), 'wide')
    await patch('wide', { status: { startTime: new Date(Date.now() - 90_000).toISOString(), active: 3 } }, '/status')
    await create(job({ suspend: true, completions: 2 }), 'paused')
    await patch('paused', { status: { conditions: [{ type: 'Suspended', status: 'True' }] } }, '/status')
    const t = (await app().request({ method: 'GET', url: jobs, headers: TABLE })).json()
    assert.deepEqual(t.columnDefinitions.map((c: Obj) => [c.name, c.type, c.priority]), [
      ['Name', 'string', 0], ['Status', 'string', 0], ['Completions', 'string', 0], ['Duration', 'string', 0], ['Age', 'string', 0],
      ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1]
    ])
    const row = (name: string) => t.rows.find((r: Obj) => r.cells[0] === name).cells
    const wide = row('wide')
    assert.deepEqual(wide.slice(0, 4), ['wide', 'Running', '0/1 of 3', wide[3]])
    assert.match(wide[3], /^(89|90|91)s$/)
    assert.deepEqual(wide.slice(5, 7), ['main', 'busybox:1.36'])
    assert.match(wide[7], /^batch\.kubernetes\.io\/controller-uid=[0-9a-f-]+$/)
    assert.deepEqual(row('paused').slice(1, 4), ['Suspended', '0/2', ''])
    assert.deepEqual(row('transitions').slice(1, 4), ['Complete', '1/1', '60s'])
  })

  it('keeps the generated selector and labels across server-side applies that never name them', async () => {
    const body = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'applied' }, spec: { template: template() } }
    const apply = (b: Obj) => app().request({ method: 'PATCH', url: `${jobs}/applied?fieldManager=kubectl`, headers: { 'content-type': 'application/apply-patch+yaml' }, payload: JSON.stringify(b) })
    const first = await apply(body)
    assert.equal(first.statusCode, 201, first.body)
    const second = await apply({ ...body, spec: { ...body.spec, backoffLimit: 3 } })
    assert.equal(second.statusCode, 200, second.body)
    const uid = first.json().metadata.uid
    assert.deepEqual(second.json().spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } })
    assert.equal(second.json().spec.template.metadata.labels['controller-uid'], uid)
    assert.equal(second.json().spec.backoffLimit, 3)
  })

  it('is in the all category with no short name, and serves jobs/status', async () => {
    const discovery = (await app().request({ method: 'GET', url: '/apis/batch/v1' })).json()
    const r = discovery.resources.find((x: Obj) => x.name === 'jobs')
    assert.deepEqual(r.categories, ['all'])
    assert.equal(r.shortNames, undefined)
    assert.ok(discovery.resources.some((x: Obj) => x.name === 'jobs/status'))
  })
})
