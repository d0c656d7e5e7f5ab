// EventRateLimit (off by default, alpha): token buckets over event writes, one for the whole
// server, per namespace, per user, or per source and involved object, as its configuration
// (kind Configuration, from --admission-control-config-file) says. An event past any limit is
// 429 TooManyRequests. Dry runs write nothing and take no token, as upstream.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ApiError, fieldError, fieldErrorText, type FieldError } from '../resources/status.js'
import { EVENT_RATE_LIMIT, group } from '../resources/naming.js'
import type { AnyObject } from '../resources/define.js'
import type { AdmissionAttributes } from '../resources/admission.js'

export type LimitType = 'Server' | 'Namespace' | 'User' | 'SourceAndObject'

export interface Limit {
  type: LimitType
  qps: number
  burst: number
  /** Buckets kept for the keyed types, least recently used dropped first (a dropped key starts full again). */
  cacheSize: number
}

const LIMIT_TYPES: readonly LimitType[] = ['Namespace', 'Server', 'SourceAndObject', 'User']
/** Upstream's default for every keyed type when cacheSize is 0 or absent. */
export const DEFAULT_CACHE_SIZE = 4096
const EVENTS_GROUPS = new Set(['', group('events')])

/**
 * The limits of a configuration, defaulted, and the field errors upstream's validation reports
 * (limits not empty, a known type, qps and burst positive, cacheSize not negative).
 */
export function parseEventRateLimitConfiguration (config: AnyObject): { limits: Limit[], errors: string[] } {
  const errors: FieldError[] = []
  const problems: string[] = []
  if (config.kind !== EVENT_RATE_LIMIT.configurationKind) problems.push(`kind must be ${EVENT_RATE_LIMIT.configurationKind}, not ${JSON.stringify(config.kind)}`)
  if (!EVENT_RATE_LIMIT.configurationApiVersions.includes(config.apiVersion)) {
    problems.push(`apiVersion must be one of ${EVENT_RATE_LIMIT.configurationApiVersions.join(', ')}, not ${JSON.stringify(config.apiVersion)}`)
  }
  if (problems.length > 0) return { limits: [], errors: problems }
  if (config.limits !== undefined && config.limits !== null && !Array.isArray(config.limits)) return { limits: [], errors: ['limits must be a list'] }
  const raw: unknown[] = config.limits ?? []
  if (raw.length === 0) errors.push(fieldError('Invalid', 'limits', null, 'must not be empty'))
  const limits: Limit[] = []
  raw.forEach((entry, i) => {
    const l = (typeof entry === 'object' && entry !== null ? entry : {}) as AnyObject
    const at = `limits[${i}]`
    const type = l.type as LimitType
    if (!LIMIT_TYPES.includes(type)) errors.push({ ...fieldError('NotSupported', `${at}.type`, l.type ?? ''), supported: [...LIMIT_TYPES] })
    const number = (field: string): number => {
      const v = l[field] ?? 0
      if (typeof v !== 'number' || !Number.isInteger(v)) {
        errors.push(fieldError('Invalid', `${at}.${field}`, v, 'must be an integer'))
        return NaN
      }
      return v
    }
    const qps = number('qps')
    const burst = number('burst')
    const cacheSize = number('cacheSize')
    if (burst <= 0) errors.push(fieldError('Invalid', `${at}.burst`, burst, 'must be positive'))
    if (qps <= 0) errors.push(fieldError('Invalid', `${at}.qps`, qps, 'must be positive'))
    if (type !== 'Server' && cacheSize < 0) errors.push(fieldError('Invalid', `${at}.cacheSize`, cacheSize, 'must not be negative'))
    limits.push({ type, qps, burst, cacheSize: cacheSize > 0 ? cacheSize : DEFAULT_CACHE_SIZE })
  })
  return { limits, errors: errors.map(e => `${e.field}: ${fieldErrorText(e)}`) }
}

/** A token bucket as golang.org/x/time/rate keeps one: starts full, refills at qps up to burst. */
class TokenBucket {
  private tokens: number
  private last: number
  constructor (private readonly qps: number, private readonly burst: number, now: number) {
    this.tokens = burst
    this.last = now
  }

