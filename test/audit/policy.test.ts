// The audit policy: the reference server's rule matching (first match wins, no match is None),
// omitStages and omitManagedFields, and the start-up errors of a bad policy file.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { evaluate, loadPolicy, parsePolicy, type AuditAttributes } from '../../plugins/audit/policy.js'
import { GROUPS } from '../../resources/naming.js'

const alice = { username: 'alice', groups: ['developers', 'system:authenticated'] }
const req = (a: Partial<AuditAttributes>): AuditAttributes => ({
  user: alice, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/default/pods/p', apiGroup: '', namespace: 'default', resource: 'pods', subresource: '', name: 'p', ...a
})
const policy = (rules: unknown[], extra: object = {}) => parsePolicy({ apiVersion: `${GROUPS.audit}/v1`, kind: 'Policy', rules, ...extra })

test('the first matching rule decides; no match is None', () => {
  const p = policy([
    { level: 'None', users: ['system:kube-proxy'] },
    { level: 'RequestResponse', resources: [{ group: '', resources: ['pods'] }] },
    { level: 'Metadata' }
  ])
  assert.equal(evaluate(p, req({})).level, 'RequestResponse')
  assert.equal(evaluate(p, req({ user: { username: 'system:kube-proxy', groups: [] } })).level, 'None')
  assert.equal(evaluate(p, req({ resource: 'configmaps' })).level, 'Metadata')
  assert.equal(evaluate(policy([{ level: 'Metadata', users: ['bob'] }]), req({})).level, 'None')
})

test('users, groups, verbs, namespaces and resource names narrow a rule', () => {
  const p = policy([
    { level: 'Request', userGroups: ['qa'], verbs: ['create'] },
    { level: 'Metadata', namespaces: ['kube'], verbs: ['get'] },
    { level: 'RequestResponse', resources: [{ group: '', resources: ['configmaps'], resourceNames: ['controller-leader'] }] }
  ])
  assert.equal(evaluate(p, req({ user: { username: 'q', groups: ['qa'] }, verb: 'create' })).level, 'Request')
  assert.equal(evaluate(p, req({ verb: 'create' })).level, 'None')
  assert.equal(evaluate(p, req({ namespace: 'kube' })).level, 'Metadata')
  assert.equal(evaluate(p, req({ resource: 'configmaps', name: 'controller-leader' })).level, 'RequestResponse')
  assert.equal(evaluate(p, req({ resource: 'configmaps', name: 'other' })).level, 'None')
})

test('subresource patterns: exact, */status and pods/*', () => {
  const only = (resources: string[]) => policy([{ level: 'Metadata', resources: [{ group: '', resources }] }])
  assert.equal(evaluate(only(['pods/status']), req({ subresource: 'status' })).level, 'Metadata')
  assert.equal(evaluate(only(['pods']), req({ subresource: 'status' })).level, 'None')
  assert.equal(evaluate(only(['*/status']), req({ resource: 'nodes', subresource: 'status' })).level, 'Metadata')
  assert.equal(evaluate(only(['pods/*']), req({ subresource: 'log' })).level, 'Metadata')
  assert.equal(evaluate(only(['*']), req({ resource: 'anything' })).level, 'Metadata')
  // A group with no resources listed matches every resource of that group, and only that group.
  const storage = policy([{ level: 'Metadata', resources: [{ group: GROUPS.storage }] }])
  assert.equal(evaluate(storage, req({ apiGroup: GROUPS.storage, resource: 'storageclasses' })).level, 'Metadata')
  assert.equal(evaluate(storage, req({})).level, 'None')
})

test('non-resource URLs match exactly or by a trailing *', () => {
  const p = policy([{ level: 'None', nonResourceURLs: ['/healthz*', '/version'] }, { level: 'Metadata' }])
  const path = (path: string) => req({ isResourceRequest: false, path, resource: '', name: '', namespace: '' })
  assert.equal(evaluate(p, path('/healthz')).level, 'None')
  assert.equal(evaluate(p, path('/healthz/ping')).level, 'None')
  assert.equal(evaluate(p, path('/version')).level, 'None')
  assert.equal(evaluate(p, path('/version/x')).level, 'Metadata')
  // A non-resource rule never matches a resource request.
  assert.equal(evaluate(policy([{ level: 'Metadata', nonResourceURLs: ['*'] }]), req({})).level, 'None')
})

