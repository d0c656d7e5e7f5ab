// Bootstrap tokens: `<id>.<secret>` backed by Secrets `bootstrap-token-<id>` in the system
// namespace, read through the secrets watch cache.
import fp from 'fastify-plugin'
import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { BOOTSTRAP, NAMESPACES, SECRET_TYPES } from '../../resources/naming.js'
import type { AnyObject } from '../../resources/define.js'
import { readObject } from './lookup.js'

export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/

const decoded = (secret: AnyObject, key: string): string | undefined => {
  const v = secret.data?.[key]
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : undefined
}

/** When a bootstrap token secret expires (undefined: never); an unparsable time counts as expired. */
export function bootstrapExpiry (secret: AnyObject): number | undefined {
  const text = decoded(secret, 'expiration')
  if (text === undefined || text === '') return undefined
  const t = Date.parse(text)
  return Number.isNaN(t) ? 0 : t
}

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export default fp(async function bootstrapToken (fastify: FastifyInstance) {
  fastify.authn.addToken('bootstrap-token', async (token) => {
    const m = BOOTSTRAP_TOKEN_PATTERN.exec(token)
    if (m === null) return undefined
    const [, id, tokenSecret] = m as unknown as [string, string, string]
    const name = `${BOOTSTRAP.secretPrefix}${id}`
    const secret = await readObject(fastify, { group: '', resource: 'secrets' }, NAMESPACES.system, name)
    if (secret === undefined) return undefined
    if (secret.metadata?.deletionTimestamp != null) throw new Error(`secret ${name} is being deleted`)
    if (secret.type !== SECRET_TYPES.bootstrapToken) throw new Error(`secret ${name} has type ${String(secret.type)}, not ${SECRET_TYPES.bootstrapToken}`)
    if (!sameSecret(decoded(secret, 'token-secret') ?? '', tokenSecret)) throw new Error(`bootstrap token ${id} has a different secret`)
    if (decoded(secret, 'token-id') !== id) throw new Error(`secret ${name} names a different token id`)
    const expiry = bootstrapExpiry(secret)
    if (expiry !== undefined && expiry <= Date.now()) throw new Error(`bootstrap token ${id} has expired`)
    if (decoded(secret, 'usage-bootstrap-authentication') !== 'true') throw new Error(`bootstrap token ${id} is not usable for authentication`)
    const extra = (decoded(secret, 'auth-extra-groups') ?? '').split(',').map(g => g.trim()).filter(g => g !== '')
    const bad = extra.find(g => !g.startsWith(BOOTSTRAP.extraGroupPrefix))
    if (bad !== undefined) throw new Error(`bootstrap token ${id}: extra group "${bad}" does not start with ${BOOTSTRAP.extraGroupPrefix}`)
    return { user: { username: `${BOOTSTRAP.userPrefix}${id}`, groups: [BOOTSTRAP.group, ...extra] } }
  })
}, { name: 'authn:bootstrap-token', dependencies: ['authn', 'rest'] })
