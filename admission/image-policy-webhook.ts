// ImagePolicyWebhook (off by default): every pod create and update (and ephemeral containers)
// is put to an HTTPS backend as an ImageReview of its images, its `*.image-policy.svc.io/*`
// annotations and its namespace. The backend's answer decides, cached by review for allowTTL
// or denyTTL; its audit annotations are kept. When the backend cannot answer, defaultAllow
// decides, and a pod let through that way is marked failed-open.
import { isAbsolute, resolve } from 'node:path'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { IMAGE_POLICY } from '../resources/naming.js'
import type { AnyObject } from '../resources/define.js'
import { webhookClientFromKubeconfig, type WebhookClient } from '../auth/webhook-client.js'
import type { AdmissionAttributes } from '../resources/admission.js'

const PODS = { group: '', resource: 'pods' }
const EPHEMERAL_CONTAINERS = 'ephemeralcontainers'
const NS = 1
const MS = 1e6 * NS
const SECOND = 1000 * MS
const MINUTE = 60 * SECOND

/** Each duration: its unit, bounds and default, as upstream's config.go has them (in nanoseconds). */
const DURATIONS = {
  retryBackoff: { unit: MS, min: NS, max: 5 * MINUTE, default: 500 * MS },
  allowTTL: { unit: SECOND, min: SECOND, max: 30 * MINUTE, default: 5 * MINUTE },
  denyTTL: { unit: SECOND, min: SECOND, max: 30 * MINUTE, default: 30 * SECOND }
} as const

/** The request timeout of upstream's generic webhook. */
const REQUEST_TIMEOUT_MS = 30_000
/** Upstream's retry: at most five calls, the wait growing by half each time. */
const RETRY_STEPS = 5
const RETRY_FACTOR = 1.5
/** Answers kept at most, least recently used dropped first. */
const CACHE_SIZE = 1024

export interface ImagePolicySettings {
  kubeConfigFile: string
  /** Milliseconds; 0 when disabled (-1 in the file). */
  allowTTLMs: number
  denyTTLMs: number
  retryBackoffMs: number
  defaultAllow: boolean
}

/** A Go duration as Go prints it (`500ms`, `5m0s`, `1h0m0s`), for messages that match upstream's. */
export function goDuration (ns: number): string {
  if (ns === 0) return '0s'
  const sign = ns < 0 ? '-' : ''
  let n = Math.abs(ns)
  const trim = (v: number): string => String(Number(v.toFixed(9)))
  if (n < SECOND) {
    if (n < 1000) return `${sign}${n}ns`
    if (n < MS) return `${sign}${trim(n / 1000)}µs`
    return `${sign}${trim(n / MS)}ms`
  }
  const h = Math.floor(n / (60 * MINUTE))
  n -= h * 60 * MINUTE
  const m = Math.floor(n / MINUTE)
  n -= m * MINUTE
  const s = `${trim(n / SECOND)}s`
  if (h > 0) return `${sign}${h}h${m}m${s}`
  if (m > 0) return `${sign}${m}m${s}`
  return `${sign}${s}`
}

/** The `imagePolicy` section, defaulted and checked as upstream does (-1 disables a TTL or the backoff, 0 takes the default). */
export function parseImagePolicyConfiguration (config: AnyObject): ImagePolicySettings {
  const section = config.imagePolicy
  if (typeof section !== 'object' || section === null || Array.isArray(section)) throw new Error('the configuration needs an imagePolicy section')
  const p = section as AnyObject
  if (typeof p.kubeConfigFile !== 'string' || p.kubeConfigFile === '') throw new Error('imagePolicy.kubeConfigFile is required: the kubeconfig naming the backend')
  if (p.defaultAllow !== undefined && typeof p.defaultAllow !== 'boolean') throw new Error(`imagePolicy.defaultAllow must be true or false, not ${JSON.stringify(p.defaultAllow)}`)
  const durationMs = (field: keyof typeof DURATIONS): number => {
    const d = DURATIONS[field]
    const v = p[field] ?? 0
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new Error(`imagePolicy.${field} must be an integer, not ${JSON.stringify(v)}`)
    if (v === -1) return 0
    if (v === 0) return d.default / MS
    const ns = v * d.unit
    if (ns < d.min || ns > d.max) throw new Error(`imagePolicy.${field}: valid value is between ${goDuration(d.min)} and ${goDuration(d.max)}, got ${goDuration(ns)}`)
    return ns / MS
  }
  return {
    kubeConfigFile: p.kubeConfigFile,
    retryBackoffMs: durationMs('retryBackoff'),
    allowTTLMs: durationMs('allowTTL'),
    denyTTLMs: durationMs('denyTTL'),
    defaultAllow: p.defaultAllow === true
  }
}

