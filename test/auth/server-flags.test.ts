// The authentication flags end to end: the real server process, driven by kubectl.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { parseFlags } from '../../bin/flags.js'
import { freshDatabase } from '../helpers/postgres.js'
import { runServer, startServer } from '../helpers/server.js'
import { kubectlFor, writeUserKubeconfig } from '../helpers/kubectl.js'
import { EXEC_CREDENTIAL_GROUP } from '../../resources/naming.js'
import { ensureCertificates } from '../../auth/pki.js'

type T = { after (fn: () => unknown): void }

function tempDir (t: T): string {
  const dir = mkdtempSync(join(tmpdir(), 'server-flags-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function get (server: string, caPem: string, path: string): Promise<{ status: number, body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, server), { ca: caPem }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => { text += d.toString() })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** A kubeconfig whose user runs `plugin` (relative to the kubeconfig's directory) for credentials. */
function execKubeconfig (dir: string, name: string, server: string, caPem: string, credentialStatus: object): string {
  const plugin = `${name}.sh`
  const credential = { apiVersion: `${EXEC_CREDENTIAL_GROUP}/v1`, kind: 'ExecCredential', status: credentialStatus }
  // The plugin also records the input kubectl hands it, to show the exchange happened.
  writeFileSync(join(dir, plugin), `#!/bin/sh\nprintf '%s' "$KUBERNETES_EXEC_INFO" > "$(dirname "$0")/${name}.input"\ncat <<'JSON'\n${JSON.stringify(credential)}\nJSON\n`)
  chmodSync(join(dir, plugin), 0o755)
  return writeUserKubeconfig(join(dir, `${name}.kubeconfig`), {
    server, caPem, name, user: { exec: { apiVersion: `${EXEC_CREDENTIAL_GROUP}/v1`, command: `./${plugin}`, interactiveMode: 'Never' } }
  })
}

describe('authentication flags', () => {
  it('parses every authentication flag', () => {
    const f = parseFlags([
      '--cert-dir', '/c', '--api-audiences', 'a,b', '--enable-bootstrap-token-auth', '--controllers', '*,-tokencleaner',
      '--service-account-key-file', '/k1', '--service-account-key-file=/k2', '--service-account-signing-key-file', '/s',
      '--service-account-issuer', 'https://i1', '--service-account-issuer', 'https://i2', '--service-account-lookup=false',
      '--oidc-issuer-url', 'https://idp', '--oidc-client-id', 'cli', '--oidc-username-claim', 'email', '--oidc-username-prefix', '-',
      '--oidc-groups-claim', 'groups', '--oidc-groups-prefix', 'oidc:', '--oidc-required-claim', 'hd=example.com',
      '--oidc-required-claim', 'tier=gold', '--oidc-ca-file', '/ca', '--oidc-signing-algs', 'RS256,ES256',
      '--authentication-token-webhook-config-file', '/w', '--authentication-token-webhook-version', 'v1', '--authentication-token-webhook-cache-ttl', '30s',
      '--requestheader-client-ca-file', '/rh', '--requestheader-allowed-names', 'front-proxy', '--requestheader-username-headers', 'X-Remote-User',
      '--requestheader-uid-headers', 'X-Remote-Uid', '--requestheader-group-headers', 'X-Remote-Group', '--requestheader-extra-headers-prefix', 'X-Remote-Extra-',
      '--anonymous-auth=false', '--tls-cert-file', '/tc', '--tls-private-key-file', '/tk', '--client-ca-file', '/cc', '--token-auth-file', '/t'
    ], {})
    assert.deepEqual({ ...f, storageUrl: undefined }, {
      ...parseFlags([], {}), storageUrl: undefined,
      certDir: '/c', apiAudiences: ['a', 'b'], enableBootstrapTokenAuth: true, controllers: ['*', '-tokencleaner'],
      serviceAccountKeyFiles: ['/k1', '/k2'], serviceAccountSigningKeyFile: '/s', serviceAccountIssuers: ['https://i1', 'https://i2'], serviceAccountLookup: false,
      oidcIssuerUrl: 'https://idp', oidcClientId: 'cli', oidcUsernameClaim: 'email', oidcUsernamePrefix: '-', oidcGroupsClaim: 'groups', oidcGroupsPrefix: 'oidc:',
      oidcRequiredClaims: { hd: 'example.com', tier: 'gold' }, oidcCaFile: '/ca', oidcSigningAlgs: ['RS256', 'ES256'],
      authenticationTokenWebhookConfigFile: '/w', authenticationTokenWebhookVersion: 'v1', authenticationTokenWebhookCacheTtlMs: 30_000,
      requestheaderClientCaFile: '/rh', requestheaderAllowedNames: ['front-proxy'], requestheaderUsernameHeaders: ['X-Remote-User'],
      requestheaderUidHeaders: ['X-Remote-Uid'], requestheaderGroupHeaders: ['X-Remote-Group'], requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
      anonymousAuth: false, tlsCertFile: '/tc', tlsPrivateKeyFile: '/tk', clientCaFile: '/cc', tokenAuthFile: '/t'
    })
    const defaults = parseFlags([], {})
    assert.equal(defaults.anonymousAuth, true)
    assert.equal(defaults.serviceAccountLookup, true)
    assert.equal(defaults.authenticationTokenWebhookVersion, 'v1beta1')
    assert.equal(defaults.authenticationTokenWebhookCacheTtlMs, 120_000)
    assert.deepEqual(defaults.controllers, ['*'])
    assert.throws(() => parseFlags(['--authentication-token-webhook-version', 'v2'], {}), /v1 or v1beta1/)
    assert.throws(() => parseFlags(['--oidc-required-claim', 'novalue'], {}), /key=value/)
  })

  it('stops start-up on a malformed token file, naming the file and line', async (t) => {
    const dir = tempDir(t)
    const tokens = join(dir, 'tokens.csv')
    writeFileSync(tokens, 'good,alice,1\nbad-line-only-two,bob\n')
    const child = runServer(['--data-dir', join(dir, 'data'), '--storage-url', await freshDatabase(t), '--token-auth-file', tokens])
    let stderr = ''
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString() })
    const code = await new Promise<number | null>(resolve => child.once('exit', resolve))
    assert.equal(code, 1)
    assert.match(stderr, new RegExp(`error: token file '${tokens}:2' must have at least 3 columns`))
  })

  it('serves anonymous requests by default with certificates generated in --cert-dir, and TLS 1.2 at least', async (t) => {
    const dir = tempDir(t)
    const certDir = join(dir, 'certs')
    const { server, caPem, kubeconfig } = await startServer(t, ['--cert-dir', certDir], join(dir, 'data'))
    for (const f of ['ca.crt', 'apiserver.crt', 'apiserver.key', 'sa.key']) assert.ok(existsSync(join(certDir, f)), f)
    assert.equal(existsSync(join(dir, 'data', 'pki')), false)
    const anonymous = await get(server, caPem, '/api/v1/namespaces')
    assert.equal(anonymous.status, 403, 'anonymous is on, and the default Node,RBAC modes let it reach health and version only')
    const tls11 = new Promise<string>((resolve) => {
      const req = httpsRequest(new URL('/healthz', server), { ca: caPem, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }, () => resolve('connected'))
      req.on('error', (err) => resolve(err.message))
      req.end()
    })
    assert.notEqual(await tls11, 'connected')
    // kubectl's impersonation flags: the admin (system:masters) may impersonate.
    const as = await kubectlFor({ kubeconfig }).check(['--as', 'bob', '--as-group', 'system:masters', '--as-uid', '7', 'get', 'namespace', 'default', '-o', 'jsonpath={.metadata.name}'])
    assert.equal(as.stdout, 'default')
  })

  it('serves the --tls-cert-file pair and trusts --client-ca-file certificates', async (t) => {
    const dir = tempDir(t)
    const own = await ensureCertificates(join(dir, 'own'))
    const s = await startServer(t, [
      '--anonymous-auth=false', '--tls-cert-file', own.paths.servingCert, '--tls-private-key-file', own.paths.servingKey, '--client-ca-file', own.paths.caCert
    ], join(dir, 'data'))
    const call = (client: { cert?: string, key?: string }) => new Promise<number>((resolve, reject) => {
      // Verified against the operator's CA: the server presents the given certificate.
      const req = httpsRequest(new URL('/api/v1/namespaces', s.server), { ca: own.caCertPem, ...client }, (res) => { res.resume(); resolve(res.statusCode ?? 0) })
      req.on('error', reject)
      req.end()
    })
    assert.equal(await call({ cert: own.adminCertPem, key: own.adminKeyPem }), 200)
    assert.equal(await call({}), 401)
  })

  it('lets kubectl authenticate through exec credential plugins (token and client certificate) with --anonymous-auth=false', async (t) => {
    const dir = tempDir(t)
    const tokens = join(dir, 'tokens.csv')
    writeFileSync(tokens, 'exec-token,exec-user,uid-exec,"execs,system:masters"\n')
    const dataDir = join(dir, 'data')
    const { kubeconfig, server, caPem } = await startServer(t, ['--anonymous-auth=false', '--token-auth-file', tokens], dataDir)
    const anonymous = await get(server, caPem, '/api/v1/namespaces')
    assert.equal(anonymous.status, 401)
    assert.equal(anonymous.body.reason, 'Unauthorized')

    const kubectl = (config: string, ...args: string[]) => kubectlFor({ kubeconfig: config }).check(args)
    const withToken = execKubeconfig(dir, 'token-plugin', server, caPem, { token: 'exec-token' })
    const out = await kubectl(withToken, 'get', 'namespaces', '-o', 'name')
    assert.match(out.stdout, /namespace\/default/)
    const input = JSON.parse(readFileSync(join(dir, 'token-plugin.input'), 'utf8'))
    assert.equal(input.kind, 'ExecCredential')

    const admin = parse(readFileSync(kubeconfig, 'utf8')).users[0].user
    const pem = (b64: string) => Buffer.from(b64, 'base64').toString()
    const withCert = execKubeconfig(dir, 'cert-plugin', server, caPem, { clientCertificateData: pem(admin['client-certificate-data']), clientKeyData: pem(admin['client-key-data']) })
    assert.equal((await kubectl(withCert, 'get', 'namespace', 'default', '-o', 'jsonpath={.metadata.name}')).stdout, 'default')

    const wrong = execKubeconfig(dir, 'wrong-plugin', server, caPem, { token: 'not-a-token' })
    await assert.rejects(kubectl(wrong, 'get', 'namespaces'), (err: { stderr: string }) => /provide credentials|Unauthorized/.test(err.stderr))
  })
})
