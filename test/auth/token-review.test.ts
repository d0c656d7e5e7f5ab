import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { parseTokenFile } from '../../auth/authenticators/token-file.js'

const URL = '/apis/authentication.svc.io/v1/tokenreviews'
const body = (spec: object) => ({ apiVersion: 'authentication.svc.io/v1', kind: 'TokenReview', spec })

describe('tokenreviews', () => {
  it('answers who a token stands for without storing the review', async (t) => {
    const { request } = await buildTestApp(t)
    const res = await request({ method: 'POST', url: URL, payload: body({ token: 'alice-token' }) })
    assert.equal(res.statusCode, 201)
    assert.deepEqual(res.json(), {
      kind: 'TokenReview', apiVersion: 'authentication.svc.io/v1', metadata: { creationTimestamp: null },
      spec: { token: 'alice-token' },
      status: { authenticated: true, user: { username: 'alice', uid: 'uid-alice', groups: ['developers', 'qa', 'system:authenticated'] } }
    })
    const unknown = await request({ method: 'POST', url: URL, payload: body({ token: 'nope' }) })
    assert.deepEqual(unknown.json().status, { user: {} })

    // Static tokens are good for the API audiences only.
    const api = await request({ method: 'POST', url: URL, payload: body({ token: 'bob-token', audiences: ['https://kubernetes.default.svc', 'other'] }) })
    assert.deepEqual(api.json().status.audiences, ['https://kubernetes.default.svc'])
    const other = await request({ method: 'POST', url: URL, payload: body({ token: 'bob-token', audiences: ['other'] }) })
    assert.equal(other.json().status.authenticated, undefined)
    assert.match(other.json().status.error, /audiences/)

    const empty = await request({ method: 'POST', url: URL, payload: body({}) })
    assert.equal(empty.statusCode, 400)
    assert.equal(empty.json().message, 'token is required for TokenReview in authentication')
    const wrongKind = await request({ method: 'POST', url: URL, payload: { apiVersion: 'authentication.svc.io/v1', kind: 'Secret', spec: { token: 'x' } } })
    assert.equal(wrongKind.statusCode, 400)
    assert.equal((await request({ method: 'GET', url: URL })).statusCode, 405)
    assert.equal((await request({ method: 'GET', url: `${URL}/x` })).statusCode, 405)

    const discovery = (await request({ method: 'GET', url: '/apis/authentication.svc.io/v1' })).json()
    assert.deepEqual(discovery.resources.find((r: { name: string }) => r.name === 'tokenreviews'), {
      name: 'tokenreviews', singularName: 'tokenreview', namespaced: false, kind: 'TokenReview', verbs: ['create']
    })
    const core = (await request({ method: 'GET', url: '/api/v1' })).json()
    assert.deepEqual(core.resources.find((r: { name: string }) => r.name === 'serviceaccounts/token')?.verbs, ['create'])
  })
})

describe('static token file and anonymous', () => {
  it('rejects an invalid bearer token with 401 even with anonymous access on', async (t) => {
    const { request } = await buildTestApp(t, { anonymousAuth: true })
    assert.equal((await request({ method: 'GET', url: '/api/v1/namespaces', as: null })).statusCode, 200)
    const bad = await request({ method: 'GET', url: '/api/v1/namespaces', as: null, headers: { authorization: 'Bearer wrong' } })
    assert.equal(bad.statusCode, 401)
    assert.deepEqual(bad.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 })
  })

  it('rejects requests without credentials when anonymous access is off', async (t) => {
    const { request } = await buildTestApp(t)
    assert.equal((await request({ method: 'GET', url: '/api/v1/namespaces', as: null })).statusCode, 401)
  })

  const cases = [
    { name: 'reads quoted group lists', text: 'tok,user,uid,"a,b"\n# comment\n\ntok2,user2,uid2', want: [['tok', { username: 'user', uid: 'uid', groups: ['a', 'b'] }], ['tok2', { username: 'user2', uid: 'uid2', groups: [] }]] },
    { name: 'rejects short lines', text: 'tok,user', error: /f\.csv:1' must have at least 3 columns/ },
    { name: 'rejects duplicate tokens', text: 'tok,a,1\ntok,b,2', error: /f\.csv:2': duplicate token/ },
    { name: 'rejects empty user names', text: 'tok,,1', error: /user name must not be empty/ },
    { name: 'rejects broken quotes', text: 'tok,a,1,"g', error: /f\.csv:1: extraneous or missing "/ }
  ]
  for (const c of cases) {
    it(`token file ${c.name}`, () => {
      if (c.error !== undefined) assert.throws(() => parseTokenFile(c.text, 'f.csv'), c.error)
      else assert.deepEqual([...parseTokenFile(c.text, 'f.csv')], c.want)
    })
  }
})