interface ReviewStatus { allowed: boolean, reason?: string, auditAnnotations?: Record<string, string> }

/** Reviews answered lately, by their spec: the least recently used go first, each until its TTL. */
class AnswerCache {
  private readonly entries = new Map<string, { status: ReviewStatus, expires: number }>()
  get (key: string, now: number): ReviewStatus | undefined {
    const e = this.entries.get(key)
    if (e === undefined) return undefined
    this.entries.delete(key)
    if (e.expires <= now) return undefined
    this.entries.set(key, e)
    return e.status
  }

  add (key: string, status: ReviewStatus, ttlMs: number, now: number): void {
    if (ttlMs <= 0) return
    this.entries.delete(key)
    if (this.entries.size >= CACHE_SIZE) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(key, { status, expires: now + ttlMs })
  }
}

/** The review's spec with Go's empty fields left out and map keys sorted, so equal reviews are equal strings. */
function reviewSpec (a: AdmissionAttributes, pod: AnyObject): AnyObject {
  const spec: AnyObject = pod.spec ?? {}
  const lists = a.subresource === EPHEMERAL_CONTAINERS ? [spec.ephemeralContainers] : [spec.containers, spec.initContainers]
  const containers = lists.flatMap(l => Array.isArray(l) ? l : []).map((c: AnyObject) => c.image === undefined || c.image === '' ? {} : { image: c.image })
  const annotations: Record<string, string> = {}
  const all: AnyObject = pod.metadata?.annotations ?? {}
  for (const k of Object.keys(all).sort()) {
    if (IMAGE_POLICY.forwardedAnnotationInfixes.some(infix => k.includes(infix))) annotations[k] = all[k]
  }
  const out: AnyObject = {}
  if (containers.length > 0) out.containers = containers
  if (Object.keys(annotations).length > 0) out.annotations = annotations
  if (a.namespace !== '') out.namespace = a.namespace
  return out
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** Upstream retries what looks transient: a reset connection, 429, 500 and 504. */
const transient = (r: { status: number } | { error: NodeJS.ErrnoException }): boolean =>
  'error' in r ? r.error.code === 'ECONNRESET' || r.error.code === 'EPIPE' : [429, 500, 504].includes(r.status)

/** POSTs the review, retrying transient failures; the answer's status, or why there is none. */
async function askBackend (client: WebhookClient, review: AnyObject, backoffMs: number): Promise<ReviewStatus> {
  const where = `Post "${client.server.toString()}"`
  let wait = backoffMs
  for (let attempt = 1; ; attempt++) {
    let result: { status: number, body: unknown } | { error: NodeJS.ErrnoException }
    try { result = await client.post(review) } catch (err) { result = { error: err as NodeJS.ErrnoException } }
    if (attempt < RETRY_STEPS && transient(result)) {
      await sleep(wait)
      wait *= RETRY_FACTOR
      continue
    }
    if ('error' in result) throw new Error(`${where}: ${result.error.message}`)
    if (result.status < 200 || result.status >= 300) throw new Error(`Error contacting webhook: ${result.status}`)
    const body = result.body
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error(`${where}: the answer is not an ImageReview`)
    const status: AnyObject = (body as AnyObject).status ?? {}
    const annotations: AnyObject = typeof status.auditAnnotations === 'object' && status.auditAnnotations !== null ? status.auditAnnotations : {}
    return {
      allowed: status.allowed === true,
      reason: typeof status.reason === 'string' ? status.reason : undefined,
      auditAnnotations: Object.fromEntries(Object.entries(annotations).filter(([, v]) => typeof v === 'string'))
    }
  }
}

export default fp(async function imagePolicyWebhook (fastify: FastifyInstance, opts: { now?: () => number }) {
  if (!fastify.admission.wants('ImagePolicyWebhook')) return
  const config = fastify.admission.configuration('ImagePolicyWebhook')
  const file = fastify.admission.options.configFile
  if (config === undefined) throw new Error(`--admission-control-config-file${file === undefined ? '' : ` ${file}`}: ImagePolicyWebhook needs a configuration (an imagePolicy section with the backend's kubeConfigFile)`)
  const fail = (why: string): never => { throw new Error(`--admission-control-config-file ${String(config.source)}: ImagePolicyWebhook: ${why}`) }
  let settings: ImagePolicySettings
  try { settings = parseImagePolicyConfiguration(config) } catch (err) { return fail((err as Error).message) }
  const kubeconfig = isAbsolute(settings.kubeConfigFile) ? settings.kubeConfigFile : resolve(String(config.baseDir), settings.kubeConfigFile)
  let client: WebhookClient
  try { client = webhookClientFromKubeconfig(kubeconfig, REQUEST_TIMEOUT_MS) } catch (err) { return fail(`kubeConfigFile ${kubeconfig}: ${(err as Error).message}`) }
  if (client.server.protocol !== 'https:') fail(`kubeConfigFile ${kubeconfig}: the backend's server ${client.server.toString()} must be an https URL; image reviews are not sent in the clear`)
  const cache = new AnswerCache()
  const now = opts.now ?? Date.now

  /** The backend's failure: refused, or let through and marked when the policy allows by default. */
  const backendFailed = (a: AdmissionAttributes, pod: AnyObject, err: Error): void => {
    if (!settings.defaultAllow) throw forbidden(PODS, a.name, err.message)
    a.auditAnnotations[`${IMAGE_POLICY.auditAnnotationPrefix}failed-open`] = 'true'
    const meta: AnyObject = pod.metadata ??= {}
    meta.annotations = { ...meta.annotations, [IMAGE_POLICY.failedOpenPodAnnotation]: 'true' }
  }

  fastify.admission.add({
    name: 'ImagePolicyWebhook',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.resource.group === '' && a.resource.plural === 'pods' &&
      (a.subresource === '' || a.subresource === EPHEMERAL_CONTAINERS) && a.object !== undefined,
    async validate (a) {
      const pod = a.object!
      const spec = reviewSpec(a, pod)
      const key = JSON.stringify(spec)
      let status = cache.get(key, now())
      if (status === undefined) {
        const review = { apiVersion: IMAGE_POLICY.reviewApiVersion, kind: 'ImageReview', metadata: { creationTimestamp: null }, spec, status: { allowed: false } }
        try {
          status = await askBackend(client, review, settings.retryBackoffMs)
        } catch (err) {
          return backendFailed(a, pod, err as Error)
        }
        cache.add(key, status, status.allowed ? settings.allowTTLMs : settings.denyTTLMs, now())
      }
      for (const [k, v] of Object.entries(status.auditAnnotations ?? {})) a.auditAnnotations[`${IMAGE_POLICY.auditAnnotationPrefix}${k}`] = v
      if (status.allowed) return
      throw forbidden(PODS, a.name, status.reason !== undefined && status.reason !== ''
        ? `image policy webhook backend denied one or more images: ${status.reason}`
        : 'one or more images rejected by webhook backend')
    }
  })
}, { name: 'admission:image-policy-webhook', dependencies: ['admission'] })
