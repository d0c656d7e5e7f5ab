// Detached JWS over cluster-info's kubeconfig, keyed by a whole bootstrap token: HS256 with
// header {"alg":"HS256","kid":"<token-id>"}, the payload left out (`header..signature`).
// Verification accepts HS256 only, whatever the header claims.
import { createHmac, timingSafeEqual } from 'node:crypto'

const b64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url')

export function signDetached (content: string, tokenId: string, tokenSecret: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenId }))
  const signature = createHmac('sha256', `${tokenId}.${tokenSecret}`).update(`${header}.${b64url(content)}`).digest()
  return `${header}..${b64url(signature)}`
}

/** Whether `jws` is a detached HS256 signature of `content` under the token `<id>.<secret>`. */
export function verifyDetached (content: string, jws: string, token: string): boolean {
  const parts = jws.split('.')
  if (parts.length !== 3 || parts[1] !== '') return false
  const [header, , signature] = parts as [string, string, string]
  let alg: unknown
  try {
    alg = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')).alg
  } catch {
    return false
  }
  if (alg !== 'HS256') return false
  const expected = createHmac('sha256', token).update(`${header}.${b64url(content)}`).digest()
  const given = Buffer.from(signature, 'base64url')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
