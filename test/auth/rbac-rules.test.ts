// RBAC rule semantics as tables: which rule allows which request, and which rules cover others.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { compactRules, compactString, ruleAllows, uncovered, type PolicyRule } from '../../auth/rbac/rules.js'
import type { Attributes } from '../../resources/authorization.js'
import { GROUPS, upstreamGroup } from '../../resources/naming.js'

const user = { username: 'u', groups: [] }
const res = (verb: string, apiGroup: string, resource: string, more: Partial<Attributes> = {}): Attributes => ({
  user, verb, isResourceRequest: true, path: '', apiGroup, apiVersion: 'v1', resource, subresource: '', namespace: 'ns', name: '', ...more
})
const url = (verb: string, path: string): Attributes => ({
  user, verb, isResourceRequest: false, path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: ''
})

const cases: Array<{ name: string, rule: PolicyRule, attrs: Attributes, want: boolean }> = [
  { name: 'exact verb, group and resource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs: res('get', '', 'pods', { name: 'p' }), want: true },
  { name: 'other verb', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs: res('list', '', 'pods'), want: false },
  { name: 'verb *', rule: { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, attrs: res('escalate', '', 'pods'), want: true },
  { name: 'other group', rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, attrs: res('get', '', 'pods'), want: false },
  { name: 'group *', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] }, attrs: res('get', 'apps', 'deployments'), want: true },
  { name: 'resource *', rule: { verbs: ['get'], apiGroups: [''], resources: ['*'] }, attrs: res('get', '', 'secrets'), want: true },
  { name: 'resource * covers subresources', rule: { verbs: ['get'], apiGroups: [''], resources: ['*'] }, attrs: res('get', '', 'pods', { subresource: 'log' }), want: true },
  { name: 'resource does not cover its subresource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, attrs: res('get', '', 'pods', { subresource: 'log' }), want: false },
  { name: 'resource/subresource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, attrs: res('get', '', 'pods', { subresource: 'log' }), want: true },
  { name: 'resource/subresource not the resource', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, attrs: res('get', '', 'pods'), want: false },
  { name: '*/subresource', rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] }, attrs: res('update', '', 'nodes', { subresource: 'status' }), want: true },
  { name: '*/subresource not another subresource', rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] }, attrs: res('update', '', 'nodes', { subresource: 'scale' }), want: false },
  { name: 'resourceNames match', rule: { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }, attrs: res('get', '', 'secrets', { name: 'a' }), want: true },
  { name: 'resourceNames other name', rule: { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }, attrs: res('get', '', 'secrets', { name: 'b' }), want: false },
  { name: 'resourceNames never allow create', rule: { verbs: ['create'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }, attrs: res('create', '', 'secrets'), want: false },
  { name: 'resourceNames never allow deletecollection', rule: { verbs: ['deletecollection'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }, attrs: res('deletecollection', '', 'secrets'), want: false },
  { name: 'resourceNames allow a list pinned by name', rule: { verbs: ['list'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }, attrs: res('list', '', 'secrets', { name: 'a' }), want: true },
  { name: 'resource rule never matches a path', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, attrs: url('get', '/healthz'), want: false },
  { name: 'exact non-resource URL', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, attrs: url('get', '/healthz'), want: true },
  { name: 'non-resource URL other verb', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, attrs: url('post', '/healthz'), want: false },
  { name: 'non-resource URL prefix *', rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, attrs: url('get', '/healthz/etcd'), want: true },
  { name: 'non-resource URL without * is exact', rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, attrs: url('get', '/healthz/etcd'), want: false },
  { name: 'non-resource URL *', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, attrs: url('delete', '/anything'), want: true },
  { name: 'upstream spelling of the group', rule: { verbs: ['get'], apiGroups: [upstreamGroup('coordination')], resources: ['leases'] }, attrs: res('get', GROUPS.coordination, 'leases'), want: true },
  { name: 'our spelling for an upstream request', rule: { verbs: ['get'], apiGroups: [GROUPS.coordination], resources: ['leases'] }, attrs: res('get', upstreamGroup('coordination'), 'leases'), want: true },
  { name: 'a twin is not another group', rule: { verbs: ['get'], apiGroups: [upstreamGroup('coordination')], resources: ['leases'] }, attrs: res('get', GROUPS.storage, 'leases'), want: false },
  { name: 'non-resource rule never matches a resource', rule: { verbs: ['*'], nonResourceURLs: ['*'] }, attrs: res('get', '', 'pods'), want: false }
]

describe('rule matching', () => {
  for (const c of cases) it(c.name, () => { assert.equal(ruleAllows(c.rule, c.attrs), c.want) })
})

describe('covers', () => {
  const owner: PolicyRule[] = [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
    { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] },
    { verbs: ['update'], apiGroups: ['*'], resources: ['*/status'] },
    { verbs: ['get'], nonResourceURLs: ['/logs/*'] },
    { verbs: ['get'], apiGroups: [GROUPS.coordination], resources: ['leases'] }
  ]
  const table: Array<{ name: string, wanted: PolicyRule, missing: number }> = [
    { name: 'a subset of verbs', wanted: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, missing: 0 },
    { name: 'an extra verb', wanted: { verbs: ['get', 'delete'], apiGroups: [''], resources: ['configmaps'] }, missing: 1 },
    { name: '* is covered only by *', wanted: { verbs: ['*'], apiGroups: [''], resources: ['configmaps'] }, missing: 1 },
    { name: 'a named secret', wanted: { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'] }, missing: 0 },
    { name: 'every secret', wanted: { verbs: ['get'], apiGroups: [''], resources: ['secrets'] }, missing: 1 },
    { name: 'a status subresource through */status', wanted: { verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/status'] }, missing: 0 },
    { name: 'a path under a prefix', wanted: { verbs: ['get'], nonResourceURLs: ['/logs/a', '/logs/*'] }, missing: 0 },
    { name: 'a group in its upstream spelling', wanted: { verbs: ['get'], apiGroups: [upstreamGroup('coordination')], resources: ['leases'] }, missing: 0 },
    { name: 'a path outside it', wanted: { verbs: ['get'], nonResourceURLs: ['/metrics'] }, missing: 1 }
  ]
  for (const c of table) it(c.name, () => { assert.equal(uncovered(owner, [c.wanted]).length, c.missing) })

  it('reports missing rules compacted, as the reference server prints them', () => {
    const missing = uncovered([], [{ verbs: ['get', 'watch'], apiGroups: [''], resources: ['secrets'] }])
    assert.deepEqual(compactRules(missing).map(compactString), ['{APIGroups:[""], Resources:["secrets"], Verbs:["get" "watch"]}'])
    assert.equal(compactString({ verbs: ['get'], nonResourceURLs: ['/x'] }), '{NonResourceURLs:["/x"], Verbs:["get"]}')
  })
})
