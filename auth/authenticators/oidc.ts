// OpenID Connect: ID tokens of one trusted issuer, verified offline against the issuer's
// published keys (discovery, then JWKS, fetched once and again only for an unknown key id).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, errors as joseErrors, type JSONWebKeySet, type JWTPayload } from 'jose'
import type { UserInfo } from '../../resources/user-info.js'
import { fetchJson } from '../https-client.js'

export interface OidcOptions {
  /** --oidc-issuer-url (https). */
  issuerUrl: string
  /** --oidc-client-id: the audience every token must carry. */
  clientId: string
  /** --oidc-username-claim; default `sub`. */
  usernameClaim?: string
  /** --oidc-username-prefix; `-` disables; default `<issuer>#` unless the claim is `email`. */
  usernamePrefix?: string
  /** --oidc-groups-claim */
  groupsClaim?: string
  /** --oidc-groups-prefix */
  groupsPrefix?: string
  /** --oidc-required-claim key=value pairs. */
  requiredClaims?: Record<string, string>
  /** --oidc-ca-file contents; default the host's roots. */
  caPem?: string
  /** --oidc-signing-algs; default RS256. */
  signingAlgs?: string[]
}

const REFRESH_MIN_INTERVAL_MS = 10_000

/** The user-name prefix the flags amount to. */
export function usernamePrefixOf (o: OidcOptions): string {
  const claim = o.usernameClaim ?? 'sub'
  if (o.usernamePrefix === '-') return ''
  if (o.usernamePrefix !== undefined && o.usernamePrefix !== '') return o.usernamePrefix
  return claim === 'email' ? '' : `${o.issuerUrl}#`
}

export default fp(async function oidc (fastify: FastifyInstance, opts: OidcOptions) {
  const issuer = opts.issuerUrl
  if (!issuer.startsWith('https://')) throw new Error(`--oidc-issuer-url must be an https URL, got "${issuer}"`)
  if (opts.clientId === '') throw new Error('--oidc-client-id is required with --oidc-issuer-url')
  const usernameClaim = opts.usernameClaim ?? 'sub'
  const prefix = usernamePrefixOf(opts)
  const algorithms = opts.signingAlgs ?? ['RS256']

  let keys: ReturnType<typeof createLocalJWKSet> | undefined
  let kids = new Set<string>()
  let lastFetch = 0
  let inFlight: Promise<void> | undefined

  async function load (): Promise<void> {
    lastFetch = Date.now()
    const discovery = await fetchJson(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, { ca: opts.caPem })
    const doc = discovery.body as Record<string, unknown> | undefined
    if (discovery.status !== 200 || doc === undefined) throw new Error(`oidc: discovery at ${issuer} answered HTTP ${discovery.status}`)
    if (doc.issuer !== issuer) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected "${issuer}" got "${String(doc.issuer)}"`)
    if (typeof doc.jwks_uri !== 'string') throw new Error('oidc: discovery document has no jwks_uri')
    const jwks = await fetchJson(doc.jwks_uri, { ca: opts.caPem })
    const set = jwks.body as JSONWebKeySet | undefined
    if (jwks.status !== 200 || !Array.isArray(set?.keys)) throw new Error(`oidc: key set at ${doc.jwks_uri} answered HTTP ${jwks.status}`)
    keys = createLocalJWKSet(set)
    kids = new Set(set.keys.map(k => k.kid).filter((k): k is string => typeof k === 'string'))
  }

  /** Fetches the keys when none are known or a token names an unknown key, at most every few seconds. */
  async function ensureKeys (kid: string | undefined): Promise<void> {
    const stale = keys === undefined || (kid !== undefined && !kids.has(kid))
    if (!stale || (keys !== undefined && Date.now() - lastFetch < REFRESH_MIN_INTERVAL_MS)) return
    inFlight ??= load().finally(() => { inFlight = undefined })
    await inFlight
  }

  fastify.addHook('onReady', async () => {
    // The provider may come up after this server: a failed first fetch is retried per token.
    await ensureKeys(undefined).catch((err: unknown) => fastify.log.warn({ err }, 'oidc: initial key fetch failed'))
  })

  fastify.authn.addToken('oidc', async (token) => {
    let unverified: JWTPayload
    try { unverified = decodeJwt(token) } catch { return undefined }
    if (unverified.iss !== issuer) return undefined
    await ensureKeys(decodeProtectedHeader(token).kid)
    let payload: JWTPayload
    try {
      ({ payload } = await jwtVerify(token, keys!, { issuer, audience: opts.clientId, algorithms, clockTolerance: 0 }))
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new Error('oidc: token is expired')
      throw new Error(`oidc: verify token: ${(err as Error).message}`)
    }
    if (typeof payload.iat !== 'number') throw new Error('oidc: token has no iat claim')
    for (const [k, v] of Object.entries(opts.requiredClaims ?? {})) {
      if (payload[k] === undefined) throw new Error(`oidc: required claim ${k} not present in ID token`)
      if (payload[k] !== v) throw new Error(`oidc: required claim ${k} value does not match. Got = ${JSON.stringify(payload[k])}, want = ${v}`)
    }
    const name = payload[usernameClaim]
    if (typeof name !== 'string' || name === '') throw new Error(`oidc: parse username claims "${usernameClaim}": claim not present`)
    if (usernameClaim === 'email' && payload.email_verified !== undefined && payload.email_verified !== true) {
      throw new Error(`oidc: email not verified`)
    }
    const user: UserInfo = { username: `${prefix}${name}`, groups: [] }
    if (opts.groupsClaim !== undefined && opts.groupsClaim !== '' && payload[opts.groupsClaim] !== undefined) {
      const raw = payload[opts.groupsClaim]
      const groups = typeof raw === 'string' ? [raw] : raw
      if (!Array.isArray(groups) || groups.some(g => typeof g !== 'string')) throw new Error(`oidc: parse groups claim "${opts.groupsClaim}": must be a string or a list of strings`)
      user.groups = (groups as string[]).map(g => `${opts.groupsPrefix ?? ''}${g}`)
    }
    return { user }
  })
}, { name: 'authn:oidc', dependencies: ['authn'] })
