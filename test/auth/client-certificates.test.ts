import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AppOptions } from '../../server/app.js'
import { ensureCertificates, type Pki } from '../../auth/pki.js'
import { buildTestApp } from '../helpers/app.js'
import type { UserInfo } from '../../resources/user-info.js'

type T = { after (fn: () => unknown): void }

async function pkiIn (t: T): Promise<Pki> {
  const dir = mkdtempSync(join(tmpdir(), 'certs-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return await ensureCertificates(dir)
}

/** A TLS app trusting `server`'s CA for client certificates; records who each request ran as. */
async function tlsApp (t: T, server: Pki, opts: Partial<AppOptions> = {}) {
  const tokenAuthFile = join(mkdtempSync(join(tmpdir(), 'tokens-')), 'tokens.csv')
  writeFileSync(tokenAuthFile, 'static-token,sam,uid-sam\n')
  const seen: UserInfo[] = []
  const { app } = await buildTestApp(t, {
    tokenAuthFile, authorizationModes: [],
    tls: { cert: server.servingCertPem, key: server.servingKeyPem, clientCA: server.caCertPem }, ...opts
  }, {
    beforeReady (app) {
      // Members of system:masters never reach a mode, so who each request ran as is read after authorization.
      app.authz.add('AllowAll', () => ({ decision: 'Allow' }))
      app.addHook('preHandler', async (request) => { seen.push(request.user) })
    }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as AddressInfo).port
  const get = (client: { cert?: string, key?: string }, headers: Record<string, string> = {}) =>
    new Promise<{ status: number, body: any, user?: UserInfo }>((resolve, reject) => {
      const before = seen.length
      const req = httpsRequest({ host: '127.0.0.1', port, path: '/api/v1/namespaces', ca: server.caCertPem, ...client, headers }, (res) => {
        let text = ''
        res.on('data', (d: Buffer) => { text += d.toString() })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), user: seen.length > before ? seen.at(-1) : undefined }))
      })
      req.on('error', reject)
      req.end()
    })
  return { get }
}

const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }

describe('client certificates', () => {
  it('make the common name the user and each organization a group; other CAs are 401', async (t) => {
    const server = await pkiIn(t)
    const foreign = await pkiIn(t)
    const { get } = await tlsApp(t, server)
    const ok = await get({ cert: server.adminCertPem, key: server.adminKeyPem })
    assert.equal(ok.status, 200)
    assert.deepEqual(ok.user, { username: 'admin', groups: ['system:masters', 'system:authenticated'] })
    const rejected = await get({ cert: foreign.adminCertPem, key: foreign.adminKeyPem })
    assert.equal(rejected.status, 401)
    assert.deepEqual(rejected.body, UNAUTHORIZED)
    // No certificate and no anonymous access: 401.
    assert.equal((await get({})).status, 401)
    // A certificate of another CA beside a good token: the token's user.
    const both = await get({ cert: foreign.adminCertPem, key: foreign.adminKeyPem }, { authorization: 'Bearer static-token' })
    assert.equal(both.status, 200)
    assert.equal(both.user?.username, 'sam')
  })
})

describe('authenticating proxy', () => {
  const headerFlags = (proxy: Pki, allowedNames: string[]) => ({
    requestHeader: {
      clientCAPem: proxy.caCertPem, allowedNames,
      usernameHeaders: ['X-Remote-User', 'X-Forwarded-User'], uidHeaders: ['X-Remote-Uid'], groupHeaders: ['X-Remote-Group'], extraHeadersPrefix: ['X-Remote-Extra-']
    }
  })

  it('takes the user from the headers of a proxy whose certificate the request-header CA issued', async (t) => {
    const server = await pkiIn(t)
    const proxy = await pkiIn(t)
    const { get } = await tlsApp(t, server, headerFlags(proxy, ['admin']))
    const res = await get({ cert: proxy.adminCertPem, key: proxy.adminKeyPem }, {
      'X-Remote-User': '', 'X-Forwarded-User': 'carol', 'X-Remote-Uid': 'c-7', 'X-Remote-Group': 'ops',
      'X-Remote-Extra-Acme.com%2Fproject': 'blue', 'X-Remote-Extra-Scopes': 'read'
    })
    assert.equal(res.status, 200)
    assert.deepEqual(res.user, { username: 'carol', uid: 'c-7', groups: ['ops', 'system:authenticated'], extra: { 'acme.com/project': ['blue'], scopes: ['read'] } })
    // The proxy without identity headers is not a user of its own (its CA is not a client CA).
    assert.equal((await get({ cert: proxy.adminCertPem, key: proxy.adminKeyPem })).status, 401)
  })

  it('keeps extra keys named like object built-ins as keys (never a 500)', async (t) => {
    const server = await pkiIn(t)
    const proxy = await pkiIn(t)
    const { get } = await tlsApp(t, server, headerFlags(proxy, ['admin']))
    const res = await get({ cert: proxy.adminCertPem, key: proxy.adminKeyPem }, {
      'X-Remote-User': 'carol', 'X-Remote-Extra-__proto__': 'p', 'X-Remote-Extra-Constructor': 'c', 'X-Remote-Extra-toString': 't'
    })
    assert.equal(res.status, 200)
    assert.deepEqual(Object.entries(res.user?.extra ?? {}), [['__proto__', ['p']], ['constructor', ['c']], ['tostring', ['t']]])
  })

  it('ignores the headers from other clients and from proxies with a name not allowed', async (t) => {
    const server = await pkiIn(t)
    const proxy = await pkiIn(t)
    const { get } = await tlsApp(t, server, headerFlags(proxy, ['front-proxy']))
    const client = await get({ cert: server.adminCertPem, key: server.adminKeyPem }, { 'X-Remote-User': 'carol', 'X-Remote-Group': 'system:masters' })
    assert.equal(client.status, 200)
    assert.equal(client.user?.username, 'admin', 'a client certificate user stays itself')
    const wrongName = await get({ cert: proxy.adminCertPem, key: proxy.adminKeyPem }, { 'X-Remote-User': 'carol' })
    assert.equal(wrongName.status, 401)
    assert.deepEqual(wrongName.body, UNAUTHORIZED)
    const noCert = await get({}, { 'X-Remote-User': 'carol' })
    assert.equal(noCert.status, 401)
  })
})
