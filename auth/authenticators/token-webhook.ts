// Token webhook: an external service reviews bearer tokens (POST TokenReview); its answers,
// positive and negative, are cached for the TTL so a token costs one call per TTL.
import fp from 'fastify-plugin'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { parse as parseYaml } from 'yaml'
import { GROUPS } from '../../resources/naming.js'
import type { TokenResult } from '../authn.js'
import type { UserInfo } from '../../resources/user-info.js'
import { fetchJson, type TlsCredentials } from '../https-client.js'

export interface TokenWebhookOptions {
  /** --authentication-token-webhook-config-file: a kubeconfig naming the webhook and how to reach it. */
  configFile: string
  /** --authentication-token-webhook-version: v1beta1 (default) or v1. */
  version?: 'v1beta1' | 'v1'
  /** --authentication-token-webhook-cache-ttl in ms; default 2 minutes. */
  cacheTtlMs?: number
}

interface Connection extends TlsCredentials { server: string, token?: string }

type Cfg = Record<string, any>

/** The webhook's address and credentials from a kubeconfig (current context, else the first entries). */
export function readWebhookConfig (path: string): Connection {
  let cfg: Cfg
  try {
    cfg = parseYaml(readFileSync(path, 'utf8')) as Cfg
  } catch (err) {
    throw new Error(`token webhook config ${path}: ${(err as Error).message}`)
  }
  const dir = dirname(path)
  const context = (cfg?.contexts ?? []).find((c: Cfg) => c.name === cfg['current-context'])?.context
  const cluster = ((cfg?.clusters ?? []).find((c: Cfg) => c.name === context?.cluster) ?? cfg?.clusters?.[0])?.cluster
  const user = ((cfg?.users ?? []).find((u: Cfg) => u.name === context?.user) ?? cfg?.users?.[0])?.user ?? {}
  if (typeof cluster?.server !== 'string') throw new Error(`token webhook config ${path}: no cluster with a server`)
  const pem = (data: unknown, file: unknown): string | undefined => {
    if (typeof data === 'string') return Buffer.from(data, 'base64').toString('utf8')
    if (typeof file === 'string') return readFileSync(resolve(dir, file), 'utf8')
    return undefined
  }
  return {
    server: cluster.server,
    ca: pem(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: pem(user['client-certificate-data'], user['client-certificate']),
    key: pem(user['client-key-data'], user['client-key']),
    token: typeof user.token === 'string' ? user.token : undefined
  }
}

const DEFAULT_TTL_MS = 2 * 60_000
const MAX_CACHE_ENTRIES = 10_000

export default fp(async function tokenWebhook (fastify: FastifyInstance, opts: TokenWebhookOptions) {
  const conn = readWebhookConfig(opts.configFile)
  const apiVersion = `${GROUPS.authentication}/${opts.version ?? 'v1beta1'}`
  const ttl = opts.cacheTtlMs ?? DEFAULT_TTL_MS
  // Keyed by a hash so the cache never holds the tokens themselves.
  const cache = new Map<string, { until: number, result: TokenResult | undefined, error?: string }>()

  async function review (token: string, audiences: string[]): Promise<{ result: TokenResult | undefined, error?: string }> {
    const spec: Record<string, unknown> = { token }
    if (audiences.length > 0) spec.audiences = audiences
    const res = await fetchJson(conn.server, {
      method: 'POST', ca: conn.ca, cert: conn.cert, key: conn.key,
      headers: conn.token === undefined ? {} : { authorization: `Bearer ${conn.token}` },
      body: { apiVersion, kind: 'TokenReview', spec }
    })
    if (res.status < 200 || res.status >= 300) throw new Error(`token webhook answered HTTP ${res.status}`)
    const status = (res.body as Cfg | undefined)?.status ?? {}
    if (status.authenticated !== true) {
      return { result: undefined, error: typeof status.error === 'string' && status.error !== '' ? status.error : undefined }
    }
    const u = status.user ?? {}
    if (typeof u.username !== 'string' || u.username === '') throw new Error('token webhook authenticated a token without a username')
    const user: UserInfo = { username: u.username, groups: Array.isArray(u.groups) ? u.groups.map(String) : [] }
    if (typeof u.uid === 'string' && u.uid !== '') user.uid = u.uid
    if (u.extra !== undefined && typeof u.extra === 'object') user.extra = u.extra
    const returned: string[] = Array.isArray(status.audiences) ? status.audiences : []
    if (returned.length === 0) return { result: { user } }
    const matched = audiences.filter(a => returned.includes(a))
    if (audiences.length > 0 && matched.length === 0) return { result: undefined, error: 'token audiences is invalid for the target audiences' }
    return { result: { user, audiences: matched } }
  }

  fastify.authn.addToken('token-webhook', async (token, audiences) => {
    const key = createHash('sha256').update(token).update('\0').update(audiences.join('\0')).digest('base64')
    const now = Date.now()
    let entry = cache.get(key)
    if (entry === undefined || entry.until <= now) {
      // Failures to reach the webhook are not answers: they are retried on the next request.
      const answer = await review(token, audiences)
      if (cache.size >= MAX_CACHE_ENTRIES) {
        for (const [k, e] of cache) if (e.until <= now || cache.size >= MAX_CACHE_ENTRIES) cache.delete(k)
      }
      entry = { until: now + ttl, ...answer }
      cache.set(key, entry)
    }
    if (entry.error !== undefined) throw new Error(entry.error)
    return entry.result
  })
}, { name: 'authn:token-webhook', dependencies: ['authn'] })
