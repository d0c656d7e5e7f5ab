// Load protection on every request, after authentication and impersonation (as the reference's
// filter chain: deadline, timeout, authentication, impersonation, then priority and fairness):
// the request's deadline is armed, then API Priority and Fairness classifies it by the
// FlowSchemas in the watch cache to a priority level and admits it to a seat, queues it, or
// rejects it with 429; with --enable-priority-and-fairness=false the plain in-flight limits do.
// Long-running requests other than watches pass untouched; a watch holds its seats only until
// its stream starts.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError } from '../../resources/status.js'
import { GROUPS } from '../../resources/naming.js'
import { CacheIndex } from '../../storage/cache-index.js'
import type { ResourceStore } from '../../storage/resource-store.js'
import { ClassificationMemo, digestConfig, distinguisherOf, type FlowConfig } from './classify.js'
import { Dispatcher, type Afterwards, type Grant } from './dispatcher.js'
import { InflightLimits, isMutatingVerb } from './max-inflight.js'
import { flowcontrolMetrics, type FlowcontrolMetrics } from './metrics.js'
import { ADJUSTMENT_PERIOD_MS } from './seat-demand.js'
import { writeDanglingConditions } from './status.js'
import { armDeadline, deadlineMs, isLongRunning, requestedTimeoutMs } from './timeout.js'
import { estimateMutating, estimateSeats, maxSeatsOf, sendsWatchEvents } from './work-estimate.js'
import '../watch-counts.js'

export interface FlowControlOptions {
  /** --enable-priority-and-fairness (default true). */
  enabled?: boolean
  /** --max-requests-inflight (default 400). */
  maxRequestsInflight?: number
  /** --max-mutating-requests-inflight (default 200). */
  maxMutatingRequestsInflight?: number
  /** --request-timeout in milliseconds (default 60 s); 0 arms no deadline. */
  requestTimeoutMs?: number
}

export const DEFAULT_MAX_REQUESTS_INFLIGHT = 400
export const DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT = 200
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000

export const PF_HEADERS = { flowSchema: 'x-kubernetes-pf-flowschema-uid', priorityLevel: 'x-kubernetes-pf-prioritylevel-uid' } as const

const TOO_MANY_REQUESTS = 'Too many requests, please try again later.'
const RETRY_AFTER_SECONDS = 1
/** A rejected flow and level are logged at most this often. */
const REJECTION_LOG_INTERVAL_MS = 10_000

const tooManyRequests = (): ApiError =>
  new ApiError(429, 'TooManyRequests', TOO_MANY_REQUESTS, { retryAfterSeconds: RETRY_AFTER_SECONDS }, { 'retry-after': String(RETRY_AFTER_SECONDS) })

interface Held { release (): void }

declare module 'fastify' {
  interface FastifyRequest {
    /** The seat (or in-flight slot) this request holds, released when it is answered. */
    flowControlHold: Held | null
    /** The request's deadline timer, cleared when it is answered. */
    deadlineTimer: NodeJS.Timeout | null
  }
  interface FastifyInstance {
    /**
     * What admits requests: API Priority and Fairness's seats and queues and its configuration
     * when enabled, else the plain in-flight limits (tests and metrics read them).
     */
    flowControl: { dispatcher: Dispatcher, config (): FlowConfig } | { inflight: InflightLimits }
  }
}

const isRejection = (r: object): r is { rejected: string } => 'rejected' in r

/** `release` counted as an executing request of its kind (read_vs_write_current_requests) until it is called. */
function countedExecuting (metrics: FlowcontrolMetrics, mutating: boolean, release: () => void): Held {
  metrics.requestPhase('executing', mutating, 1)
  let done = false
  return {
    release: () => {
      if (done) return
      done = true
      metrics.requestPhase('executing', mutating, -1)
      release()
    }
  }
}

