// FlowSchema and PriorityLevelConfiguration (flowcontrol.apiserver.svc.io/v1): the v1 defaults,
// the validation rules (subjects, rules and their wildcards, queuing and shuffle-sharding
// entropy, the mandatory objects' fixed specs), status, columns and the upstream group alias.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'
import { GROUPS } from '../../resources/naming.js'

const base = `/apis/${GROUPS.flowcontrol}/v1`
const schemas = `${base}/flowschemas`
const levels = `${base}/prioritylevelconfigurations`
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }

type Obj = Record<string, unknown>
interface Case { name: string, url: string, body: Obj, field?: string, reason?: string, message?: string }

const group = (name = 'system:authenticated'): Obj => ({ kind: 'Group', group: { name } })
const resourceRule = (extra: Obj = {}): Obj => ({ verbs: ['get'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], ...extra })
const nonResourceRule = (extra: Obj = {}): Obj => ({ verbs: ['get'], nonResourceURLs: ['/metrics'], ...extra })
const rules = (rule: Obj): Obj[] => [{ subjects: [group()], resourceRules: [resourceRule()], ...rule }]
const fs = (spec: Obj = {}): Obj => ({ spec: { priorityLevelConfiguration: { name: 'global-default' }, rules: rules({}), ...spec } })
const subject = (s: Obj): Obj => fs({ rules: rules({ subjects: [s] }) })
const limited = (limit: Obj = {}, response: Obj = { type: 'Queue', queuing: {} }): Obj => ({ spec: { type: 'Limited', limited: { limitResponse: response, ...limit } } })
const queuing = (q: Obj): Obj => limited({}, { type: 'Queue', queuing: q })