test('omitStages joins the policy and the rule; omitManagedFields: the rule over the policy', () => {
  const p = policy([{ level: 'Metadata', omitStages: ['ResponseStarted'], omitManagedFields: false }, { level: 'Request' }],
    { omitStages: ['RequestReceived'], omitManagedFields: true })
  const first = evaluate(p, req({}))
  assert.deepEqual([...first.omitStages].sort(), ['RequestReceived', 'ResponseStarted'])
  assert.equal(first.omitManagedFields, false)
  assert.equal(evaluate(policy([{ level: 'Request' }], { omitManagedFields: true }), req({})).omitManagedFields, true)
})

test('a policy the reference refuses is refused, in its words (audit validation.go, policy/reader.go)', () => {
  assert.throws(() => policy([]), /^Error: loaded illegal policy with 0 rules$/)
  assert.throws(() => policy([{ level: 'Metadata', resources: [{ group: '*' }] }]),
    /^Error: rules\[0\]\.resources\.group: Invalid value: "\*": a lowercase RFC 1123 subdomain must consist of/)
  assert.throws(() => policy([{ level: 'None' }, { level: 'Metadata', resources: [{ group: 'Apps', resources: ['deployments'] }] }]),
    /^Error: rules\[1\]\.resources\.group: Invalid value: "Apps": a lowercase RFC 1123 subdomain/)
  assert.throws(() => policy([{ level: 'Metadata', resources: [{ group: '', resourceNames: ['a', 'b'] }] }]),
    /^Error: rules\[0\]\.resources\.resourceNames: Invalid value: \[\]string\{"a", "b"\}: using resourceNames requires at least one resource$/)
  // Every problem at once, as field.ErrorList's aggregate lists them.
  assert.throws(() => policy([{ level: 'Metadata', resources: [{ group: '*', resourceNames: ['a'] }] }]),
    /^Error: \[rules\[0\]\.resources\.group: Invalid value: "\*": .*, rules\[0\]\.resources\.resourceNames: Invalid value: .*\]$/)
  assert.equal(policy([{ level: 'Metadata', resources: [{ group: 'apps', resources: ['deployments'], resourceNames: ['web'] }] }]).rules.length, 1)
})

test('a bad policy file stops start-up with the field at fault', () => {
  assert.throws(() => policy([{ level: 'Everything' }]), /rules\[0\]\.level: unsupported value "Everything"/)
  assert.throws(() => policy([{}]), /rules\[0\]\.level: required/)
  assert.throws(() => policy([{ level: 'None', omitStages: ['Sometime'] }]), /rules\[0\]\.omitStages: unsupported value "Sometime"/)
  assert.throws(() => policy([{ level: 'None', nonResourceURLs: ['/x'], resources: [{ resources: ['pods'] }] }]), /cannot apply to both/)
  assert.throws(() => policy([{ level: 'None', nonResourceURLs: ['/a*b'] }]), /must be the final character/)
  assert.throws(() => parsePolicy({ apiVersion: 'v1', kind: 'Policy', rules: [] }), /apiVersion: must be/)
  const dir = mkdtempSync(join(tmpdir(), 'audit-policy-'))
  const file = join(dir, 'policy.yaml')
  // Policies written for the upstream group load too.
  writeFileSync(file, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n')
  assert.equal(loadPolicy(file).rules[0]!.level, 'Metadata')
  assert.throws(() => loadPolicy(join(dir, 'missing.yaml')), /--audit-policy-file: ENOENT/)
  writeFileSync(file, 'kind: Policy\nrules: [')
  assert.throws(() => loadPolicy(file), /--audit-policy-file .*policy\.yaml/)
})
