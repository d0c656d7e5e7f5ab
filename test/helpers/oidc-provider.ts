// A real OpenID provider (the `oidc-provider` package) on loopback HTTPS, and a browser-less
// authorization-code login through its development interactions that yields an ID token.
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { IncomingMessage, ServerResponse } from 'node:http'
import Provider from 'oidc-provider'
import { exportJWK, generateKeyPair } from 'jose'
import { ensureCertificates } from '../../auth/pki.js'

export interface Account { email: string, groups: string[], hd: string }

export interface OidcProvider {
  issuer: string
  caPem: string
  clientId: string
  /** Logs `accountId` in and returns the ID token the token endpoint issues. */
  login (accountId: string): Promise<string>
}

const REDIRECT_URI = 'https://client.example/callback'

/** Accounts whose ID tokens expire after one second. */
export const SHORT_LIVED = 'short-lived'
/** Long enough for a login and one request on a loaded machine (exp counts whole seconds). */
const SHORT_LIVED_SECONDS = 4

export async function startOidcProvider (t: { after (fn: () => unknown): void }, accounts: Record<string, Account>): Promise<OidcProvider> {
  const dir = mkdtempSync(join(tmpdir(), 'oidc-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const pki = await ensureCertificates(dir)
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => { res.writeHead(503).end() }
  const server: Server = createServer({ cert: pki.servingCertPem, key: pki.servingKeyPem }, (req, res) => handler(req, res))
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise(resolve => { server.closeAllConnections(); server.close(resolve) }))
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`

  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const clientId = 'svc-cli'
  const clientSecret = randomBytes(16).toString('hex')
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code'], response_types: ['code'] }],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'], hd: ['hd'] },
    conformIdTokenClaims: false,
    ttl: { IdToken: (ctx) => ctx.oidc.account?.accountId === SHORT_LIVED ? SHORT_LIVED_SECONDS : 3600 },
    async findAccount (_ctx, id) {
      const a = accounts[id]
      if (a === undefined) return undefined
      return { accountId: id, claims: () => ({ sub: id, email: a.email, email_verified: true, groups: a.groups, hd: a.hd }) }
    }
  })
  provider.proxy = false
  handler = provider.callback()

  /** One HTTPS request with a cookie jar shared across the login. */
  const jar = new Map<string, string>()
  function call (method: string, url: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number, location?: string, text: string }> {
    return new Promise((resolve, reject) => {
      const req = request(new URL(url, issuer), {
        method, ca: pki.caCertPem,
        headers: { ...headers, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) }) }
      }, (res) => {
        for (const c of res.headers['set-cookie'] ?? []) {
          const [pair] = c.split(';')
          const eq = pair!.indexOf('=')
          jar.set(pair!.slice(0, eq), pair!.slice(eq + 1))
        }
        let text = ''
        res.on('data', (d: Buffer) => { text += d.toString() })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, text }))
      })
      req.on('error', reject)
      req.end(body)
    })
  }

  async function login (accountId: string): Promise<string> {
    jar.clear()
    const verifier = randomBytes(32).toString('base64url')
    const challenge = createHash('sha256').update(verifier).digest('base64url')
    const auth = new URL('/auth', issuer)
    for (const [k, v] of Object.entries({ client_id: clientId, response_type: 'code', scope: 'openid email groups hd', redirect_uri: REDIRECT_URI, nonce: 'n-1', state: 's-1', code_challenge: challenge, code_challenge_method: 'S256' })) auth.searchParams.set(k, v)
    let res = await call('GET', auth.href)
    // Interactions: login, then consent; each ends in a redirect back to the authorization endpoint.
    for (let step = 0; step < 6 && res.location !== undefined && !res.location.startsWith(REDIRECT_URI); step++) {
      if (res.location.includes('/interaction/')) {
        const page = await call('GET', res.location)
        const form = page.text.includes('name="login"') ? `prompt=login&login=${encodeURIComponent(accountId)}&password=x` : 'prompt=consent'
        res = await call('POST', res.location, form)
      } else {
        res = await call('GET', res.location)
      }
    }
    const code = res.location === undefined ? null : new URL(res.location).searchParams.get('code')
    if (code === null) throw new Error(`login of ${accountId} did not end with a code: ${res.status} ${res.location ?? ''} ${res.text.slice(0, 300)}`)
    const token = await call('POST', '/token', new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }).toString(),
      { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` })
    const idToken = (JSON.parse(token.text) as { id_token?: string }).id_token
    if (idToken === undefined) throw new Error(`token endpoint answered ${token.status}: ${token.text}`)
    return idToken
  }

  return { issuer, caPem: pki.caCertPem, clientId, login }
}