const cases: Case[] = [
  { name: 'a flow schema', url: schemas, body: fs() },
  { name: 'matchingPrecedence 0 (defaulted to 1000)', url: schemas, body: fs({ matchingPrecedence: 0 }) },
  { name: 'a negative matchingPrecedence', url: schemas, body: fs({ matchingPrecedence: -1 }), field: 'spec.matchingPrecedence', reason: 'FieldValueInvalid', message: 'must be a positive value' },
  { name: 'matchingPrecedence above 10000', url: schemas, body: fs({ matchingPrecedence: 10001 }), field: 'spec.matchingPrecedence', reason: 'FieldValueInvalid', message: 'must not be greater than 10000' },
  { name: 'matchingPrecedence 1 on another schema than exempt', url: schemas, body: fs({ matchingPrecedence: 1 }), field: 'spec.matchingPrecedence', message: "only the schema named 'exempt' may have matchingPrecedence 1" },
  { name: 'an unknown distinguisher method', url: schemas, body: fs({ distinguisherMethod: { type: 'ByGroup' } }), field: 'spec.distinguisherMethod.type', reason: 'FieldValueNotSupported', message: 'supported values: "ByNamespace", "ByUser"' },
  { name: 'no priority level', url: schemas, body: fs({ priorityLevelConfiguration: {} }), field: 'spec.priorityLevelConfiguration.name', reason: 'FieldValueRequired', message: 'must reference a priority level' },
  { name: 'a bad priority level name', url: schemas, body: fs({ priorityLevelConfiguration: { name: 'Bad_Name' } }), field: 'spec.priorityLevelConfiguration.name', reason: 'FieldValueInvalid' },
  { name: 'a rule without subjects', url: schemas, body: fs({ rules: rules({ subjects: [] }) }), field: 'spec.rules[0].subjects', reason: 'FieldValueRequired', message: 'subjects must contain at least one value' },
  { name: 'a rule without resource or non-resource rules', url: schemas, body: fs({ rules: [{ subjects: [group()] }] }), field: 'spec.rules[0]', reason: 'FieldValueRequired', message: 'at least one of resourceRules and nonResourceRules has to be non-empty' },
  { name: 'an unknown subject kind', url: schemas, body: subject({ kind: 'Robot' }), field: 'spec.rules[0].subjects[0].kind', reason: 'FieldValueNotSupported', message: 'supported values: "Group", "ServiceAccount", "User"' },
  { name: 'a User subject without user', url: schemas, body: subject({ kind: 'User' }), field: 'spec.rules[0].subjects[0].user', reason: 'FieldValueRequired', message: "user is required when subject kind is 'User'" },
  { name: 'a User subject with a group too', url: schemas, body: subject({ kind: 'User', user: { name: 'alice' }, group: { name: 'g' } }), field: 'spec.rules[0].subjects[0].group', reason: 'FieldValueForbidden', message: "group is forbidden when subject kind is not 'Group'" },
  { name: 'a Group subject without a name', url: schemas, body: subject({ kind: 'Group', group: {} }), field: 'spec.rules[0].subjects[0].group.name', reason: 'FieldValueRequired' },
  { name: 'a Group subject with a serviceAccount too', url: schemas, body: subject({ kind: 'Group', group: { name: 'g' }, serviceAccount: { namespace: 'ns', name: 'sa' } }), field: 'spec.rules[0].subjects[0].serviceAccount', reason: 'FieldValueForbidden', message: "serviceAccount is forbidden when subject kind is not 'ServiceAccount'" },
  { name: 'every service account of a namespace', url: schemas, body: subject({ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns', name: '*' } }) },
  { name: 'a service account without namespace', url: schemas, body: subject({ kind: 'ServiceAccount', serviceAccount: { name: 'sa' } }), field: 'spec.rules[0].subjects[0].serviceAccount.namespace', reason: 'FieldValueRequired', message: 'must specify namespace for service account' },
  { name: 'a bad service account name', url: schemas, body: subject({ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns', name: 'Bad_SA' } }), field: 'spec.rules[0].subjects[0].serviceAccount.name', reason: 'FieldValueInvalid' },
  { name: 'a ServiceAccount subject without serviceAccount', url: schemas, body: subject({ kind: 'ServiceAccount' }), field: 'spec.rules[0].subjects[0].serviceAccount', reason: 'FieldValueRequired', message: "serviceAccount is required when subject kind is 'ServiceAccount'" },
  { name: 'a resource rule without verbs', url: schemas, body: fs({ rules: rules({ resourceRules: [resourceRule({ verbs: [] })] }) }), field: 'spec.rules[0].resourceRules[0].verbs', reason: 'FieldValueRequired', message: 'verbs must contain at least one value' },
  { name: 'a wildcard verb beside others', url: schemas, body: fs({ rules: rules({ resourceRules: [resourceRule({ verbs: ['*', 'get'] })] }) }), field: 'spec.rules[0].resourceRules[0].verbs', reason: 'FieldValueInvalid', message: "if '*' is present, must not specify other verbs" },
  { name: 'an unknown verb', url: schemas, body: fs({ rules: rules({ resourceRules: [resourceRule({ verbs: ['get', 'escalate'] })] }) }), field: 'spec.rules[0].resourceRules[0].verbs', reason: 'FieldValueNotSupported', message: '"proxy"' },
  { name: 'a resource rule without api groups', url: schemas, body: fs({ rules: rules({ resourceRules: [resourceRule({ apiGroups: [] })] }) }), field: 'spec.rules[0].resourceRules[0].apiGroups', reason: 'FieldValueRequired', message: 'resource rules must supply at least one api group' },
  { name: 'a wildcard api group beside others', url: schemas, body: fs({ rules: rules({ resourceRules: [resourceRule({ apiGroups: ['*', 'apps'] })] }) }), field: 'spec.rules[0].resourceRules[0].apiGroups', message: "if '*' is present, must not specify other api groups" },
  { name: 'a resource rule without resources', url: schemas, body: fs({ rules: rules({ resourceRules: [resourceRule({ resources: [] })] }) }), field: 'spec.rules[0].resourceRules[0].resources', reason: 'FieldValueRequired', message: 'resource rules must supply at least one resource' },
  { name: 'a wildcard resource beside others', url: schemas, body: fs({ rules: rules({ resourceRules: [resourceRule({ resources: ['pods', '*'] })] }) }), field: 'spec.rules[0].resourceRules[0].resources', message: "if '*' is present, must not specify other resources" },
  { name: 'a namespaced rule without namespaces', url: schemas, body: fs({ rules: rules({ resourceRules: [resourceRule({ namespaces: [] })] }) }), field: 'spec.rules[0].resourceRules[0].namespaces', reason: 'FieldValueRequired', message: 'resource rules that are not cluster scoped must supply at least one namespace' },
  { name: 'a cluster-scope rule without namespaces', url: schemas, body: fs({ rules: rules({ resourceRules: [resourceRule({ namespaces: [], clusterScope: true })] }) }) },
  { name: 'a wildcard namespace beside others', url: schemas, body: fs({ rules: rules({ resourceRules: [resourceRule({ namespaces: ['*', 'default'] })] }) }), field: 'spec.rules[0].resourceRules[0].namespaces', message: "if '*' is present, must not specify other namespaces" },
  { name: 'a bad namespace', url: schemas, body: fs({ rules: rules({ resourceRules: [resourceRule({ namespaces: ['Bad_NS'] })] }) }), field: 'spec.rules[0].resourceRules[0].namespaces[0]', reason: 'FieldValueInvalid', message: "each member of this list must be '*' or a DNS-1123 label; " },
  { name: 'a non-resource rule without URLs', url: schemas, body: fs({ rules: rules({ nonResourceRules: [nonResourceRule({ nonResourceURLs: [] })] }) }), field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs', reason: 'FieldValueRequired', message: 'nonResourceURLs must contain at least one value' },
  { name: 'a wildcard URL beside others', url: schemas, body: fs({ rules: rules({ nonResourceRules: [nonResourceRule({ nonResourceURLs: ['*', '/healthz'] })] }) }), field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs', message: "if '*' is present, must not specify other non-resource URLs" },
  { name: 'a relative URL', url: schemas, body: fs({ rules: rules({ nonResourceRules: [nonResourceRule({ nonResourceURLs: ['healthz'] })] }) }), field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]', message: 'must start with slash' },
  { name: 'a URL with a blank', url: schemas, body: fs({ rules: rules({ nonResourceRules: [nonResourceRule({ nonResourceURLs: ['/a b'] })] }) }), field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]', message: 'must not contain white-space' },
  { name: 'a URL with //', url: schemas, body: fs({ rules: rules({ nonResourceRules: [nonResourceRule({ nonResourceURLs: ['/a//b'] })] }) }), field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]', message: 'must not contain double slash' },
  { name: 'a URL with an inner wildcard', url: schemas, body: fs({ rules: rules({ nonResourceRules: [nonResourceRule({ nonResourceURLs: ['/a*'] })] }) }), field: 'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]', message: 'wildcard can only do suffix matching' },
  { name: 'a URL suffix wildcard', url: schemas, body: fs({ rules: rules({ nonResourceRules: [nonResourceRule({ nonResourceURLs: ['/apis/*', '/'] })] }) }) },
  { name: 'a non-resource rule with an unknown verb', url: schemas, body: fs({ rules: rules({ nonResourceRules: [nonResourceRule({ verbs: ['post'] })] }) }), field: 'spec.rules[0].nonResourceRules[0].verbs', reason: 'FieldValueNotSupported' },
  { name: 'a limited level', url: levels, body: limited() },
  { name: 'a rejecting level', url: levels, body: limited({}, { type: 'Reject' }) },
  { name: 'an unknown level type', url: levels, body: { spec: { type: 'Unlimited' } }, field: 'spec.type', reason: 'FieldValueNotSupported', message: 'supported values: "Exempt", "Limited"' },
  { name: 'type Exempt on another level than exempt', url: levels, body: { spec: { type: 'Exempt' } }, field: 'spec.type', reason: 'FieldValueInvalid', message: "type must be 'Exempt' if and only if name is 'exempt'" },
  { name: 'type Limited without limited', url: levels, body: { spec: { type: 'Limited' } }, field: 'spec.limited', reason: 'FieldValueRequired', message: 'must not be empty when type is Limited' },
  { name: 'type Limited with exempt', url: levels, body: { spec: { ...(limited().spec as Obj), exempt: {} } }, field: 'spec.exempt', reason: 'FieldValueForbidden', message: 'must be nil if the type is Limited' },
  { name: 'a zero nominalConcurrencyShares', url: levels, body: limited({ nominalConcurrencyShares: 0 }) },
  { name: 'a negative nominalConcurrencyShares', url: levels, body: limited({ nominalConcurrencyShares: -1 }), field: 'spec.limited.nominalConcurrencyShares', message: 'must be a non-negative integer' },
  { name: 'lendablePercent above 100', url: levels, body: limited({ lendablePercent: 101 }), field: 'spec.limited.lendablePercent', message: 'must be between 0 and 100, inclusive' },
  { name: 'a negative borrowingLimitPercent', url: levels, body: limited({ borrowingLimitPercent: -1 }), field: 'spec.limited.borrowingLimitPercent', message: 'if specified, must be a non-negative integer' },
  { name: 'an unknown limit response', url: levels, body: limited({}, { type: 'Drop' }), field: 'spec.limited.limitResponse.type', reason: 'FieldValueNotSupported', message: 'supported values: "Queue", "Reject"' },
  { name: 'no limit response', url: levels, body: { spec: { type: 'Limited', limited: {} } }, field: 'spec.limited.limitResponse.type', reason: 'FieldValueNotSupported' },
  { name: 'Reject with queuing', url: levels, body: limited({}, { type: 'Reject', queuing: {} }), field: 'spec.limited.limitResponse.queuing', reason: 'FieldValueForbidden', message: 'must be nil if limited.limitResponse.type is not Limited' },
  { name: 'Queue without queuing', url: levels, body: limited({}, { type: 'Queue' }), field: 'spec.limited.limitResponse.queuing', reason: 'FieldValueRequired', message: 'must not be empty if limited.limitResponse.type is Limited' },
  { name: 'a negative queue length limit', url: levels, body: queuing({ queueLengthLimit: -1 }), field: 'spec.limited.limitResponse.queuing.queueLengthLimit', message: 'must be positive' },
  { name: 'negative queues', url: levels, body: queuing({ queues: -1, handSize: 1 }), field: 'spec.limited.limitResponse.queuing.queues', message: 'must be positive' },
  { name: 'too many queues', url: levels, body: queuing({ queues: 10000001 }), field: 'spec.limited.limitResponse.queuing.queues', message: 'must not be greater than 10000000' },
  { name: 'a negative hand size', url: levels, body: queuing({ handSize: -1 }), field: 'spec.limited.limitResponse.queuing.handSize', message: 'must be positive' },
  { name: 'a hand larger than the deck', url: levels, body: queuing({ queues: 4, handSize: 5 }), field: 'spec.limited.limitResponse.queuing.handSize', message: 'should not be greater than queues (4)' },
  { name: 'a hand needing more than 60 bits', url: levels, body: queuing({ queues: 128, handSize: 9 }), field: 'spec.limited.limitResponse.queuing.handSize', message: 'required entropy bits of deckSize 128 and handSize 9 should not be greater than 60' },
  { name: 'a hand needing 60 bits', url: levels, body: queuing({ queues: 1024, handSize: 6 }) }
]

describe('flowcontrol kinds', () => {
  const app = suiteApp()
  let n = 0

  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await app().request({ method: 'POST', url: c.url, payload: { metadata: { name: `o${++n}` }, ...c.body } })
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  it('defaults matchingPrecedence to 1000', async () => {
    const res = await app().request({ method: 'POST', url: schemas, payload: { metadata: { name: 'defaulted' }, ...fs() } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.matchingPrecedence, 1000)
  })

  it('defaults a limited level: 30 shares when unset, lendablePercent 0, queuing 64/8/50; an explicit zero share stays', async () => {
    const res = await app().request({ method: 'POST', url: levels, payload: { metadata: { name: 'defaulted' }, ...limited() } })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().spec.limited, { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } })
    const zero = await app().request({ method: 'POST', url: levels, payload: { metadata: { name: 'zero-shares' }, ...limited({ nominalConcurrencyShares: 0 }) } })
    assert.equal(zero.json().spec.limited.nominalConcurrencyShares, 0)
  })

  it('holds the mandatory objects to their fixed spec, but lets exempt\'s own settings change', async () => {
    const catchAll = await app().request({ method: 'PATCH', url: `${levels}/catch-all`, headers: mergePatch, payload: { spec: { limited: { nominalConcurrencyShares: 50 } } } })
    assertInvalid(catchAll, 'spec', 'FieldValueInvalid', "spec of 'catch-all' must equal the fixed value")
    const schema = await app().request({ method: 'PATCH', url: `${schemas}/exempt`, headers: mergePatch, payload: { spec: { matchingPrecedence: 2 } } })
    assertInvalid(schema, 'spec', 'FieldValueInvalid', "spec of 'exempt' must equal the fixed value")
    const exempt = await app().request({ method: 'PATCH', url: `${levels}/exempt`, headers: mergePatch, payload: { spec: { exempt: { nominalConcurrencyShares: 7, lendablePercent: 10 } } } })
    assert.equal(exempt.statusCode, 200, exempt.body)
    const badExempt = await app().request({ method: 'PATCH', url: `${levels}/exempt`, headers: mergePatch, payload: { spec: { exempt: { nominalConcurrencyShares: -1, lendablePercent: 101 } } } })
    assertInvalid(badExempt, 'spec.exempt.nominalConcurrencyShares', 'FieldValueInvalid', 'must be a non-negative integer')
    assertInvalid(badExempt, 'spec.exempt.lendablePercent', 'FieldValueInvalid', 'must be between 0 and 100, inclusive')
    const limitedExempt = await app().request({ method: 'PATCH', url: `${levels}/exempt`, headers: mergePatch, payload: { spec: { limited: { limitResponse: { type: 'Reject' } } } } })
    assertInvalid(limitedExempt, 'spec', 'FieldValueInvalid', "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value")
    assertInvalid(limitedExempt, 'spec.limited', 'FieldValueForbidden', 'must be nil if the type is not Limited')
  })

  it('takes status only through /status, and refuses a condition type twice', async () => {
    await app().request({ method: 'POST', url: schemas, payload: { metadata: { name: 'with-status' }, ...fs(), status: { conditions: [{ type: 'Dangling', status: 'True' }] } } })
    const created = (await app().request({ method: 'GET', url: `${schemas}/with-status` })).json()
    // The client's condition is dropped; priority and fairness may have written its own since (Found).
    assert.ok(created.status?.conditions === undefined || created.status.conditions[0].reason === 'Found', JSON.stringify(created.status))
    const twice = await app().request({ method: 'PATCH', url: `${schemas}/with-status/status`, headers: mergePatch, payload: { status: { conditions: [{ type: 'Dangling', status: 'True' }, { type: 'Dangling', status: 'False' }] } } })
    assertInvalid(twice, 'status.conditions[1].type', 'FieldValueDuplicate')
    const ok = await app().request({ method: 'PATCH', url: `${schemas}/with-status/status`, headers: mergePatch, payload: { status: { conditions: [{ type: 'Dangling', status: 'True', reason: 'NotFound' }] } } })
    assert.equal(ok.statusCode, 200, ok.body)
  })

  it('shows flow schemas as kubectl does: priority level, precedence, distinguisher, age, missing level', async () => {
    const t = (await app().request({ method: 'GET', url: schemas, headers: TABLE })).json()
    assert.deepEqual(t.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL'])
    const row = (name: string) => t.rows.find((r: { cells: unknown[] }) => r.cells[0] === name).cells
    assert.deepEqual(row('exempt').slice(0, 4), ['exempt', 'exempt', 1, '<none>'])
    // '?' until priority and fairness writes the Dangling condition, then its status.
    assert.ok(['?', 'False'].includes(row('exempt')[5] as string))
    assert.deepEqual(row('catch-all').slice(0, 4), ['catch-all', 'catch-all', 10000, 'ByUser'])
    assert.ok(['True', 'False'].includes(row('with-status')[5] as string))
  })

  it('shows priority levels as kubectl does: type, shares and queuing, <none> where absent', async () => {
    const t = (await app().request({ method: 'GET', url: levels, headers: TABLE })).json()
    assert.deepEqual(t.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age'])
    const row = (name: string) => t.rows.find((r: { cells: unknown[] }) => r.cells[0] === name).cells
    assert.deepEqual(row('exempt').slice(0, 6), ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>'])
    assert.deepEqual(row('catch-all').slice(0, 6), ['catch-all', 'Limited', 5, '<none>', '<none>', '<none>'])
    assert.deepEqual(row('workload-low').slice(0, 6), ['workload-low', 'Limited', 100, 128, 6, 50])
  })

  it('is served under the upstream group name too', async () => {
    const upstream = '/apis/flowcontrol.apiserver.k8s.io/v1'
    const res = await app().request({ method: 'POST', url: `${upstream}/prioritylevelconfigurations`, payload: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'upstream' }, ...limited({}, { type: 'Reject' }) } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().apiVersion, 'flowcontrol.apiserver.k8s.io/v1')
    const list = await app().request({ method: 'GET', url: `${upstream}/flowschemas/global-default` })
    assert.equal(list.statusCode, 200, list.body)
  })
})
