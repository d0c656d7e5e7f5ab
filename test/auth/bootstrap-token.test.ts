import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { NAMESPACES, SECRET_TYPES } from '../../resources/naming.js'

const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }

function tokenSecret (id: string, secret: string, extra: Record<string, string> = {}) {
  return {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${id}`, namespace: NAMESPACES.system },
    type: SECRET_TYPES.bootstrapToken,
    stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', ...extra }
  }
}

describe('bootstrap tokens', () => {
  it('authenticate as system:bootstrap:<id> with the extra groups, and reject expired, unusable or wrong ones', async (t) => {
    const { request } = await buildTestApp(t, { enableBootstrapTokenAuth: true, controllers: ['-tokencleaner'] })
    const secrets = `/api/v1/namespaces/${NAMESPACES.system}/secrets`
    const future = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z')
    const past = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z')
    for (const body of [
      tokenSecret('abcdef', '0123456789abcdef', { expiration: future, 'auth-extra-groups': 'system:bootstrappers:worker' }),
      tokenSecret('expire', '0123456789abcdef', { expiration: past }),
      tokenSecret('nouse0', '0123456789abcdef', { 'usage-bootstrap-authentication': 'false' }),
      tokenSecret('badgrp', '0123456789abcdef', { 'auth-extra-groups': 'developers' })
    ]) {
      const res = await request({ method: 'POST', url: secrets, payload: body })
      assert.equal(res.statusCode, 201, res.body)
    }
    const review = async (token: string) => (await request({
      method: 'POST', url: '/apis/authentication.svc.io/v1/tokenreviews',
      payload: { apiVersion: 'authentication.svc.io/v1', kind: 'TokenReview', spec: { token } }
    })).json().status

    const ok = await eventually(async () => {
      const s = await review('abcdef.0123456789abcdef')
      assert.equal(s.authenticated, true, JSON.stringify(s))
      return s
    })
    assert.deepEqual(ok.user, { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:worker', 'system:authenticated'] })

    const asToken = (token: string) => request({ method: 'GET', url: '/api/v1/namespaces', as: null, headers: { authorization: `Bearer ${token}` } })
    assert.equal((await asToken('abcdef.0123456789abcdef')).statusCode, 200)
    for (const [token, why] of [
      ['abcdef.0123456789abcdee', /different secret/],
      ['expire.0123456789abcdef', /expired/],
      ['nouse0.0123456789abcdef', /not usable for authentication/],
      ['badgrp.0123456789abcdef', /does not start with system:bootstrappers:/]
    ] as const) {
      const res = await asToken(token)
      assert.equal(res.statusCode, 401, token)
      assert.deepEqual(res.json(), UNAUTHORIZED)
      const s = await review(token)
      assert.equal(s.authenticated, undefined)
      assert.match(s.error, why)
    }
    // A token of the right shape with no secret behind it is unknown, still 401.
    assert.equal((await asToken('zzzzzz.0123456789abcdef')).statusCode, 401)
  })

  it('are not accepted without --enable-bootstrap-token-auth', async (t) => {
    const { request } = await buildTestApp(t, { controllers: ['-tokencleaner'] })
    await request({ method: 'POST', url: `/api/v1/namespaces/${NAMESPACES.system}/secrets`, payload: tokenSecret('abcdef', '0123456789abcdef') })
    const res = await request({ method: 'GET', url: '/api/v1/namespaces', as: null, headers: { authorization: 'Bearer abcdef.0123456789abcdef' } })
    assert.equal(res.statusCode, 401)
  })

  it('are deleted by the token cleaner once expired', async (t) => {
    const { request } = await buildTestApp(t, { enableBootstrapTokenAuth: true })
    const soon = new Date(Date.now() + 1500).toISOString()
    const url = `/api/v1/namespaces/${NAMESPACES.system}/secrets`
    assert.equal((await request({ method: 'POST', url, payload: tokenSecret('short0', '0123456789abcdef', { expiration: soon }) })).statusCode, 201)
    assert.equal((await request({ method: 'POST', url, payload: tokenSecret('long00', '0123456789abcdef') })).statusCode, 201)
    await eventually(async () => {
      assert.equal((await request({ method: 'GET', url: `${url}/bootstrap-token-short0` })).statusCode, 404)
    })
    assert.equal((await request({ method: 'GET', url: `${url}/bootstrap-token-long00` })).statusCode, 200)
  })
})
