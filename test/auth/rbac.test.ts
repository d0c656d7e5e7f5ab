// RBAC mode end to end through inject: default roles, Role/RoleBinding grants, the reference
// server's 403, resourceNames with field selectors, roleRef immutability and escalation checks.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { GROUPS, LABELS, RBAC } from '../../resources/naming.js'

const RBAC_V1 = `/apis/${GROUPS.rbac}/v1`

describe('RBAC mode', () => {
  let t: TestApp
  const cleanups: Array<() => unknown> = []
  before(async () => {
    t = await buildTestApp({ after: (fn) => { cleanups.push(fn) } }, { authorizationModes: ['Node', 'RBAC'], anonymousAuth: true })
  })
  after(async () => { for (const fn of cleanups.reverse()) await fn() })

  const create = async (url: string, payload: object, as: 'admin' | 'alice' | 'bob' = 'admin') => t.request({ method: 'POST', url, payload, as })

  it('creates the default roles and bindings, labelled and annotated', async () => {
    const res = await t.request({ method: 'GET', url: `${RBAC_V1}/clusterrolebindings/cluster-admin` })
    assert.equal(res.statusCode, 200, res.body)
    const crb = res.json()
    assert.deepEqual(crb.subjects, [{ kind: 'Group', apiGroup: GROUPS.rbac, name: 'system:masters' }])
    assert.equal(crb.metadata.labels[LABELS.bootstrapping], 'rbac-defaults')
    assert.equal(crb.metadata.annotations[RBAC.autoupdateAnnotation], 'true')
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer',
      'system:node', 'system:node-bootstrapper', `system:${GROUPS.certificates}:certificatesigningrequests:nodeclient`,
      `system:${GROUPS.certificates}:certificatesigningrequests:selfnodeclient`, 'system:auth-delegator', 'system:monitoring']) {
      const r = await t.request({ method: 'GET', url: `${RBAC_V1}/clusterroles/${encodeURIComponent(name)}` })
      assert.equal(r.statusCode, 200, `${name}: ${r.body}`)
    }
  })

  it('lets anonymous users reach health and version only', async () => {
    for (const url of ['/healthz', '/livez', '/readyz', '/version']) {
      const res = await t.request({ method: 'GET', url, as: null })
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
    }
    const api = await t.request({ method: 'GET', url: '/api', as: null })
    assert.equal(api.statusCode, 403)
    assert.deepEqual(api.json(), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, details: {},
      message: 'forbidden: User "system:anonymous" cannot get path "/api"'
    })
    const ns = await t.request({ method: 'GET', url: '/api/v1/namespaces', as: null })
    assert.equal(ns.statusCode, 403)
  })

  it('lets authenticated users reach discovery but not resources', async () => {
    assert.equal((await t.request({ method: 'GET', url: '/api', as: 'bob' })).statusCode, 200)
    assert.equal((await t.request({ method: 'GET', url: '/apis', as: 'bob' })).statusCode, 200)
    const res = await t.request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps/x', as: 'bob' })
    assert.equal(res.statusCode, 403)
    assert.equal(res.json().message, 'configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"')
    assert.deepEqual(res.json().details, { name: 'x', kind: 'configmaps' })
  })

  it('grants what a Role bound in a namespace grants, there only', async () => {
    assert.equal((await create('/api/v1/namespaces', { metadata: { name: 'team' } })).statusCode, 201)
    const role = await create(`${RBAC_V1}/namespaces/team/roles`, {
      metadata: { name: 'cm-editor' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'delete'] }]
    })
    assert.equal(role.statusCode, 201, role.body)
    const binding = await create(`${RBAC_V1}/namespaces/team/rolebindings`, {
      metadata: { name: 'alice-cm' },
      subjects: [{ kind: 'User', name: 'alice' }],
      roleRef: { apiGroup: GROUPS.rbac, kind: 'Role', name: 'cm-editor' }
    })
    assert.equal(binding.statusCode, 201, binding.body)
    assert.equal(binding.json().subjects[0].apiGroup, GROUPS.rbac, 'User subjects default to the RBAC group')

    assert.equal((await create('/api/v1/namespaces/team/configmaps', { metadata: { name: 'a' } }, 'alice')).statusCode, 201)
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/namespaces/team/configmaps/a', as: 'alice' })).statusCode, 200)
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/namespaces/team/configmaps', as: 'alice' })).statusCode, 200)
    const update = await t.request({ method: 'PUT', url: '/api/v1/namespaces/team/configmaps/a', payload: { metadata: { name: 'a' } }, as: 'alice' })
    assert.equal(update.statusCode, 403)
    assert.equal(update.json().message, 'configmaps "a" is forbidden: User "alice" cannot update resource "configmaps" in API group "" in the namespace "team"')
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps', as: 'alice' })).statusCode, 403)
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/namespaces/team/secrets', as: 'alice' })).statusCode, 403)
    assert.equal((await t.request({ method: 'DELETE', url: '/api/v1/namespaces/team/configmaps/a', as: 'alice' })).statusCode, 200)
  })

  it('grants a ClusterRole through a RoleBinding only in the binding namespace', async () => {
    const binding = await create(`${RBAC_V1}/namespaces/team/rolebindings`, {
      metadata: { name: 'bob-view' },
      subjects: [{ kind: 'User', name: 'bob', apiGroup: GROUPS.rbac }],
      roleRef: { apiGroup: GROUPS.rbac, kind: 'ClusterRole', name: 'view' }
    })
    assert.equal(binding.statusCode, 201, binding.body)
    // view aggregates its rules from system:aggregate-to-view through the aggregation controller.
    await waitFor(async () => (await t.request({ method: 'GET', url: '/api/v1/namespaces/team/configmaps', as: 'bob' })).statusCode === 200)
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps', as: 'bob' })).statusCode, 403)
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/namespaces/team/secrets', as: 'bob' })).statusCode, 403, 'view never reads secrets')
  })

  it('lets resourceNames allow a list only under a matching metadata.name field selector', async () => {
    await create(`${RBAC_V1}/namespaces/team/roles`, {
      metadata: { name: 'one-secret' },
      rules: [{ apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'], verbs: ['get', 'list', 'create', 'deletecollection'] }]
    })
    await create(`${RBAC_V1}/namespaces/team/rolebindings`, {
      metadata: { name: 'alice-one-secret' },
      subjects: [{ kind: 'User', name: 'alice' }],
      roleRef: { apiGroup: GROUPS.rbac, kind: 'Role', name: 'one-secret' }
    })
    await create('/api/v1/namespaces/team/secrets', { metadata: { name: 's1' } })
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/namespaces/team/secrets/s1', as: 'alice' })).statusCode, 200)
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/namespaces/team/secrets/s2', as: 'alice' })).statusCode, 403)
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/namespaces/team/secrets', as: 'alice' })).statusCode, 403)
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/namespaces/team/secrets?fieldSelector=metadata.name%3Ds1', as: 'alice' })).statusCode, 200)
    assert.equal((await t.request({ method: 'GET', url: '/api/v1/namespaces/team/secrets?fieldSelector=metadata.name%3Ds2', as: 'alice' })).statusCode, 403)
    assert.equal((await create('/api/v1/namespaces/team/secrets', { metadata: { name: 's1x' } }, 'alice')).statusCode, 403, 'resourceNames never allow create')
    assert.equal((await t.request({ method: 'DELETE', url: '/api/v1/namespaces/team/secrets', as: 'alice' })).statusCode, 403, 'nor deletecollection')
  })

  it('refuses to change a binding roleRef with 422', async () => {
    const res = await t.request({
      method: 'PUT',
      url: `${RBAC_V1}/namespaces/team/rolebindings/alice-cm`,
      payload: { metadata: { name: 'alice-cm' }, subjects: [{ kind: 'User', name: 'alice' }], roleRef: { apiGroup: GROUPS.rbac, kind: 'ClusterRole', name: 'admin' } }
    })
    assert.equal(res.statusCode, 422, res.body)
    assert.equal(res.json().reason, 'Invalid')
    assert.match(res.json().message, /roleRef: Invalid value: .*: cannot change roleRef/)
  })

  it('validates rules, subjects and names', async () => {
    const bad = await create(`${RBAC_V1}/clusterroles`, { metadata: { name: 'a/b' }, rules: [{ apiGroups: [''], resources: ['pods'] }] })
    assert.equal(bad.statusCode, 422)
    assert.deepEqual(bad.json().details.causes.map((c: { field: string }) => c.field).sort(), ['metadata.name', 'rules[0].verbs'])
    const urls = await create(`${RBAC_V1}/namespaces/team/roles`, { metadata: { name: 'r' }, rules: [{ nonResourceURLs: ['/x'], verbs: ['get'] }] })
    assert.equal(urls.statusCode, 422)
    assert.match(urls.json().message, /namespaced rules cannot apply to non-resource URLs/)
    const subject = await create(`${RBAC_V1}/clusterrolebindings`, {
      metadata: { name: 'b' }, subjects: [{ kind: 'Robot', name: 'r2' }, { kind: 'ServiceAccount', name: 'sa' }], roleRef: { apiGroup: GROUPS.rbac, kind: 'ClusterRole', name: 'view' }
    })
    assert.equal(subject.statusCode, 422)
    assert.deepEqual(subject.json().details.causes.map((c: { field: string }) => c.field), ['subjects[0].kind', 'subjects[1].namespace'])
    const ref = await create(`${RBAC_V1}/clusterrolebindings`, { metadata: { name: 'c' }, roleRef: { apiGroup: GROUPS.rbac, kind: 'Role', name: 'x' } })
    assert.equal(ref.statusCode, 422)
    assert.match(ref.json().message, /roleRef.kind: Unsupported value: "Role"/)
  })

  describe('escalation prevention', () => {
    before(async () => {
      // alice may manage roles and bindings in team, and holds configmap rights there.
      await create(`${RBAC_V1}/namespaces/team/roles`, {
        metadata: { name: 'rbac-manager' },
        // Not `*`: that would include escalate and bind.
        rules: [{ apiGroups: [GROUPS.rbac], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }]
      })
      await create(`${RBAC_V1}/namespaces/team/rolebindings`, {
        metadata: { name: 'alice-rbac' }, subjects: [{ kind: 'User', name: 'alice' }],
        roleRef: { apiGroup: GROUPS.rbac, kind: 'Role', name: 'rbac-manager' }
      })
    })

    it('lets a user create a role with rules it holds', async () => {
      const res = await create(`${RBAC_V1}/namespaces/team/roles`, {
        metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]
      }, 'alice')
      assert.equal(res.statusCode, 201, res.body)
    })

    it('refuses a role granting more, with the reference server message', async () => {
      const res = await create(`${RBAC_V1}/namespaces/team/roles`, {
        metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'watch'] }]
      }, 'alice')
      assert.equal(res.statusCode, 403, res.body)
      assert.equal(res.json().reason, 'Forbidden')
      assert.equal(res.json().message,
        `roles.${GROUPS.rbac} "secret-reader" is forbidden: user "alice" (groups=["developers" "qa" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n` +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["watch"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "watch"]}')
    })

    it('refuses a binding to a role whose rules the user lacks, allows one it holds', async () => {
      const denied = await create(`${RBAC_V1}/namespaces/team/rolebindings`, {
        metadata: { name: 'alice-admin' }, subjects: [{ kind: 'User', name: 'alice' }],
        roleRef: { apiGroup: GROUPS.rbac, kind: 'ClusterRole', name: 'cluster-admin' }
      }, 'alice')
      assert.equal(denied.statusCode, 403, denied.body)
      assert.match(denied.json().message, /is attempting to grant RBAC permissions not currently held/)
      const allowed = await create(`${RBAC_V1}/namespaces/team/rolebindings`, {
        metadata: { name: 'bob-cm-reader' }, subjects: [{ kind: 'User', name: 'bob' }],
        roleRef: { apiGroup: GROUPS.rbac, kind: 'Role', name: 'cm-reader' }
      }, 'alice')
      assert.equal(allowed.statusCode, 201, allowed.body)
    })

    it('allows escalate and bind when granted those verbs', async () => {
      await create(`${RBAC_V1}/clusterroles`, {
        metadata: { name: 'escalator' },
        rules: [
          { apiGroups: [GROUPS.rbac], resources: ['roles'], verbs: ['escalate'] },
          { apiGroups: [GROUPS.rbac], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['edit'] }
        ]
      })
      await create(`${RBAC_V1}/namespaces/team/rolebindings`, {
        metadata: { name: 'alice-escalator' }, subjects: [{ kind: 'User', name: 'alice' }],
        roleRef: { apiGroup: GROUPS.rbac, kind: 'ClusterRole', name: 'escalator' }
      })
      const role = await create(`${RBAC_V1}/namespaces/team/roles`, {
        metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]
      }, 'alice')
      assert.equal(role.statusCode, 201, role.body)
      const binding = await create(`${RBAC_V1}/namespaces/team/rolebindings`, {
        metadata: { name: 'bob-edit' }, subjects: [{ kind: 'User', name: 'bob' }],
        roleRef: { apiGroup: GROUPS.rbac, kind: 'ClusterRole', name: 'edit' }
      }, 'alice')
      assert.equal(binding.statusCode, 201, binding.body)
      const other = await create(`${RBAC_V1}/namespaces/team/rolebindings`, {
        metadata: { name: 'bob-admin' }, subjects: [{ kind: 'User', name: 'bob' }],
        roleRef: { apiGroup: GROUPS.rbac, kind: 'ClusterRole', name: 'admin' }
      }, 'alice')
      assert.equal(other.statusCode, 403, 'bind is limited to the named role')
    })

    it('answers 404 for a binding to a missing role', async () => {
      const res = await create(`${RBAC_V1}/namespaces/team/rolebindings`, {
        metadata: { name: 'ghost' }, subjects: [{ kind: 'User', name: 'bob' }],
        roleRef: { apiGroup: GROUPS.rbac, kind: 'Role', name: 'ghost' }
      }, 'alice')
      assert.equal(res.statusCode, 404, res.body)
    })
  })
})

async function waitFor (check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (await check()) return
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  assert.fail('condition not met in time')
}
