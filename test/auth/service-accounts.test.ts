import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync, createPrivateKey } from 'node:crypto'
import { SignJWT, decodeProtectedHeader } from 'jose'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, ROOT_CA_CONFIGMAP, SECRET_TYPES, SERVICE_ACCOUNT_ANNOTATIONS } from '../../resources/naming.js'

const pem = (k: { export (o: object): string | Buffer }): string => k.export({ type: 'pkcs8', format: 'pem' }).toString()
const signingKeyPem = pem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey)
const otherKeyPem = pem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey)
const ROOT_CA = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n'

const asToken = (app: TestApp, token: string, url = '/api/v1/namespaces/default/configmaps') =>
  app.request({ method: 'GET', url, as: null, headers: { authorization: `Bearer ${token}` } })

async function createNamespace (app: TestApp, name: string): Promise<void> {
  assert.equal((await app.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name } } })).statusCode, 201)
}

async function requestToken (app: TestApp, ns: string, name: string, spec: object = {}) {
  return app.request({
    method: 'POST', url: `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`,
    payload: { apiVersion: 'authentication.svc.io/v1', kind: 'TokenRequest', spec }
  })
}

async function review (app: TestApp, token: string, audiences?: string[]) {
  const res = await app.request({
    method: 'POST', url: '/apis/authentication.svc.io/v1/tokenreviews',
    payload: { apiVersion: 'authentication.svc.io/v1', kind: 'TokenReview', spec: { token, ...(audiences === undefined ? {} : { audiences }) } }
  })
  assert.equal(res.statusCode, 201, res.body)
  return res.json()
}

