// Classification by FlowSchemas, and the seat arithmetic, without a server: precedence, subjects,
// resource and non-resource rules, distinguishers, the mandatory objects imagined, the memo.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ClassificationMemo, classify, digestConfig, distinguisherOf } from '../../plugins/flowcontrol/classify.js'
import { levelLimits } from '../../plugins/flowcontrol/dispatcher.js'
import { estimateMutating, estimateSeats, maxSeatsOf } from '../../plugins/flowcontrol/work-estimate.js'
import { WatchCounts } from '../../plugins/watch-counts.js'
import { parseRequestInfo } from '../../plugins/request-info.js'
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from '../../resources/flowcontrol-bootstrap.js'
import type { AnyObject } from '../../resources/define.js'
import type { UserInfo } from '../../resources/user-info.js'

const withUid = (o: AnyObject): AnyObject => ({ ...o, metadata: { ...o.metadata, uid: `uid-${o.metadata.name as string}` } })
const BOOTSTRAP = digestConfig([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS].map(withUid), [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS].map(withUid))

const user = (username: string, ...groups: string[]): UserInfo => ({ username, groups: [...groups, 'system:authenticated'] })
const req = (method: string, url: string, u: UserInfo) => ({ info: parseRequestInfo(method, url), user: u })
const schemaOf = (method: string, url: string, u: UserInfo, config = BOOTSTRAP): string | undefined => classify(config, req(method, url, u))?.schema.name

test('the bootstrap schemas classify as the reference\'s do', () => {
  assert.equal(schemaOf('GET', '/api/v1/namespaces/a/pods', user('admin', 'system:masters')), 'exempt')
  assert.equal(schemaOf('GET', '/healthz', { username: 'system:anonymous', groups: ['system:unauthenticated'] }), 'probes')
  assert.equal(schemaOf('GET', '/readyz', user('alice')), 'probes')
  assert.equal(schemaOf('POST', '/healthz', user('alice')), 'global-default', 'only get is a probe')
  assert.equal(schemaOf('GET', '/api/v1/namespaces/a/configmaps', user('alice')), 'global-default')
  assert.equal(schemaOf('PUT', '/api/v1/nodes/n1/status', user('system:node:n1', 'system:nodes')), 'system-node-high')
  assert.equal(schemaOf('GET', '/api/v1/namespaces/a/pods', user('system:node:n1', 'system:nodes')), 'system-nodes')
  const sa = user('system:serviceaccount:team:builder', 'system:serviceaccounts', 'system:serviceaccounts:team')
  assert.equal(schemaOf('GET', '/api/v1/namespaces/team/pods', sa), 'service-accounts')
  assert.equal(schemaOf('PUT', '/apis/coordination.svc.io/v1/namespaces/team/leases/l', sa), 'service-accounts', 'leader election schemas are for the system namespace')
  const systemSa = user('system:serviceaccount:svc-system:anything', 'system:serviceaccounts')
  assert.equal(schemaOf('PUT', '/apis/coordination.svc.io/v1/namespaces/svc-system/leases/l', systemSa), 'system-leader-election')
  assert.equal(schemaOf('GET', '/api/v1/namespaces/team/pods', systemSa), 'svc-system-service-accounts')
})

const schema = (name: string, precedence: number, level: string, rule: AnyObject, distinguisher?: string): AnyObject => ({
  metadata: { name, uid: `uid-${name}` },
  spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence: precedence, ...(distinguisher === undefined ? {} : { distinguisherMethod: { type: distinguisher } }), rules: [rule] }
})
const level = (name: string, shares: number, lendablePercent = 0, extra: AnyObject = {}): AnyObject => ({
  metadata: { name, uid: `uid-${name}` },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: { type: 'Reject' }, ...extra } }
})
const every = { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }

test('matchingPrecedence decides, then the name; a schema whose level is missing is skipped', () => {
  const subjects = [{ kind: 'User', user: { name: 'alice' } }]
  const config = digestConfig([
    schema('b-late', 500, 'low', { subjects, ...every }),
    schema('a-early', 500, 'low', { subjects, ...every }),
    schema('first', 100, 'missing-level', { subjects, ...every })
  ], [level('low', 10)])
  assert.equal(schemaOf('GET', '/api/v1/pods', user('alice'), config), 'a-early')
  assert.equal(schemaOf('GET', '/api/v1/pods', user('bob'), config), 'catch-all', 'the mandatory catch-all is imagined')
  assert.equal(classify(config, req('GET', '/api/v1/pods', user('bob')))?.level.name, 'catch-all')
})

