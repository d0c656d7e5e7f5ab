// Service-account JWTs: signed with the server's key, verified against every configured key.
// Bound tokens (TokenRequest) carry audiences, expiry and a bound object; legacy tokens (the
// token controller's secrets) carry neither and live as long as their secret.
import fp from 'fastify-plugin'
import { createHash, createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { SignJWT, decodeJwt, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose'
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, SERVICE_ACCOUNTS } from '../resources/naming.js'

export interface ServiceAccountOptions {
  /** --service-account-issuer, repeatable: the first signs, all are accepted. */
  issuers?: string[]
  /** --service-account-signing-key-file contents (PEM private key). */
  signingKeyPem?: string
  /**
   * --service-account-private-key-file contents (PEM private key): the token controller signs
   * the secret-based tokens with it. Default the signing key.
   */
  legacySigningKeyPem?: string
  /** --service-account-key-file contents, repeatable (PEM public or private keys, several per file allowed). */
  verifyKeyPems?: string[]
  /** --service-account-lookup: tokens whose account, secret or bound object is gone are rejected. Default true. */
  lookup?: boolean
}

export interface BoundObject { kind: string, name: string, uid: string }

export interface ServiceAccountRef { namespace: string, name: string, uid: string }

/** The private claim of a bound token. */
export interface BoundClaims {
  namespace: string
  serviceaccount: { name: string, uid: string }
  pod?: { name: string, uid: string }
  secret?: { name: string, uid: string }
  node?: { name: string, uid: string }
}

export interface VerifiedToken {
  ref: ServiceAccountRef
  legacy: boolean
  /** Bound tokens: the token's audiences. */
  audiences: string[]
  /** Legacy tokens: the secret holding them; bound tokens: their bound objects. */
  secretName?: string
  bound: BoundClaims | undefined
  jti?: string
}

export interface ServiceAccountTokens {
  readonly issuer: string
  readonly lookup: boolean
  issue (o: { account: ServiceAccountRef, audiences: string[], expirationSeconds: number, bound?: BoundObject }): Promise<{ token: string, expiresAt: Date }>
  issueLegacy (account: ServiceAccountRef, secretName: string): Promise<string>
  /** undefined: not a token this server issued (another method's JWT); throws when ours but invalid. */
  verify (token: string): Promise<VerifiedToken | undefined>
}

declare module 'fastify' {
  interface FastifyInstance { serviceAccountTokens: ServiceAccountTokens }
}

const PEM_BLOCK = /-----BEGIN [^-]+-----[\s\S]+?-----END [^-]+-----/g

/** The JWS algorithm a key signs with. */
function algorithmOf (key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256'
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve
    if (curve === 'prime256v1') return 'ES256'
    if (curve === 'secp384r1') return 'ES384'
    if (curve === 'secp521r1') return 'ES512'
  }
  throw new Error(`unsupported service-account key type ${key.asymmetricKeyType ?? '?'}`)
}

/** A private key tokens may be signed with: RSA or ECDSA on a curve JWS names, as the reference accepts. */
export function signingKeyOf (pem: string): { key: KeyObject, alg: string, kid: string } {
  const key = createPrivateKey(pem)
  return { key, alg: algorithmOf(key), kid: keyId(createPublicKey(key)) }
}

/** The key id upstream derives: base64url SHA-256 of the DER public key. */
function keyId (publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url')
}

/** Every public key in PEM texts; private keys yield their public half. */
export function publicKeysOf (pems: string[]): KeyObject[] {
  const keys: KeyObject[] = []
  for (const pem of pems) {
    const blocks = pem.match(PEM_BLOCK) ?? []
    if (blocks.length === 0) throw new Error('service-account key file holds no PEM block')
    for (const block of blocks) {
      if (block.includes('CERTIFICATE-----')) continue
      keys.push(createPublicKey(block))
    }
  }
  return keys
}

const SA_CLAIM = SERVICE_ACCOUNTS.claimKey
const LEGACY = SERVICE_ACCOUNTS.legacyClaimPrefix

