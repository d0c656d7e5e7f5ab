// Each kind of bearer token, tried as a new user would: kubectl --token and curl against the
// real server process; expired, revoked and forged tokens get 401 with a Status body.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { startServer, type RunningServer } from '../helpers/server.js'
import { startOidcProvider } from '../helpers/oidc-provider.js'
import { startWebhook } from '../helpers/token-webhook.js'
import { eventually } from '../helpers/eventually.js'
import { kubectlFor, writeUserKubeconfig } from '../helpers/kubectl.js'
import { NAMESPACES, SECRET_TYPES, SERVICE_ACCOUNT_ANNOTATIONS } from '../../resources/naming.js'

const execFileP = promisify(execFile)
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }

/** A request as the admin (client certificate), JSON in and out. */
function asAdmin (s: RunningServer, method: string, path: string, body?: object): Promise<{ status: number, body: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = httpsRequest(new URL(path, s.server), {
      method, ca: s.caPem, cert: s.clientCertPem, key: s.clientKeyPem,
      headers: payload === undefined ? {} : { 'content-type': 'application/json' }
    }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => { text += d.toString() })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end(payload)
  })
}

describe('bearer tokens end to end', () => {
  it('let kubectl and curl in with static, bootstrap, service-account, OIDC and webhook tokens', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tokens-e2e-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const idp = await startOidcProvider(t, { jane: { email: 'jane@example.com', groups: ['dev'], hd: 'example.com' } })
    const hook = await startWebhook(t)
    writeFileSync(join(dir, 'tokens.csv'), 'static-token,sam,uid-sam,"ops"\n')
    writeFileSync(join(dir, 'oidc-ca.crt'), idp.caPem)
    // Authentication is under test here; AlwaysAllow keeps authorization out of the way.
    const s = await startServer(t, [
      '--authorization-mode', 'AlwaysAllow', '--anonymous-auth=false', '--token-auth-file', join(dir, 'tokens.csv'), '--enable-bootstrap-token-auth',
      '--oidc-issuer-url', idp.issuer, '--oidc-client-id', idp.clientId, '--oidc-ca-file', join(dir, 'oidc-ca.crt'), '--oidc-username-claim', 'email',
      '--authentication-token-webhook-config-file', hook.configFile
    ], join(dir, 'data'))
    writeFileSync(join(dir, 'ca.crt'), s.caPem)
    // A kubeconfig with the cluster only: the credentials come from --token.
    const bare = writeUserKubeconfig(join(dir, 'bare.kubeconfig'), { server: s.server, caPem: s.caPem, name: 'nobody', user: {} })
    const curl = async (token: string) => {
      const { stdout } = await execFileP('curl', ['-s', '--cacert', join(dir, 'ca.crt'), '-H', `Authorization: Bearer ${token}`, '-w', '\n%{http_code}', `${s.server}/api/v1/namespaces/default`])
      const lines = stdout.split('\n')
      return { status: Number(lines.at(-1)), body: JSON.parse(lines.slice(0, -1).join('\n')) }
    }
    const kubectl = (token: string) => kubectlFor({ kubeconfig: bare }).check(['--token', token, 'get', 'namespace', 'default', '-o', 'jsonpath={.metadata.name}'])

    // Bootstrap token and service-account tokens, set up by the admin.
    assert.equal((await asAdmin(s, 'POST', `/api/v1/namespaces/${NAMESPACES.system}/secrets`, {
      metadata: { name: 'bootstrap-token-abcdef' }, type: SECRET_TYPES.bootstrapToken,
      stringData: { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' }
    })).status, 201)
    assert.equal((await asAdmin(s, 'POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } })).status, 201)
    assert.equal((await asAdmin(s, 'POST', '/api/v1/namespaces/default/secrets', {
      metadata: { name: 'robot-token', annotations: { [SERVICE_ACCOUNT_ANNOTATIONS.name]: 'robot' } }, type: SECRET_TYPES.serviceAccountToken
    })).status, 201)
    const secretToken = await eventually(async () => {
      const secret = await asAdmin(s, 'GET', '/api/v1/namespaces/default/secrets/robot-token')
      assert.ok(secret.body.data?.token)
      return Buffer.from(secret.body.data.token, 'base64').toString()
    })
    const requested = await asAdmin(s, 'POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { apiVersion: 'authentication.svc.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } })
    assert.equal(requested.status, 201)

    const tokens = {
      static: 'static-token',
      bootstrap: 'abcdef.0123456789abcdef',
      serviceAccountSecret: secretToken,
      tokenRequest: requested.body.status.token as string,
      oidc: await idp.login('jane'),
      webhook: 'good'
    }
    for (const [kind, token] of Object.entries(tokens)) {
      const res = await curl(token)
      assert.equal(res.status, 200, `${kind}: ${JSON.stringify(res.body)}`)
      assert.equal((await kubectl(token)).stdout, 'default', kind)
    }

    // Forged (service-account token with another signature), revoked (its secret deleted), unknown.
    const [h, p] = secretToken.split('.')
    const forged = await curl(`${h}.${p}.${Buffer.from('not the signature').toString('base64url')}`)
    assert.equal(forged.status, 401)
    assert.deepEqual(forged.body, UNAUTHORIZED)
    assert.equal((await asAdmin(s, 'DELETE', '/api/v1/namespaces/default/secrets/robot-token')).status, 200)
    await eventually(async () => {
      const revoked = await curl(secretToken)
      assert.equal(revoked.status, 401)
      assert.deepEqual(revoked.body, UNAUTHORIZED)
    })
    await assert.rejects(kubectl(secretToken), (err: { stderr: string }) => /provide credentials|Unauthorized/.test(err.stderr))
    // Expired: a bootstrap token whose expiration has passed.
    assert.equal((await asAdmin(s, 'POST', `/api/v1/namespaces/${NAMESPACES.system}/secrets`, {
      metadata: { name: 'bootstrap-token-old000' }, type: SECRET_TYPES.bootstrapToken,
      stringData: { 'token-id': 'old000', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', expiration: '2020-01-01T00:00:00Z' }
    })).status, 201)
    const expired = await curl('old000.0123456789abcdef')
    assert.equal(expired.status, 401)
    assert.deepEqual(expired.body, UNAUTHORIZED)
  })
})