  /** Takes a token if one is there; otherwise the seconds until one will be. */
  take (now: number): { ok: true } | { ok: false, waitSeconds: number } {
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + (now - this.last) / 1000 * this.qps)
      this.last = now
    }
    if (this.tokens >= 1) {
      this.tokens -= 1
      return { ok: true }
    }
    return { ok: false, waitSeconds: (1 - this.tokens) / this.qps }
  }
}

/** The key each limit type counts under, as upstream builds it. */
function keyOf (type: LimitType, a: AdmissionAttributes): string {
  switch (type) {
    case 'Server': return ''
    case 'Namespace': return a.namespace
    case 'User': return a.user.username
    case 'SourceAndObject': {
      const e = a.object ?? {}
      // A core Event's source and involvedObject; an events-group Event's deprecatedSource and regarding.
      const source: AnyObject = e.source ?? e.deprecatedSource ?? {}
      const object: AnyObject = e.involvedObject ?? e.regarding ?? {}
      return [source.component, source.host, object.kind, object.namespace, object.name, object.uid, object.apiVersion].map(v => typeof v === 'string' ? v : '').join('')
    }
  }
}

interface Refusal { ok: false, waitSeconds: number, message: string }

class LimitEnforcer {
  private readonly buckets = new Map<string, TokenBucket>()
  constructor (readonly limit: Limit) {}

  accept (a: AdmissionAttributes, now: number): { ok: true } | Refusal {
    const key = keyOf(this.limit.type, a)
    let bucket = this.buckets.get(key)
    if (bucket === undefined) {
      bucket = new TokenBucket(this.limit.qps, this.limit.burst, now)
      if (this.limit.type !== 'Server' && this.buckets.size >= this.limit.cacheSize) this.buckets.delete(this.buckets.keys().next().value!)
    } else this.buckets.delete(key)
    // Re-inserted last: a Map's order is the recency order.
    this.buckets.set(key, bucket)
    const taken = bucket.take(now)
    if (taken.ok) return taken
    return { ...taken, message: `limit reached on type ${this.limit.type} for key ${key}` }
  }
}

export default fp(async function eventRateLimit (fastify: FastifyInstance, opts: { now?: () => number }) {
  if (!fastify.admission.wants('EventRateLimit')) return
  const config = fastify.admission.configuration('EventRateLimit')
  if (config === undefined) {
    const file = fastify.admission.options.configFile
    throw new Error(`--admission-control-config-file${file === undefined ? '' : ` ${file}`}: EventRateLimit needs a configuration (kind ${EVENT_RATE_LIMIT.configurationKind}, apiVersion ${EVENT_RATE_LIMIT.configurationApiVersions[0]!}) with its limits`)
  }
  const { limits, errors } = parseEventRateLimitConfiguration(config)
  if (errors.length > 0) throw new Error(`--admission-control-config-file ${String(config.source)}: EventRateLimit: ${errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`}`)
  const enforcers = limits.map(l => new LimitEnforcer(l))
  const now = opts.now ?? Date.now
  fastify.admission.add({
    name: 'EventRateLimit',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.resource.plural === 'events' && EVENTS_GROUPS.has(a.resource.group) && !a.dryRun,
    validate (a) {
      const t = now()
      // Every limit takes its token, refused or not, as upstream gives each enforcer its chance.
      const refusals = enforcers.map(e => e.accept(a, t)).filter((r): r is Refusal => !r.ok)
      if (refusals.length === 0) return
      const messages = refusals.map(r => r.message)
      const retryAfter = Math.max(1, Math.ceil(Math.max(...refusals.map(r => r.waitSeconds))))
      throw new ApiError(429, 'TooManyRequests', `Too many requests: ${messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`}`,
        { retryAfterSeconds: retryAfter }, { 'Retry-After': String(retryAfter) })
    }
  })
}, { name: 'admission:event-rate-limit', dependencies: ['admission'] })