export default fp(async function serviceAccountTokens (fastify: FastifyInstance, opts: ServiceAccountOptions & { generatedKeyPem: string }) {
  const issuers = opts.issuers !== undefined && opts.issuers.length > 0 ? opts.issuers : [DEFAULT_SERVICE_ACCOUNT_ISSUER]
  const signer = signingKeyOf(opts.signingKeyPem ?? opts.generatedKeyPem)
  // The reference's token controller signs with a key of its own, which the server then
  // verifies only if --service-account-key-file lists it: a key listed nowhere is refused.
  const legacySigner = opts.legacySigningKeyPem === undefined ? signer : signingKeyOf(opts.legacySigningKeyPem)
  const verifyKeys = opts.verifyKeyPems !== undefined && opts.verifyKeyPems.length > 0 ? publicKeysOf(opts.verifyKeyPems) : [createPublicKey(signer.key)]

  const sign = (payload: JWTPayload, { key, alg, kid } = signer): Promise<string> =>
    new SignJWT(payload).setProtectedHeader({ alg, kid }).sign(key)

  async function verifySignature (token: string, legacy: boolean): Promise<JWTPayload> {
    let lastError: unknown
    for (const key of verifyKeys) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [algorithmOf(key)],
          issuer: legacy ? SERVICE_ACCOUNTS.legacyIssuer : issuers,
          clockTolerance: 60
        })
        return payload
      } catch (err) {
        if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JOSEAlgNotAllowed) { lastError = err; continue }
        if (err instanceof joseErrors.JWTExpired) throw new Error('service account token has expired')
        throw err
      }
    }
    throw new Error(`service account token could not be verified: ${(lastError as Error | undefined)?.message ?? 'no key'}`)
  }

  const tokens: ServiceAccountTokens = {
    issuer: issuers[0]!,
    lookup: opts.lookup ?? true,
    async issue ({ account, audiences, expirationSeconds, bound }) {
      const now = Math.floor(Date.now() / 1000)
      const claim: BoundClaims = { namespace: account.namespace, serviceaccount: { name: account.name, uid: account.uid } }
      if (bound !== undefined) {
        const ref = { name: bound.name, uid: bound.uid }
        if (bound.kind === 'Pod') claim.pod = ref
        else if (bound.kind === 'Secret') claim.secret = ref
        else claim.node = ref
      }
      const exp = now + expirationSeconds
      const token = await sign({
        iss: issuers[0], sub: `${SERVICE_ACCOUNTS.userPrefix}${account.namespace}:${account.name}`,
        aud: audiences, iat: now, nbf: now, exp, jti: randomUUID(), [SA_CLAIM]: claim
      })
      return { token, expiresAt: new Date(exp * 1000) }
    },
    issueLegacy (account, secretName) {
      return sign({
        iss: SERVICE_ACCOUNTS.legacyIssuer,
        [`${LEGACY}namespace`]: account.namespace,
        [`${LEGACY}secret.name`]: secretName,
        [`${LEGACY}service-account.name`]: account.name,
        [`${LEGACY}service-account.uid`]: account.uid,
        sub: `${SERVICE_ACCOUNTS.userPrefix}${account.namespace}:${account.name}`
      }, legacySigner)
    },
    async verify (token) {
      let unverified: JWTPayload
      try { unverified = decodeJwt(token) } catch { return undefined }
      const legacy = unverified.iss === SERVICE_ACCOUNTS.legacyIssuer
      if (!legacy && !issuers.includes(String(unverified.iss))) return undefined
      const payload = await verifySignature(token, legacy)
      if (legacy) {
        const str = (k: string): string => {
          const v = payload[`${LEGACY}${k}`]
          if (typeof v !== 'string' || v === '') throw new Error(`service account token lacks ${LEGACY}${k}`)
          return v
        }
        return {
          ref: { namespace: str('namespace'), name: str('service-account.name'), uid: str('service-account.uid') },
          legacy: true, audiences: [], secretName: str('secret.name'), bound: undefined
        }
      }
      const claim = payload[SA_CLAIM] as BoundClaims | undefined
      if (typeof claim?.namespace !== 'string' || typeof claim.serviceaccount?.name !== 'string') throw new Error(`service account token lacks the ${SA_CLAIM} claim`)
      if (payload.exp === undefined) throw new Error('bound service account token has no expiry')
      const aud = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud]
      return {
        ref: { namespace: claim.namespace, name: claim.serviceaccount.name, uid: claim.serviceaccount.uid },
        legacy: false, audiences: aud, bound: claim, jti: payload.jti
      }
    }
  }
  fastify.decorate('serviceAccountTokens', tokens)
}, { name: 'service-account-tokens' })
