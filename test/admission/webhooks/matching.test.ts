// Which webhooks a request reaches: rules by operation, group, version, resource and
// subresource (with every wildcard form) and scope; objectSelector on object and oldObject;
// namespaceSelector, which cluster-scoped objects other than namespaces ignore.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { AdmissionAttributes } from '../../../resources/admission.js'
import { namespaceSelectorMatches, objectSelectorMatches, ruleMatches } from '../../../admission/webhooks/matching.js'
import pods from '../../../resources/pods.js'
import namespaces from '../../../resources/namespaces.js'
import storageclasses from '../../../resources/storageclasses.js'

type AnyObject = Record<string, any>

const attrs = (over: Partial<AdmissionAttributes> = {}, nsLabels: Record<string, string> = {}): AdmissionAttributes => ({
  operation: 'CREATE', resource: pods, subresource: '', namespace: 'default', name: 'p', user: { username: 'u', groups: [] },
  dryRun: false, warnings: [], auditAnnotations: {},
  lookup: async () => ({ metadata: { name: 'default', labels: nsLabels } }),
  list: () => [],
  listRecent: async () => [],
  listConsistent: async () => [],
  ...over
})
const rule = (over: AnyObject = {}): AnyObject => ({ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*', ...over })

describe('webhook rule matching', () => {
  const cases: Array<[string, AnyObject, Partial<AdmissionAttributes>, boolean]> = [
    ['the exact rule', rule(), {}, true],
    ['another operation', rule({ operations: ['UPDATE'] }), {}, false],
    ['operation *', rule({ operations: ['*'] }), { operation: 'DELETE' }, true],
    ['another group', rule({ apiGroups: ['apps'] }), {}, false],
    ['group *', rule({ apiGroups: ['*'] }), {}, true],
    ['another version', rule({ apiVersions: ['v2'] }), {}, false],
    ['version *', rule({ apiVersions: ['*'] }), {}, true],
    ['another resource', rule({ resources: ['configmaps'] }), {}, false],
    ['resource * on the main resource', rule({ resources: ['*'] }), {}, true],
    ['resource * on a subresource', rule({ resources: ['*'] }), { subresource: 'status' }, false],
    ['pods on pods/status', rule({ resources: ['pods'] }), { subresource: 'status' }, false],
    ['pods/status on pods/status', rule({ resources: ['pods/status'] }), { subresource: 'status' }, true],
    ['pods/* on pods/status', rule({ resources: ['pods/*'] }), { subresource: 'status' }, true],
    ['pods/* on pods itself (as the reference server matches it)', rule({ resources: ['pods/*'] }), {}, true],
    ['*/status on pods/status', rule({ resources: ['*/status'] }), { subresource: 'status' }, true],
    ['*/status on pods/eviction', rule({ resources: ['*/status'] }), { subresource: 'eviction' }, false],
    ['*/* on pods', rule({ resources: ['*/*'] }), {}, true],
    ['*/* on pods/status', rule({ resources: ['*/*'] }), { subresource: 'status' }, true],
    ['scope Namespaced on pods', rule({ scope: 'Namespaced' }), {}, true],
    ['scope Cluster on pods', rule({ scope: 'Cluster' }), {}, false],
    ['scope Cluster on storage classes', rule({ apiGroups: ['*'], resources: ['*'], scope: 'Cluster' }), { resource: storageclasses, namespace: '' }, true],
    ['scope Namespaced on storage classes', rule({ apiGroups: ['*'], resources: ['*'], scope: 'Namespaced' }), { resource: storageclasses, namespace: '' }, false],
    ['scope Cluster on a namespace', rule({ resources: ['namespaces'], scope: 'Cluster' }), { resource: namespaces, namespace: '' }, true],
    ['scope Namespaced on a namespace', rule({ resources: ['namespaces'], scope: 'Namespaced' }), { resource: namespaces, namespace: 'x' }, false]
  ]
  for (const [name, r, over, expected] of cases) {
    it(`${expected ? 'matches' : 'does not match'} ${name}`, () => {
      assert.equal(ruleMatches(r, attrs(over)), expected)
    })
  }
})

describe('webhook selectors', () => {
  const labelled = (labels: Record<string, string>) => ({ metadata: { name: 'p', labels } })
  it('matches objectSelector on the new object or the old one', () => {
    const w = { objectSelector: { matchLabels: { team: 'a' } } }
    assert.equal(objectSelectorMatches(w, attrs({ object: labelled({ team: 'a' }) })), true)
    assert.equal(objectSelectorMatches(w, attrs({ object: labelled({ team: 'b' }) })), false)
    assert.equal(objectSelectorMatches(w, attrs({ operation: 'UPDATE', object: labelled({}), oldObject: labelled({ team: 'a' }) })), true)
    assert.equal(objectSelectorMatches(w, attrs({ operation: 'DELETE', oldObject: labelled({ team: 'a' }) })), true)
  })
  it('matches objectSelector expressions', () => {
    const w = { objectSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }, { key: 'skip', operator: 'DoesNotExist' }] } }
    assert.equal(objectSelectorMatches(w, attrs({ object: labelled({ tier: 'api' }) })), true)
    assert.equal(objectSelectorMatches(w, attrs({ object: labelled({ tier: 'api', skip: '1' }) })), false)
  })
  it('judges namespaced objects by their namespace\'s labels', async () => {
    const w = { namespaceSelector: { matchLabels: { env: 'prod' } } }
    assert.equal(await namespaceSelectorMatches(w, attrs({}, { env: 'prod' })), true)
    assert.equal(await namespaceSelectorMatches(w, attrs({}, { env: 'dev' })), false)
  })
  it('judges a namespace by its own labels, and ignores it for other cluster-scoped objects', async () => {
    const w = { namespaceSelector: { matchLabels: { env: 'prod' } } }
    assert.equal(await namespaceSelectorMatches(w, attrs({ resource: namespaces, namespace: '', object: labelled({ env: 'prod' }) })), true)
    assert.equal(await namespaceSelectorMatches(w, attrs({ resource: namespaces, namespace: '', object: labelled({}) })), false)
    assert.equal(await namespaceSelectorMatches(w, attrs({ resource: storageclasses, namespace: '', object: labelled({}) })), true)
  })
})
