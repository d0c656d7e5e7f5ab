import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { buildTestApp } from '../helpers/app.js'
import type { Attributes } from '../../resources/authorization.js'

describe('impersonation', () => {
  it('runs the request as the target once each impersonated attribute is allowed', async (t) => {
    const { app, request } = await buildTestApp(t, { authorizationModes: [] })
    const asked: Attributes[] = []
    // Alice may impersonate bob, group qa, extra scopes=view, uid 42 and the ci service account.
    app.authz.add('Test', (a) => {
      asked.push(a)
      if (a.verb !== 'impersonate') return { decision: 'Allow' }
      if (a.user.username !== 'alice') return { decision: 'NoOpinion' }
      const allowed = (a.resource === 'users' && a.name === 'bob') || (a.resource === 'groups' && (a.name === 'qa' || a.name === 'dev')) ||
        (a.resource === 'userextras' && a.subresource === 'scopes' && a.name === 'view') ||
        (a.resource === 'uids' && a.apiGroup === 'authentication.svc.io' && a.name === '42') ||
        (a.resource === 'serviceaccounts' && a.namespace === 'build' && a.name === 'ci')
      return { decision: allowed ? 'Allow' : 'NoOpinion' }
    })
    const last = () => asked.at(-1)!

    const res = await request({
      method: 'GET', url: '/api/v1/namespaces/default/configmaps', as: 'alice',
      headers: { 'impersonate-user': 'bob', 'impersonate-group': 'qa', 'impersonate-extra-scopes': 'view', 'impersonate-uid': '42' }
    })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(asked.filter(a => a.verb === 'impersonate').map(a => [a.apiGroup, a.resource, a.subresource, a.name]), [
      ['', 'users', '', 'bob'], ['', 'groups', '', 'qa'], ['', 'userextras', 'scopes', 'view'], ['authentication.svc.io', 'uids', '', '42']
    ])
    assert.deepEqual(last().user, { username: 'bob', uid: '42', groups: ['qa', 'system:authenticated'], extra: { scopes: ['view'] } })

    // Repeated headers are separate groups and values (over the wire: inject joins them).
    await app.listen({ port: 0, host: '127.0.0.1' })
    const repeated = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1', port: (app.server.address() as AddressInfo).port, path: '/api/v1/namespaces/default/configmaps',
        headers: { authorization: 'Bearer alice-token', 'impersonate-user': 'bob', 'impersonate-group': ['qa', 'dev'], 'impersonate-extra-scopes': ['view', 'view'] }
      }, (res) => { res.resume(); resolve(res.statusCode ?? 0) })
      req.on('error', reject)
      req.end()
    })
    assert.equal(repeated, 200)
    assert.deepEqual(last().user, { username: 'bob', groups: ['qa', 'dev', 'system:authenticated'], extra: { scopes: ['view', 'view'] } })

    asked.length = 0
    const sa = await request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps', as: 'alice', headers: { 'impersonate-user': 'system:serviceaccount:build:ci' } })
    assert.equal(sa.statusCode, 200)
    assert.deepEqual([asked[0]!.resource, asked[0]!.namespace, asked[0]!.name], ['serviceaccounts', 'build', 'ci'])
    assert.deepEqual(last().user, { username: 'system:serviceaccount:build:ci', groups: ['system:serviceaccounts', 'system:serviceaccounts:build', 'system:authenticated'] })

    const denied = await request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps', as: 'alice', headers: { 'impersonate-user': 'bob', 'impersonate-group': 'system:masters' } })
    assert.equal(denied.statusCode, 403)
    assert.deepEqual(denied.json(), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
      details: { name: 'system:masters', kind: 'groups' }
    })
    const bobCannot = await request({ method: 'GET', url: '/api/v1/namespaces', as: 'bob', headers: { 'impersonate-user': 'admin' } })
    assert.equal(bobCannot.statusCode, 403)
    assert.equal(bobCannot.json().message, 'users "admin" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope')
  })

  it('rejects Impersonate-Group, -Extra or -Uid without Impersonate-User as a bad request', async (t) => {
    const { request } = await buildTestApp(t)
    for (const headers of [{ 'impersonate-group': 'qa' }, { 'impersonate-extra-scopes': 'x' }, { 'impersonate-uid': '1' }]) {
      const res = await request({ method: 'GET', url: '/api/v1/namespaces', as: 'admin', headers })
      assert.equal(res.statusCode, 400)
      assert.equal(res.json().reason, 'BadRequest')
      assert.match(res.json().message, /without impersonating a user/)
    }
  })

  it('is forbidden under AlwaysDeny', async (t) => {
    const { request } = await buildTestApp(t, { authorizationModes: ['AlwaysDeny'] })
    const res = await request({ method: 'GET', url: '/api/v1/namespaces', as: 'alice', headers: { 'impersonate-user': 'bob' } })
    assert.equal(res.statusCode, 403)
    assert.equal(res.json().message, 'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.')
  })

  it('lets AlwaysAllow impersonate anyone, anonymous included', async (t) => {
    const { request } = await buildTestApp(t, { authorizationModes: ['AlwaysAllow'] })
    const res = await request({ method: 'GET', url: '/api/v1/namespaces', as: 'bob', headers: { 'impersonate-user': 'system:anonymous' } })
    assert.equal(res.statusCode, 200)
  })
})