describe('service accounts', () => {
  it('get a default account and the root CA ConfigMap in every namespace', async (t) => {
    const app = await buildTestApp(t, { rootCAPem: ROOT_CA })
    await createNamespace(app, 'team-a')
    for (const ns of ['default', 'team-a']) {
      await eventually(async () => {
        const sa = await app.request({ method: 'GET', url: `/api/v1/namespaces/${ns}/serviceaccounts/default` })
        assert.equal(sa.statusCode, 200)
        const cm = await app.request({ method: 'GET', url: `/api/v1/namespaces/${ns}/configmaps/${ROOT_CA_CONFIGMAP}` })
        assert.equal(cm.statusCode, 200)
        assert.deepEqual(cm.json().data, { 'ca.crt': ROOT_CA })
      })
    }
    // A changed CA certificate is put back.
    await app.request({ method: 'PATCH', url: `/api/v1/namespaces/team-a/configmaps/${ROOT_CA_CONFIGMAP}`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ data: { 'ca.crt': 'x' } }) })
    await eventually(async () => {
      const cm = await app.request({ method: 'GET', url: `/api/v1/namespaces/team-a/configmaps/${ROOT_CA_CONFIGMAP}` })
      assert.equal(cm.json().data['ca.crt'], ROOT_CA)
    })
    const table = await app.request({ method: 'GET', url: '/api/v1/namespaces/default/serviceaccounts', headers: { accept: 'application/json;as=Table;v=v1;g=meta.svc.io' } })
    assert.deepEqual(table.json().columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Secrets', 'Age'])
  })

  it('authenticate with the token controller\'s secret tokens, revoked when the secret or account goes', async (t) => {
    const app = await buildTestApp(t, { rootCAPem: ROOT_CA, serviceAccounts: { signingKeyPem } })
    await createNamespace(app, 'ns1')
    assert.equal((await app.request({ method: 'POST', url: '/api/v1/namespaces/ns1/serviceaccounts', payload: { metadata: { name: 'builder' }, automountServiceAccountToken: false, imagePullSecrets: [{ name: 'registry' }] } })).statusCode, 201)
    assert.equal((await app.request({
      method: 'POST', url: '/api/v1/namespaces/ns1/secrets',
      payload: { metadata: { name: 'builder-token', annotations: { [SERVICE_ACCOUNT_ANNOTATIONS.name]: 'builder' } }, type: SECRET_TYPES.serviceAccountToken }
    })).statusCode, 201)
    const secret = await eventually(async () => {
      const s = (await app.request({ method: 'GET', url: '/api/v1/namespaces/ns1/secrets/builder-token' })).json()
      assert.ok(s.data?.token, JSON.stringify(s))
      return s
    })
    assert.equal(Buffer.from(secret.data.namespace, 'base64').toString(), 'ns1')
    assert.equal(Buffer.from(secret.data['ca.crt'], 'base64').toString(), ROOT_CA)
    const token = Buffer.from(secret.data.token, 'base64').toString()

    const status = (await review(app, token)).status
    assert.equal(status.authenticated, true)
    assert.equal(status.user.username, 'system:serviceaccount:ns1:builder')
    assert.deepEqual(status.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'])
    assert.equal((await asToken(app, token)).statusCode, 200)

    // Deleting the secret revokes its token.
    await app.request({ method: 'DELETE', url: '/api/v1/namespaces/ns1/secrets/builder-token' })
    const revoked = await eventually(async () => {
      const r = await asToken(app, token)
      assert.equal(r.statusCode, 401)
      return r
    })
    assert.equal(revoked.statusCode, 401)
    assert.equal(revoked.json().reason, 'Unauthorized')
    assert.match((await review(app, token)).status.error, /secret ns1\/builder-token has been deleted/)

    // The token controller deletes the token secrets of an account that is gone.
    await app.request({
      method: 'POST', url: '/api/v1/namespaces/ns1/secrets',
      payload: { metadata: { name: 'builder-token-2', annotations: { [SERVICE_ACCOUNT_ANNOTATIONS.name]: 'builder' } }, type: SECRET_TYPES.serviceAccountToken }
    })
    await eventually(async () => assert.ok((await app.request({ method: 'GET', url: '/api/v1/namespaces/ns1/secrets/builder-token-2' })).json().data?.token))
    await app.request({ method: 'DELETE', url: '/api/v1/namespaces/ns1/serviceaccounts/builder' })
    await eventually(async () => assert.equal((await app.request({ method: 'GET', url: '/api/v1/namespaces/ns1/secrets/builder-token-2' })).statusCode, 404))
  })

  it('sign the token controller\'s tokens with --service-account-private-key-file, accepted only where --service-account-key-file holds its public key', async (t) => {
    const controllerKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const controllerKeyPem = pem(controllerKey.privateKey)
    const controllerPublicPem = controllerKey.publicKey.export({ type: 'spki', format: 'pem' }).toString()
    const secretToken = async (app: TestApp): Promise<string> => {
      await app.request({
        method: 'POST', url: '/api/v1/namespaces/default/secrets',
        payload: { metadata: { name: 'default-token', annotations: { [SERVICE_ACCOUNT_ANNOTATIONS.name]: 'default' } }, type: SECRET_TYPES.serviceAccountToken }
      })
      return eventually(async () => {
        const s = (await app.request({ method: 'GET', url: '/api/v1/namespaces/default/secrets/default-token' })).json()
        assert.ok(s.data?.token, JSON.stringify(s))
        return Buffer.from(s.data.token, 'base64').toString()
      })
    }

    const matched = await buildTestApp(t, { serviceAccounts: { signingKeyPem, legacySigningKeyPem: controllerKeyPem, verifyKeyPems: [signingKeyPem, controllerPublicPem] } })
    const token = await secretToken(matched)
    assert.equal(decodeProtectedHeader(token).alg, 'ES256')
    assert.equal((await review(matched, token)).status.user.username, 'system:serviceaccount:default:default')
    assert.equal((await asToken(matched, token)).statusCode, 200)
    // The bound tokens keep the signing key.
    const bound = await eventually(async () => {
      const r = await requestToken(matched, 'default', 'default')
      assert.equal(r.statusCode, 201)
      return r.json().status.token as string
    })
    assert.equal(decodeProtectedHeader(bound).alg, 'RS256')

    // A server not told the controller's public key refuses its tokens, as the reference does.
    const unmatched = await buildTestApp(t, { serviceAccounts: { signingKeyPem, legacySigningKeyPem: controllerKeyPem } })
    const refused = await asToken(unmatched, await secretToken(unmatched))
    assert.equal(refused.statusCode, 401)
    assert.equal(refused.json().reason, 'Unauthorized')
  })

  it('issue bound tokens through serviceaccounts/<name>/token with audiences, expiry and a bound object', async (t) => {
    const app = await buildTestApp(t, { serviceAccounts: { signingKeyPem } })
    await eventually(async () => assert.equal((await app.request({ method: 'GET', url: '/api/v1/namespaces/default/serviceaccounts/default' })).statusCode, 200))

    const res = await requestToken(app, 'default', 'default')
    assert.equal(res.statusCode, 201, res.body)
    const tr = res.json()
    assert.equal(tr.kind, 'TokenRequest')
    assert.equal(tr.apiVersion, 'authentication.svc.io/v1')
    assert.deepEqual(tr.spec, { expirationSeconds: 3600, audiences: [DEFAULT_SERVICE_ACCOUNT_ISSUER] })
    const lifetime = Date.parse(tr.status.expirationTimestamp) - Date.now()
    assert.ok(lifetime > 3590_000 && lifetime <= 3600_000, String(lifetime))
    const whoami = (await review(app, tr.status.token)).status
    assert.equal(whoami.user.username, 'system:serviceaccount:default:default')
    assert.match(whoami.user.extra['authentication.svc.io/credential-id'][0], /^JTI=/)
    assert.equal((await asToken(app, tr.status.token)).statusCode, 200)

    // Below the 10 minute minimum.
    const short = await requestToken(app, 'default', 'default', { expirationSeconds: 599 })
    assert.equal(short.statusCode, 422)
    assert.equal(short.json().reason, 'Invalid')
    assert.deepEqual(short.json().details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: 599: may not specify a duration less than 10 minutes', field: 'spec.expirationSeconds' }])
    assert.equal((await requestToken(app, 'default', 'missing')).statusCode, 404)
    assert.equal((await app.request({ method: 'GET', url: '/api/v1/namespaces/default/serviceaccounts/default/token' })).statusCode, 405)

    // Audiences: the token only counts for its own.
    const aud = (await requestToken(app, 'default', 'default', { audiences: ['vault'] })).json().status.token
    assert.equal((await asToken(app, aud)).statusCode, 401)
    const forVault = (await review(app, aud, ['vault', 'other'])).status
    assert.equal(forVault.authenticated, true)
    assert.deepEqual(forVault.audiences, ['vault'])
    assert.match((await review(app, aud, ['other'])).status.error, /audiences/)

    // Bound to a secret: deleting it revokes the token; a uid mismatch is a conflict.
    const created = (await app.request({ method: 'POST', url: '/api/v1/namespaces/default/secrets', payload: { metadata: { name: 'anchor' } } })).json()
    assert.equal((await requestToken(app, 'default', 'default', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'anchor', uid: 'other' } })).statusCode, 409)
    assert.equal((await requestToken(app, 'default', 'default', { boundObjectRef: { kind: 'ConfigMap', name: 'anchor' } })).statusCode, 400)
    const bound = (await requestToken(app, 'default', 'default', { boundObjectRef: { kind: 'Secret', name: 'anchor' } })).json()
    assert.deepEqual(bound.spec.boundObjectRef, { kind: 'Secret', apiVersion: 'v1', name: 'anchor', uid: created.metadata.uid })
    assert.equal((await asToken(app, bound.status.token)).statusCode, 200)
    await app.request({ method: 'DELETE', url: '/api/v1/namespaces/default/secrets/anchor' })
    // Lookups read the watch caches, which follow the write within moments.
    await eventually(async () => assert.equal((await asToken(app, bound.status.token)).statusCode, 401))
    assert.match((await review(app, bound.status.token)).status.error, /bound secret default\/anchor has been deleted/)

    // Deleting and recreating the account revokes its tokens (uid differs).
    await app.request({ method: 'DELETE', url: '/api/v1/namespaces/default/serviceaccounts/default' })
    await eventually(async () => assert.equal((await app.request({ method: 'GET', url: '/api/v1/namespaces/default/serviceaccounts/default' })).statusCode, 200))
    await eventually(async () => assert.match((await review(app, tr.status.token)).status.error, /service account UID .* does not match claim/))
    assert.equal((await asToken(app, tr.status.token)).statusCode, 401)
  })

  it('reject expired and forged tokens, and keep tokens of deleted accounts without --service-account-lookup', async (t) => {
    const app = await buildTestApp(t, { serviceAccounts: { signingKeyPem, lookup: false } })
    const now = Math.floor(Date.now() / 1000)
    const claims = { sub: 'system:serviceaccount:default:ghost', aud: [DEFAULT_SERVICE_ACCOUNT_ISSUER], 'svc.io': { namespace: 'default', serviceaccount: { name: 'ghost', uid: 'u1' } } }
    const sign = (keyPem: string, iat: number, exp: number) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).setIssuer(DEFAULT_SERVICE_ACCOUNT_ISSUER).setIssuedAt(iat).setExpirationTime(exp).sign(createPrivateKey(keyPem))

    const valid = await sign(signingKeyPem, now, now + 600)
    assert.equal((await asToken(app, valid)).statusCode, 200, 'no lookup: an account that does not exist is not checked')
    const expired = await asToken(app, await sign(signingKeyPem, now - 7200, now - 3600))
    assert.equal(expired.statusCode, 401)
    assert.deepEqual(expired.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 })
    assert.match((await review(app, await sign(signingKeyPem, now - 7200, now - 3600))).status.error, /expired/)
    const forged = await sign(otherKeyPem, now, now + 600)
    assert.equal((await asToken(app, forged)).statusCode, 401)
    assert.match((await review(app, forged)).status.error, /could not be verified/)
  })

  it('verify tokens signed by any --service-account-key-file key and honour --service-account-issuer', async (t) => {
    const publicOther = createPrivateKey(otherKeyPem)
    const app = await buildTestApp(t, {
      serviceAccounts: { signingKeyPem, verifyKeyPems: [signingKeyPem, otherKeyPem], issuers: ['https://issuer.example', 'https://old.example'], lookup: false }
    })
    const now = Math.floor(Date.now() / 1000)
    const claims = { aud: ['https://issuer.example'], 'svc.io': { namespace: 'default', serviceaccount: { name: 'x', uid: 'u' } } }
    const old = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).setIssuer('https://old.example').setIssuedAt(now).setExpirationTime(now + 600).sign(publicOther)
    assert.equal((await asToken(app, old)).statusCode, 200)
    const issued = (await eventually(async () => {
      const r = await requestToken(app, 'default', 'default')
      assert.equal(r.statusCode, 201)
      return r
    })).json()
    assert.deepEqual(issued.spec.audiences, ['https://issuer.example'])
    assert.equal((await asToken(app, issued.status.token)).statusCode, 200)
  })
})
