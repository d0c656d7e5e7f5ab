// The access reviews: create-only answers from the authorization chain, never stored.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { GROUPS, upstreamGroup } from '../../resources/naming.js'

const AUTHZ_V1 = `/apis/${GROUPS.authorization}/v1`

describe('access reviews', () => {
  let t: TestApp
  const cleanups: Array<() => unknown> = []
  before(async () => {
    t = await buildTestApp({ after: (fn) => { cleanups.push(fn) } }, { authorizationModes: ['Node', 'RBAC'] })
    await t.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'team' } } })
    await t.request({ method: 'POST', url: `/apis/${GROUPS.rbac}/v1/namespaces/team/roles`, payload: { metadata: { name: 'cm' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] } })
    await t.request({ method: 'POST', url: `/apis/${GROUPS.rbac}/v1/namespaces/team/rolebindings`, payload: { metadata: { name: 'alice-cm' }, subjects: [{ kind: 'User', name: 'alice' }], roleRef: { apiGroup: GROUPS.rbac, kind: 'Role', name: 'cm' } } })
  })
  after(async () => { for (const fn of cleanups.reverse()) await fn() })

  const ssar = (resourceAttributes: object) => ({ apiVersion: `${GROUPS.authorization}/v1`, kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } })

  it('answers a SelfSubjectAccessReview for the caller, 201 and never stored', async () => {
    const yes = await t.request({ method: 'POST', url: `${AUTHZ_V1}/selfsubjectaccessreviews`, payload: ssar({ namespace: 'team', verb: 'list', resource: 'configmaps' }), as: 'alice' })
    assert.equal(yes.statusCode, 201, yes.body)
    assert.equal(yes.json().kind, 'SelfSubjectAccessReview')
    assert.equal(yes.json().status.allowed, true)
    assert.match(yes.json().status.reason, /RBAC: allowed by RoleBinding "alice-cm\/team" of Role "cm" to User "alice"/)
    const no = await t.request({ method: 'POST', url: `${AUTHZ_V1}/selfsubjectaccessreviews`, payload: ssar({ namespace: 'team', verb: 'delete', resource: 'configmaps', name: 'x' }), as: 'alice' })
    assert.equal(no.statusCode, 201)
    assert.deepEqual(no.json().status, { allowed: false })
    const list = await t.request({ method: 'GET', url: `${AUTHZ_V1}/selfsubjectaccessreviews` })
    assert.equal(list.statusCode, 405)
  })

  it('serves SelfSubjectAccessReview at the upstream path too, answering in the upstream group', async () => {
    const res = await t.request({
      method: 'POST', url: `/apis/${upstreamGroup('authorization')}/v1/selfsubjectaccessreviews`,
      payload: { apiVersion: `${upstreamGroup('authorization')}/v1`, kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: 'team', verb: 'get', resource: 'configmaps' } } },
      as: 'alice'
    })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().apiVersion, `${upstreamGroup('authorization')}/v1`)
    assert.equal(res.json().status.allowed, true)
  })

  it('answers non-resource reviews and rejects a spec with neither or both attributes', async () => {
    const res = await t.request({ method: 'POST', url: `${AUTHZ_V1}/selfsubjectaccessreviews`, payload: { spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } } }, as: 'bob' })
    assert.equal(res.json().status.allowed, true)
    const neither = await t.request({ method: 'POST', url: `${AUTHZ_V1}/selfsubjectaccessreviews`, payload: { spec: {} }, as: 'bob' })
    assert.equal(neither.statusCode, 422)
    assert.match(neither.json().message, /exactly one of nonResourceAttributes or resourceAttributes must be specified/)
  })

  it('answers a SubjectAccessReview about another user, for callers allowed to create it', async () => {
    const body = { spec: { user: 'alice', groups: ['developers'], resourceAttributes: { namespace: 'team', verb: 'get', resource: 'configmaps' } } }
    const res = await t.request({ method: 'POST', url: `${AUTHZ_V1}/subjectaccessreviews`, payload: body })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().status.allowed, true)
    const forbidden = await t.request({ method: 'POST', url: `${AUTHZ_V1}/subjectaccessreviews`, payload: body, as: 'bob' })
    assert.equal(forbidden.statusCode, 403)
    const noUser = await t.request({ method: 'POST', url: `${AUTHZ_V1}/subjectaccessreviews`, payload: { spec: { resourceAttributes: { verb: 'get' } } } })
    assert.equal(noUser.statusCode, 422)
    assert.match(noUser.json().message, /spec.user: Invalid value: "": at least one of user or group must be specified/)
  })

  it('answers a LocalSubjectAccessReview only for the namespace in its path', async () => {
    const ok = await t.request({ method: 'POST', url: `${AUTHZ_V1}/namespaces/team/localsubjectaccessreviews`, payload: { spec: { user: 'alice', resourceAttributes: { namespace: 'team', verb: 'list', resource: 'configmaps' } } } })
    assert.equal(ok.statusCode, 201, ok.body)
    assert.equal(ok.json().status.allowed, true)
    assert.equal(ok.json().metadata.namespace, 'team')
    const mismatch = await t.request({ method: 'POST', url: `${AUTHZ_V1}/namespaces/team/localsubjectaccessreviews`, payload: { spec: { user: 'alice', resourceAttributes: { namespace: 'default', verb: 'list', resource: 'configmaps' } } } })
    assert.equal(mismatch.statusCode, 400)
    assert.equal(mismatch.json().message, 'spec.resourceAttributes.namespace must match namespace: team')
  })

  it('lists the caller rules in a namespace with SelfSubjectRulesReview', async () => {
    const res = await t.request({ method: 'POST', url: `${AUTHZ_V1}/selfsubjectrulesreviews`, payload: { spec: { namespace: 'team' } }, as: 'alice' })
    assert.equal(res.statusCode, 201, res.body)
    const status = res.json().status
    assert.equal(status.incomplete, false)
    assert.ok(status.resourceRules.some((r: { resources: string[], verbs: string[] }) => r.resources.includes('configmaps') && r.verbs.includes('list')))
    assert.ok(status.resourceRules.some((r: { resources: string[] }) => r.resources.includes('selfsubjectaccessreviews')))
    assert.ok(status.nonResourceRules.some((r: { nonResourceURLs: string[] }) => r.nonResourceURLs.includes('/healthz')))
    const elsewhere = await t.request({ method: 'POST', url: `${AUTHZ_V1}/selfsubjectrulesreviews`, payload: { spec: { namespace: 'default' } }, as: 'alice' })
    assert.ok(!elsewhere.json().status.resourceRules.some((r: { resources: string[] }) => r.resources.includes('configmaps')))
  })
})