test('subjects: users, groups, service accounts, wildcards', () => {
  const rule = (subjects: AnyObject[]): AnyObject => ({ subjects, ...every })
  const config = digestConfig([
    schema('by-user', 100, 'l', rule([{ kind: 'User', user: { name: 'alice' } }])),
    schema('by-group', 200, 'l', rule([{ kind: 'Group', group: { name: 'qa' } }])),
    schema('by-sa', 300, 'l', rule([{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns1', name: 'robot' } }])),
    schema('by-sa-ns', 400, 'l', rule([{ kind: 'ServiceAccount', serviceAccount: { namespace: 'ns2', name: '*' } }])),
    schema('anyone', 500, 'l', { subjects: [{ kind: 'User', user: { name: '*' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/special/*'] }] })
  ], [level('l', 10)])
  assert.equal(schemaOf('GET', '/api/v1/pods', user('alice')), 'global-default')
  assert.equal(schemaOf('GET', '/api/v1/pods', user('alice'), config), 'by-user')
  assert.equal(schemaOf('GET', '/api/v1/pods', user('carol', 'qa'), config), 'by-group')
  assert.equal(schemaOf('GET', '/api/v1/pods', user('system:serviceaccount:ns1:robot'), config), 'by-sa')
  assert.equal(schemaOf('GET', '/api/v1/pods', user('system:serviceaccount:ns1:other'), config), 'catch-all')
  assert.equal(schemaOf('GET', '/api/v1/pods', user('system:serviceaccount:ns2:any'), config), 'by-sa-ns')
  assert.equal(schemaOf('GET', '/api/v1/pods', user('system:serviceaccount:ns22:any'), config), 'catch-all')
  assert.equal(schemaOf('GET', '/special/thing', user('zed'), config), 'anyone')
  assert.equal(schemaOf('GET', '/special', user('zed'), config), 'catch-all', '/special/* needs the slash')
})

test('resource rules: verbs, groups, resources with subresources, namespaces and cluster scope', () => {
  const subjects = [{ kind: 'Group', group: { name: 'system:authenticated' } }]
  const config = digestConfig([
    schema('pods-in-a', 100, 'l', { subjects, resourceRules: [{ verbs: ['list', 'get'], apiGroups: [''], resources: ['pods'], namespaces: ['a'] }] }),
    schema('status', 200, 'l', { subjects, resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['pods/status'], namespaces: ['*'] }] }),
    schema('nodes', 300, 'l', { subjects, resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['nodes'], clusterScope: true, namespaces: [] }] })
  ], [level('l', 10)])
  assert.equal(schemaOf('GET', '/api/v1/namespaces/a/pods', user('u'), config), 'pods-in-a')
  assert.equal(schemaOf('GET', '/api/v1/namespaces/a/pods/p', user('u'), config), 'pods-in-a')
  assert.equal(schemaOf('DELETE', '/api/v1/namespaces/a/pods/p', user('u'), config), 'catch-all', 'verb not listed')
  assert.equal(schemaOf('GET', '/api/v1/namespaces/b/pods', user('u'), config), 'catch-all', 'other namespace')
  assert.equal(schemaOf('GET', '/api/v1/pods', user('u'), config), 'catch-all', 'cluster-wide list needs clusterScope')
  assert.equal(schemaOf('PUT', '/api/v1/namespaces/b/pods/p/status', user('u'), config), 'status')
  assert.equal(schemaOf('PUT', '/api/v1/namespaces/b/pods/p', user('u'), config), 'catch-all', 'pods/status is not pods')
  assert.equal(schemaOf('GET', '/api/v1/nodes/n', user('u'), config), 'nodes')
})

test('distinguishers: by user, by namespace, none', () => {
  const subjects = [{ kind: 'Group', group: { name: '*' } }]
  const byUser = digestConfig([schema('s', 100, 'l', { subjects, ...every }, 'ByUser')], [level('l', 1)])
  const byNs = digestConfig([schema('s', 100, 'l', { subjects, ...every }, 'ByNamespace')], [level('l', 1)])
  const none = digestConfig([schema('s', 100, 'l', { subjects, ...every })], [level('l', 1)])
  const r = req('GET', '/api/v1/namespaces/team/pods', user('alice'))
  assert.equal(distinguisherOf(classify(byUser, r)!.schema, r), 'alice')
  assert.equal(distinguisherOf(classify(byNs, r)!.schema, r), 'team')
  assert.equal(distinguisherOf(classify(none, r)!.schema, r), '')
})

test('the memo answers as matching does, and forgets with a new configuration', () => {
  const memo = new ClassificationMemo()
  const r = req('GET', '/api/v1/namespaces/a/pods', user('alice'))
  assert.equal(memo.classify(BOOTSTRAP, r)?.schema.name, 'global-default')
  assert.equal(memo.classify(BOOTSTRAP, r)?.schema.name, 'global-default')
  assert.equal(memo.classify(BOOTSTRAP, req('GET', '/api/v1/namespaces/a/pods', user('alice', 'system:masters')))?.schema.name, 'exempt', 'groups are in the key')
  const other = digestConfig([schema('mine', 100, 'l', { subjects: [{ kind: 'User', user: { name: 'alice' } }], ...every })], [level('l', 1)])
  assert.equal(memo.classify(other, r)?.schema.name, 'mine')
})

test('seats: nominal by shares (rounded up), lendable and borrowing limits by percent', () => {
  const limits = levelLimits(BOOTSTRAP, 600)
  // Shares: 0 + 5 + 30 + 40 + 10 + 40 + 100 + 20 = 245.
  assert.deepEqual(limits.get('global-default'), { nominal: 49, lendable: 25, guaranteed: 24, upper: 649 })
  assert.deepEqual(limits.get('catch-all'), { nominal: 13, lendable: 0, guaranteed: 13, upper: 613 })
  assert.deepEqual(limits.get('workload-low'), { nominal: 245, lendable: 221, guaranteed: 24, upper: 845 })
  assert.equal(limits.get('exempt')!.nominal, 0)
  const bounded = levelLimits(digestConfig([], [level('l', 10, 50, { borrowingLimitPercent: 20 })]), 100)
  assert.deepEqual(bounded.get('l'), { nominal: 67, lendable: 34, guaranteed: 33, upper: 80 })
})

test('work estimate: lists by the objects they go through, watches by their initial events', () => {
  const info = (url: string) => parseRequestInfo('GET', url)
  assert.equal(estimateSeats(info('/api/v1/pods'), '/api/v1/pods', 50, 10), 1)
  assert.equal(estimateSeats(info('/api/v1/pods'), '/api/v1/pods', 450, 10), 5)
  assert.equal(estimateSeats(info('/api/v1/pods'), '/api/v1/pods', 100_000, 10), 10)
  assert.equal(estimateSeats(info('/api/v1/pods'), '/api/v1/pods', 100_000, 3), 3, 'the level caps it')
  assert.equal(estimateSeats(info('/api/v1/pods?watch=1'), '/api/v1/pods?watch=1', 100_000, 10), 1)
  assert.equal(estimateSeats(info('/api/v1/pods?watch=1&sendInitialEvents=true'), '/api/v1/pods?watch=1&sendInitialEvents=true', 1000, 10), 10)
  assert.equal(estimateSeats(info('/api/v1/pods?limit=50&continue=x'), '/api/v1/pods?limit=50&continue=x', 1000, 10), 1, 'a page from storage: twice its limit')
  assert.equal(estimateSeats(parseRequestInfo('POST', '/api/v1/namespaces/a/pods'), '/api/v1/namespaces/a/pods', 100_000, 10), 1)
  assert.equal(maxSeatsOf(49), 8)
  assert.equal(maxSeatsOf(600), 10)
})

test('work estimate: a write keeps one seat per ten interested watches for 5 ms after it is answered', () => {
  const create = parseRequestInfo('POST', '/api/v1/namespaces/a/pods')
  assert.deepEqual(estimateMutating(create, 9, 10), { seats: 1, finalSeats: 0, additionalMs: 0 }, 'fewer than ten watches: nothing after')
  assert.deepEqual(estimateMutating(create, 10, 10), { seats: 1, finalSeats: 1, additionalMs: 5 })
  assert.deepEqual(estimateMutating(create, 35, 10), { seats: 1, finalSeats: 4, additionalMs: 5 })
  assert.deepEqual(estimateMutating(create, 5000, 7), { seats: 1, finalSeats: 7, additionalMs: 5 }, 'the level caps it')
  assert.deepEqual(estimateMutating(parseRequestInfo('GET', '/api/v1/namespaces/a/pods/p'), 5000, 10), { seats: 1, finalSeats: 0, additionalMs: 0 }, 'reads are not writes')
  assert.deepEqual(estimateMutating(parseRequestInfo('DELETE', '/api/v1/namespaces/a/pods'), 5000, 10), { seats: 1, finalSeats: 0, additionalMs: 0 }, 'deletecollection is not estimated, as the reference')
})

test('watch counts: a write is counted against the whole resource\'s, its namespace\'s and its object\'s watches', () => {
  const counts = new WatchCounts()
  const scope = (namespace: string, name: string) => ({ apiGroup: 'apps', resource: 'deployments', namespace, name })
  const all = counts.register(scope('', ''))
  counts.register(scope('a', ''))
  counts.register(scope('a', ''))
  counts.register(scope('a', 'web'))
  counts.register(scope('b', ''))
  counts.register({ apiGroup: '', resource: 'deployments', namespace: '', name: '' })
  assert.equal(counts.interested(parseRequestInfo('PUT', '/apis/apps/v1/namespaces/a/deployments/web')), 4)
  assert.equal(counts.interested(parseRequestInfo('PUT', '/apis/apps/v1/namespaces/a/deployments/db')), 3)
  assert.equal(counts.interested(parseRequestInfo('POST', '/apis/apps/v1/namespaces/c/deployments')), 1)
  all()
  all()
  assert.equal(counts.interested(parseRequestInfo('POST', '/apis/apps/v1/namespaces/c/deployments')), 0, 'uncounted once')
})
