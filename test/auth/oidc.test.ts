import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { decodeJwt } from 'jose'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { SHORT_LIVED, startOidcProvider } from '../helpers/oidc-provider.js'
import { usernamePrefixOf } from '../../auth/authenticators/oidc.js'

const ACCOUNTS = {
  jane: { email: 'jane@example.com', groups: ['admins', 'dev'], hd: 'example.com' },
  mallory: { email: 'mallory@elsewhere.org', groups: ['dev'], hd: 'elsewhere.org' },
  [SHORT_LIVED]: { email: 'short@example.com', groups: [], hd: 'example.com' }
}

const whoami = async (app: TestApp, token: string) => (await app.request({
  method: 'POST', url: '/apis/authentication.svc.io/v1/tokenreviews',
  payload: { apiVersion: 'authentication.svc.io/v1', kind: 'TokenReview', spec: { token } }
})).json().status

const asToken = (app: TestApp, token: string) => app.request({ method: 'GET', url: '/api/v1/namespaces', as: null, headers: { authorization: `Bearer ${token}` } })

describe('OpenID Connect', () => {
  it('accepts ID tokens of the provider with the email claim, groups claim and prefix, and required claims', async (t) => {
    const idp = await startOidcProvider(t, ACCOUNTS)
    const app = await buildTestApp(t, {
      oidc: { issuerUrl: idp.issuer, clientId: idp.clientId, caPem: idp.caPem, usernameClaim: 'email', groupsClaim: 'groups', groupsPrefix: 'oidc:', requiredClaims: { hd: 'example.com' } }
    })
    const jane = await idp.login('jane')
    assert.equal(decodeJwt(jane).iss, idp.issuer)
    assert.equal((await asToken(app, jane)).statusCode, 200)
    assert.deepEqual((await whoami(app, jane)).user, { username: 'jane@example.com', groups: ['oidc:admins', 'oidc:dev', 'system:authenticated'] })

    // A required claim with another value.
    const mallory = await idp.login('mallory')
    const rejected = await asToken(app, mallory)
    assert.equal(rejected.statusCode, 401)
    assert.deepEqual(rejected.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 })
    assert.match((await whoami(app, mallory)).error, /required claim hd value does not match/)

    // A forged token: the payload changed under the provider's signature.
    const [h, , s] = jane.split('.')
    const payload = Buffer.from(JSON.stringify({ ...decodeJwt(jane), email: 'root@example.com' })).toString('base64url')
    assert.equal((await asToken(app, `${h}.${payload}.${s}`)).statusCode, 401)

    // Expired.
    const short = await idp.login(SHORT_LIVED)
    assert.equal((await asToken(app, short)).statusCode, 200)
    // Past its exp (whole seconds), then a second more.
    await new Promise(resolve => setTimeout(resolve, Math.max(0, decodeJwt(short).exp! * 1000 - Date.now()) + 1100))
    assert.equal((await asToken(app, short)).statusCode, 401)
    assert.match((await whoami(app, short)).error, /expired/)
  })

  it('prefixes other username claims with the issuer, or the given prefix, and enforces client id and algorithms', async (t) => {
    const idp = await startOidcProvider(t, ACCOUNTS)
    const jane = await idp.login('jane')
    const byIssuer = await buildTestApp(t, { oidc: { issuerUrl: idp.issuer, clientId: idp.clientId, caPem: idp.caPem } })
    assert.deepEqual((await whoami(byIssuer, jane)).user, { username: `${idp.issuer}#jane`, groups: ['system:authenticated'] })

    const prefixed = await buildTestApp(t, { oidc: { issuerUrl: idp.issuer, clientId: idp.clientId, caPem: idp.caPem, usernamePrefix: 'corp:', groupsClaim: 'groups' } })
    assert.deepEqual((await whoami(prefixed, jane)).user, { username: 'corp:jane', groups: ['admins', 'dev', 'system:authenticated'] })

    const otherClient = await buildTestApp(t, { oidc: { issuerUrl: idp.issuer, clientId: 'someone-else', caPem: idp.caPem } })
    assert.equal((await asToken(otherClient, jane)).statusCode, 401)
    assert.match((await whoami(otherClient, jane)).error, /aud/)

    const onlyEs256 = await buildTestApp(t, { oidc: { issuerUrl: idp.issuer, clientId: idp.clientId, caPem: idp.caPem, signingAlgs: ['ES256'] } })
    assert.equal((await asToken(onlyEs256, jane)).statusCode, 401)

    // Without --oidc-ca-file the provider's certificate is not trusted: keys cannot be fetched.
    const untrusted = await buildTestApp(t, { oidc: { issuerUrl: idp.issuer, clientId: idp.clientId } })
    assert.equal((await asToken(untrusted, jane)).statusCode, 401)
    assert.match((await whoami(untrusted, jane)).error, /certificate/)
  })

  it('derives the username prefix from the flags', () => {
    const issuerUrl = 'https://idp.example'
    assert.equal(usernamePrefixOf({ issuerUrl, clientId: 'c' }), 'https://idp.example#')
    assert.equal(usernamePrefixOf({ issuerUrl, clientId: 'c', usernameClaim: 'email' }), '')
    assert.equal(usernamePrefixOf({ issuerUrl, clientId: 'c', usernamePrefix: '-' }), '')
    assert.equal(usernamePrefixOf({ issuerUrl, clientId: 'c', usernameClaim: 'email', usernamePrefix: 'mail:' }), 'mail:')
  })
})
