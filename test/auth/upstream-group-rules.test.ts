// RBAC rules copied from upstream manifests name groups in their upstream spelling: they grant the
// same resources as ours, asked for in either spelling, by requests and by access reviews.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { GROUPS, upstreamGroup } from '../../resources/naming.js'

test('a Role naming coordination.k8s.io grants leases through either spelling', async (t) => {
  const { request } = await buildTestApp(t, { authorizationModes: ['RBAC'] })
  const rbac = `/apis/${upstreamGroup('rbac.authorization')}/v1/namespaces/default`
  const role = await request({
    method: 'POST', url: `${rbac}/roles`,
    payload: { apiVersion: `${upstreamGroup('rbac.authorization')}/v1`, kind: 'Role', metadata: { name: 'lease-reader' }, rules: [{ apiGroups: [upstreamGroup('coordination')], resources: ['leases'], verbs: ['get', 'create'] }] }
  })
  assert.equal(role.statusCode, 201, role.body)
  const binding = await request({
    method: 'POST', url: `${rbac}/rolebindings`,
    payload: { apiVersion: `${upstreamGroup('rbac.authorization')}/v1`, kind: 'RoleBinding', metadata: { name: 'lease-reader' }, roleRef: { apiGroup: upstreamGroup('rbac.authorization'), kind: 'Role', name: 'lease-reader' }, subjects: [{ kind: 'User', apiGroup: upstreamGroup('rbac.authorization'), name: 'bob' }] }
  })
  assert.equal(binding.statusCode, 201, binding.body)

  for (const group of [GROUPS.coordination, upstreamGroup('coordination')]) {
    const name = `held-${group.replaceAll('.', '-')}`
    const created = await request({ method: 'POST', url: `/apis/${group}/v1/namespaces/default/leases`, as: 'bob', payload: { apiVersion: `${group}/v1`, kind: 'Lease', metadata: { name } } })
    assert.equal(created.statusCode, 201, `${group}: ${created.body}`)
    assert.equal((await request({ method: 'GET', url: `/apis/${group}/v1/namespaces/default/leases/${name}`, as: 'bob' })).statusCode, 200)
    const review = await request({
      method: 'POST', url: `/apis/${GROUPS.authorization}/v1/selfsubjectaccessreviews`, as: 'bob',
      payload: { spec: { resourceAttributes: { namespace: 'default', verb: 'get', group, resource: 'leases' } } }
    })
    assert.equal(review.json().status.allowed, true, `${group}: ${review.body}`)
  }
  const refused = await request({ method: 'GET', url: `/apis/${upstreamGroup('storage')}/v1/storageclasses`, as: 'bob' })
  assert.equal(refused.statusCode, 403)
  assert.equal(refused.json().message, `storageclasses.${upstreamGroup('storage')} is forbidden: User "bob" cannot list resource "storageclasses" in API group "${upstreamGroup('storage')}" at the cluster scope`)
})