export default fp(async function flowControl (fastify: FastifyInstance, opts: FlowControlOptions) {
  const enabled = opts.enabled ?? true
  const readOnlyLimit = opts.maxRequestsInflight ?? DEFAULT_MAX_REQUESTS_INFLIGHT
  const mutatingLimit = opts.maxMutatingRequestsInflight ?? DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT
  const requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS
  if (enabled && readOnlyLimit + mutatingLimit <= 0) {
    throw new Error('--max-requests-inflight plus --max-mutating-requests-inflight must be positive when --enable-priority-and-fairness is true')
  }
  fastify.decorateRequest('flowControlHold', null)
  fastify.decorateRequest('deadlineTimer', null)

  const store = (resource: string): ResourceStore | undefined =>
    fastify.hasDecorator('resources') ? fastify.resources.find({ group: GROUPS.flowcontrol, resource }) : undefined
  const sources = (): ResourceStore[] => ['flowschemas', 'prioritylevelconfigurations'].map(store).filter((s): s is ResourceStore => s !== undefined)
  const index = new CacheIndex<FlowConfig>({
    sources,
    build: () => digestConfig(store('flowschemas')?.cachedObjects() ?? [], store('prioritylevelconfigurations')?.cachedObjects() ?? []),
    currentRevision: async () => await fastify.storage.currentRevision(),
    onWatchEnded: (err) => { fastify.log.warn({ err }, 'flow control configuration watch ended; resubscribing') }
  })

  let dispatcher: Dispatcher | undefined
  const inflight = new InflightLimits(readOnlyLimit, mutatingLimit)
  const metrics = flowcontrolMetrics(fastify.metrics, () => dispatcher)
  const memo = new ClassificationMemo()
  let configured: FlowConfig | undefined
  const config = (): FlowConfig => {
    const c = index.current()
    if (c !== configured) {
      configured = c
      dispatcher!.configure(c)
      statusPass()
    }
    return c
  }

  // The Dangling conditions follow the configuration, once both caches are filled.
  let statusReady = false
  let statusRunning: Promise<void> | undefined
  let statusAgain = false
  function statusPass (): void {
    if (!statusReady) return
    if (statusRunning !== undefined) { statusAgain = true; return }
    const schemas = store('flowschemas')
    const levels = store('prioritylevelconfigurations')
    if (schemas === undefined || levels === undefined) return
    statusRunning = writeDanglingConditions(schemas, levels)
      .catch((err: unknown) => { fastify.log.warn({ err }, 'writing FlowSchema conditions failed') })
      .finally(() => {
        statusRunning = undefined
        if (statusAgain) { statusAgain = false; statusPass() }
      })
  }

  const lastLogged = new Map<string, { at: number, suppressed: number }>()
  function logRejection (request: FastifyRequest, schema: string, level: string, distinguisher: string, reason: string): void {
    const key = `${level}\n${schema}`
    const now = Date.now()
    const seen = lastLogged.get(key)
    if (seen !== undefined && now - seen.at < REJECTION_LOG_INTERVAL_MS) { seen.suppressed++; return }
    if (lastLogged.size > 1000) lastLogged.clear()
    lastLogged.set(key, { at: now, suppressed: 0 })
    request.log.warn({ flowSchema: schema, priorityLevel: level, flowDistinguisher: distinguisher.slice(0, 64), reason, alsoRejectedSinceLastLine: seen?.suppressed ?? 0 },
      'request rejected by API Priority and Fairness (rate limited)')
  }

  if (enabled) {
    dispatcher = new Dispatcher(readOnlyLimit + mutatingLimit, metrics)
    fastify.decorate('flowControl', { dispatcher, config })
    let demandPeriod: NodeJS.Timeout | undefined
    fastify.addHook('onReady', async () => {
      demandPeriod = setInterval(() => { metrics.adjust() }, ADJUSTMENT_PERIOD_MS).unref()
      await index.start()
      for (const s of sources()) await s.cache.ready
      statusReady = true
      config()
      statusPass()
    })
    fastify.addHook('onClose', async () => {
      clearInterval(demandPeriod)
      index.stop()
      statusReady = false
      await statusRunning
    })
  } else {
    fastify.decorate('flowControl', { inflight })
    metrics.inflightLimits(readOnlyLimit, mutatingLimit)
  }

  /** Holds `grant` until the answer; a watch's until its stream's headers go out. */
  function hold (request: FastifyRequest, reply: FastifyReply, grant: Held): void {
    request.flowControlHold = grant
    if (request.requestInfo.verb === 'watch') {
      const raw = reply.raw
      const writeHead = raw.writeHead
      raw.writeHead = function (this: typeof raw, ...args: Parameters<typeof raw.writeHead>) {
        grant.release()
        return writeHead.apply(this, args)
      } as typeof raw.writeHead
      raw.once('close', () => { grant.release() })
    }
  }

  async function admitWithPriority (request: FastifyRequest, reply: FastifyReply, waitLimitMs: number): Promise<void> {
    const info = request.requestInfo
    const digest = { info, user: request.user }
    const found = memo.classify(config(), digest)
    if (found === undefined) return // no catch-all: nothing to hold the request to
    const { schema, level } = found
    if (schema.uid !== '') reply.raw.setHeader(PF_HEADERS.flowSchema, schema.uid)
    if (level.uid !== '') reply.raw.setHeader(PF_HEADERS.priorityLevel, level.uid)
    const d = dispatcher!
    const mutating = isMutatingVerb(info.verb)
    if (level.exempt) {
      const grant = d.admit(level.name, schema.name, '', 1, 0, undefined, info.verb === 'watch') as Grant
      hold(request, reply, countedExecuting(metrics, mutating, () => { grant.release() }))
      return
    }
    let seats = 1
    let afterwards: Afterwards | undefined
    const maxSeats = maxSeatsOf(d.levels.get(level.name)?.limits.nominal ?? 0)
    if (info.verb === 'list' || info.verb === 'watch') {
      const kind = fastify.resources.lookup(info.apiGroup, info.apiVersion, info.resource)
      seats = d.seatsFor(level.name, estimateSeats(info, request.url, kind?.cache.size, maxSeats))
    } else if (info.isResourceRequest && fastify.hasDecorator('watchCounts')) {
      const watches = fastify.watchCounts.interested(info)
      if (sendsWatchEvents(info)) metrics.watchCount(level.name, schema.name, watches)
      const estimate = estimateMutating(info, watches, maxSeats)
      if (estimate.finalSeats > 0) {
        // The reference reserves a request's most seats from its start (queueset's MaxSeats).
        seats = d.seatsFor(level.name, Math.max(estimate.seats, estimate.finalSeats))
        afterwards = { seats: Math.min(estimate.finalSeats, seats), ms: estimate.additionalMs }
      }
    }
    metrics.estimated(level.name, schema.name, seats)
    const distinguisher = distinguisherOf(schema, digest)
    let result = d.admit(level.name, schema.name, `${schema.name}\n${distinguisher}`, seats, waitLimitMs, afterwards, info.verb === 'watch')
    if ('outcome' in result) {
      const waiting = result
      const gone = (): void => { waiting.cancel() }
      reply.raw.once('close', gone)
      metrics.requestPhase('waiting', mutating, 1)
      result = await waiting.outcome
      metrics.requestPhase('waiting', mutating, -1)
      reply.raw.removeListener('close', gone)
    }
    if (isRejection(result)) {
      if (result.rejected !== 'cancelled') logRejection(request, schema.name, level.name, distinguisher, result.rejected)
      // The reference counts every request its filter did not serve, a cancelled wait included.
      fastify.metrics.requestTermination(request, 429)
      throw tooManyRequests()
    }
    if (reply.raw.destroyed) { result.release(); return }
    const grant = result
    hold(request, reply, countedExecuting(metrics, mutating, () => { grant.release() }))
  }

  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const info = request.requestInfo
    const longRunning = isLongRunning(info)
    // Proxies, exec, attach, logs: neither a deadline nor a seat (their own limits apply).
    if (longRunning && info.verb !== 'watch') return
    let deadline = requestTimeoutMs
    if (!longRunning && requestTimeoutMs > 0) {
      deadline = deadlineMs(requestedTimeoutMs(request.url), requestTimeoutMs)
      request.deadlineTimer = armDeadline(request, reply, deadline, () => { fastify.metrics.requestTermination(request, 504) })
    }
    if (enabled) {
      // A request waits in its queue at most a quarter of its deadline, as the reference's.
      await admitWithPriority(request, reply, (deadline > 0 ? deadline : DEFAULT_REQUEST_TIMEOUT_MS) / 4)
      return
    }
    if (longRunning) return
    const release = inflight.admit(info, request.user)
    if (release === undefined) {
      fastify.metrics.requestTermination(request, 429)
      throw tooManyRequests()
    }
    request.flowControlHold = countedExecuting(metrics, isMutatingVerb(info.verb), release)
  })

  const settle = (request: FastifyRequest): void => {
    request.flowControlHold?.release()
    request.flowControlHold = null
    if (request.deadlineTimer !== null) {
      clearTimeout(request.deadlineTimer)
      request.deadlineTimer = null
    }
  }
  fastify.addHook('onResponse', (request: FastifyRequest, _reply: FastifyReply, done: () => void) => { settle(request); done() })
  fastify.addHook('onRequestAbort', (request: FastifyRequest, done: () => void) => { settle(request); done() })
}, { name: 'flow-control', dependencies: ['request-info', 'authn', 'impersonation', 'metrics', 'errors'] })
