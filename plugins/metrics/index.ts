// GET /metrics (Prometheus text exposition through prom-client) and the request metrics: one
// onRequest and one onResponse hook, their label values taken from the request info already
// parsed and their children looked up in nested Maps, so a request allocates no labels.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { collectDefaultMetrics, Gauge, Registry, type Metric } from 'prom-client'

const PROCESS_START_TIME = 'process_start_time_seconds'
import type { StorageObserver } from '../../storage/postgres.js'
import { CounterCell, CounterFamily, GaugeFamily, HistogramFamily, TimingHistogramFamily, type HistogramCell, type GaugeCell } from './cells.js'
import { METRICS, type FamilyDefinition } from './definitions.js'
import { annotatedHelp, checkShowHiddenFor, isHidden } from './stability.js'
import { COMPONENT, dryRunOf, isMutating, reportedVerb, scopeOf } from './request-labels.js'

export interface MetricsOptions {
  /** --show-hidden-metrics-for-version: the previous release, to show the metrics hidden in this one. */
  showHiddenMetricsForVersion?: string
}

export interface ApiserverMetrics {
  readonly registry: Registry
  /** What the storage tells of its statements and write batches. */
  readonly storage: StorageObserver
  admissionStep (operation: string, type: 'admit' | 'validate', rejected: boolean, seconds: number): void
  webhookRejection (name: string, operation: string, type: 'admit' | 'validating', errorType: 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error', code: number): void
  /** ValidatingAdmissionPolicy: one validation's outcome under one binding, as the reference's celmetrics. */
  policyCheck (policy: string, binding: string, errorType: 'no_error' | 'invalid_error' | 'compile_error', action: 'allow' | 'deny' | 'warn' | 'audit', seconds: number): void
  /** MutatingAdmissionPolicy: one mutation's outcome under one binding, as the reference's mutating celmetrics. */
  mutatingPolicyCheck (policy: string, binding: string, errorType: 'no_error' | 'invalid_error' | 'compile_error', seconds: number): void
  requestedDeprecatedApi (group: string, version: string, resource: string, subresource: string, removedRelease: string): void
  /** PodSecurity: a mode's decision on a pod at a level and version (labels as the reference recorder words them). */
  podSecurityEvaluation (decision: 'allow' | 'deny', level: string, version: string, mode: string, operation: string, resource: string, subresource: string): void
  podSecurityExemption (operation: string, resource: string, subresource: string): void
  podSecurityError (fatal: boolean, operation: string, resource: string, subresource: string): void
  /** The counter a watch stream of this kind increments per event sent; look it up once per stream. */
  watchEvents (group: string, version: string, resource: string): CounterCell
  /**
   * A request the server ended in self-defense (apiserver_request_terminations_total): 429 when
   * priority and fairness or the in-flight limits reject it, 504 when its deadline passes.
   */
  requestTermination (request: FastifyRequest, code: number): void
  /** Families another plugin records itself (API Priority and Fairness), registered under the stability rules. */
  readonly families: {
    counter (def: FamilyDefinition): CounterFamily
    gauge (def: FamilyDefinition): GaugeFamily
    histogram (def: FamilyDefinition): HistogramFamily
    timingHistogram (def: FamilyDefinition): TimingHistogramFamily
  }
}

declare module 'fastify' {
  interface FastifyInstance { metrics: ApiserverMetrics }
}

/** One label set of the request metrics: its duration histogram and its counters by status code. */
interface Series {
  values: string[]
  duration: HistogramCell
  codes: Map<number, CounterCell>
}

type Level = Map<string, any>

export default fp(async function metrics (fastify: FastifyInstance, opts: MetricsOptions) {
  const showHiddenFor = checkShowHiddenFor(opts.showHiddenMetricsForVersion)
  const registry = new Registry()
  // Outside the stability framework, so with no level in their HELP: the reference registers
  // its process and Go runtime collectors the same way (legacyregistry.RawMustRegister). Its
  // process start time is the exception, a metric of its own at ALPHA (component-base's
  // RegisterProcessStartTime), so ours is too.
  collectDefaultMetrics({ register: registry })
  registry.removeSingleMetric(PROCESS_START_TIME)
  new Gauge({ name: PROCESS_START_TIME, help: `[ALPHA] Start time of the process since unix epoch in seconds.`, registers: [registry] })
    .set(Math.round(Date.now() / 1000 - process.uptime()))

  function register<F extends CounterFamily | GaugeFamily | HistogramFamily | TimingHistogramFamily> (def: FamilyDefinition, family: F): F {
    if (def.deprecatedVersion !== undefined) {
      family.children.onFirstChild = () => fastify.log.warn({ metric: def.name }, `metric ${def.name} is deprecated since ${def.deprecatedVersion}`)
    }
    if (!isHidden(def, showHiddenFor)) registry.registerMetric(family as unknown as Metric)
    return family
  }
  const counter = (def: FamilyDefinition): CounterFamily => register(def, new CounterFamily(def.name, annotatedHelp(def), def.labels))
  const gauge = (def: FamilyDefinition): GaugeFamily => register(def, new GaugeFamily(def.name, annotatedHelp(def), def.labels))
  const histogram = (def: FamilyDefinition): HistogramFamily => register(def, new HistogramFamily(def.name, annotatedHelp(def), def.labels, def.buckets ?? []))
  const timingHistogram = (def: FamilyDefinition): TimingHistogramFamily =>
    register(def, new TimingHistogramFamily(def.name, `EXPERIMENTAL: ${annotatedHelp(def)}`, def.labels, def.buckets ?? []))

  const requestTotal = counter(METRICS.requestTotal)
  const requestDuration = histogram(METRICS.requestDuration)
  const inflightFamily = gauge(METRICS.currentInflight)
  const longRunning = gauge(METRICS.longRunning)
  const storageObjects = gauge(METRICS.storageObjects)
  const watchEvents = counter(METRICS.watchEvents)
  const admissionStep = histogram(METRICS.admissionStep)
  const webhookRejection = counter(METRICS.webhookRejection)
  const deprecatedApis = gauge(METRICS.requestedDeprecatedApis)
  const policyChecks = counter(METRICS.policyCheckTotal)
  const policyCheckDuration = histogram(METRICS.policyCheckDuration)
  const mutatingPolicyChecks = counter(METRICS.mutatingPolicyCheckTotal)
  const mutatingPolicyCheckDuration = histogram(METRICS.mutatingPolicyCheckDuration)
  const podSecurityEvaluations = counter(METRICS.podSecurityEvaluations)
  const podSecurityExemptions = counter(METRICS.podSecurityExemptions)
  const podSecurityErrors = counter(METRICS.podSecurityErrors)
  const requestTerminations = counter(METRICS.requestTerminations)
  const dbDuration = histogram(METRICS.storageRequestDuration)
  const writeBatch = histogram(METRICS.storageWriteBatch)

  // Plain numbers on the request path; the gauge reads them when scraped.
  const inflight = { readOnly: 0, mutating: 0 }
  const readOnlyCell = inflightFamily.child('readOnly')
  const mutatingCell = inflightFamily.child('mutating')
  inflightFamily.collect = () => {
    readOnlyCell.set(inflight.readOnly)
    mutatingCell.set(inflight.mutating)
  }
  storageObjects.collect = () => {
    if (!fastify.hasDecorator('resources')) return
    for (const store of fastify.resources.all()) {
      const r = store.resource
      storageObjects.child(r.group === '' ? r.plural : `${r.plural}.${r.group}`).set(store.cache.size)
    }
  }

  const dbCells = new Map<string, HistogramCell>()
  const batchCell = writeBatch.child()
  const decorated: ApiserverMetrics = {
    registry,
    storage: {
      query (operation, seconds) {
        let cell = dbCells.get(operation)
        if (cell === undefined) { cell = dbDuration.child(operation); dbCells.set(operation, cell) }
        cell.observe(seconds)
      },
      writeBatch (size) { batchCell.observe(size) }
    },
    admissionStep (operation, type, rejected, seconds) { admissionStep.child(operation, String(rejected), type).observe(seconds) },
    webhookRejection (name, operation, type, errorType, code) { webhookRejection.child(name, operation, type, errorType, String(Math.min(code, 600))).inc() },
    policyCheck (policy, binding, errorType, action, seconds) {
      policyChecks.child(policy, binding, errorType, action).inc()
      policyCheckDuration.child(policy, binding, errorType, action).observe(seconds)
    },
    mutatingPolicyCheck (policy, binding, errorType, seconds) {
      mutatingPolicyChecks.child(policy, binding, errorType).inc()
      mutatingPolicyCheckDuration.child(policy, binding, errorType).observe(seconds)
    },
    requestedDeprecatedApi (group, version, resource, subresource, removedRelease) { deprecatedApis.child(group, version, resource, subresource, removedRelease).set(1) },
    watchEvents: (group, version, resource) => watchEvents.child(group, version, resource),
    requestTermination (request, code) {
      const info = request.requestInfo
      const [group, version, resource, subresource] = boundedTarget(request, code)
      requestTerminations.child(reportedVerb(info, request.method, request.headers['content-type']), group, version, resource, subresource, scopeOf(info), COMPONENT, String(code)).inc()
    },
    families: { counter, gauge, histogram, timingHistogram },
    podSecurityEvaluation (decision, level, version, mode, operation, resource, subresource) {
      podSecurityEvaluations.child(decision, level, version, mode, operation, resource, subresource).inc()
    },
    podSecurityExemption (operation, resource, subresource) { podSecurityExemptions.child(operation, resource, subresource).inc() },
    podSecurityError (fatal, operation, resource, subresource) { podSecurityErrors.child(String(fatal), operation, resource, subresource).inc() }
  }
  fastify.decorate('metrics', decorated)

  // verb → dry_run → group → version → resource → subresource → scope → Series
  const root: Level = new Map()
  function findSeries (verb: string, dryRun: string, group: string, version: string, resource: string, subresource: string, scope: string): Series | undefined {
    const a: Level | undefined = root.get(verb)?.get(dryRun)?.get(group)
    return a?.get(version)?.get(resource)?.get(subresource)?.get(scope) as Series | undefined
  }
  function addSeries (values: string[]): Series {
    let level = root
    for (let i = 0; i < values.length - 1; i++) {
      let next = level.get(values[i]!) as Level | undefined
      if (next === undefined) { next = new Map(); level.set(values[i]!, next) }
      level = next
    }
    let series = level.get(values[values.length - 1]!) as Series | undefined
    if (series === undefined) {
      series = { values, duration: requestDuration.child(...values.slice(0, 7), COMPONENT), codes: new Map() }
      level.set(values[values.length - 1]!, series)
    }
    return series
  }

  /**
   * The label values a request is counted under when its own are not known yet: only kinds,
   * subresources and routes the server serves name themselves, so no client can grow the
   * number of series by asking for made-up paths.
   */
  function boundedSeries (request: FastifyRequest, code: number, verb: string, dryRun: string, scope: string): Series {
    return addSeries([verb, dryRun, ...boundedTarget(request, code), scope])
  }

  /** group, version, resource and subresource (a non-resource request's path) as the series name them. */
  function boundedTarget (request: FastifyRequest, code: number): [string, string, string, string] {
    const info = request.requestInfo
    if (info.isResourceRequest) {
      const store = fastify.hasDecorator('resources') ? fastify.resources.lookup(info.apiGroup, info.apiVersion, info.resource) : undefined
      const known = store !== undefined && (info.subresource === '' || store.resource.subresources[info.subresource] !== undefined)
      return known ? [info.apiGroup, info.apiVersion, info.resource, info.subresource] : ['', '', '', '']
    }
    const route = request.routeOptions.url
    let path = ''
    if (route !== undefined) path = (!route.includes('*') && !route.includes(':')) || code < 400 ? info.path : route
    return ['', '', '', path]
  }

  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const info = request.requestInfo
    if (info.verb === 'watch') {
      // Only watches of served kinds get a series: made-up paths must not add any.
      if (fastify.hasDecorator('resources') && fastify.resources.lookup(info.apiGroup, info.apiVersion, info.resource) !== undefined) {
        const cell: GaugeCell = longRunning.child('WATCH', info.apiGroup, info.apiVersion, info.resource, info.subresource, scopeOf(info), COMPONENT)
        cell.inc()
        reply.raw.once('close', () => { cell.dec() })
      }
    } else if (isMutating(info, request.method)) inflight.mutating++
    else inflight.readOnly++
    done()
  })

  const settle = (request: FastifyRequest): void => {
    const info = request.requestInfo
    if (info.verb === 'watch') return
    if (isMutating(info, request.method)) inflight.mutating--
    else inflight.readOnly--
  }
  // A request whose client went away before its answer never gets onResponse, and one that
  // got its answer is not aborted: each request settles once.
  fastify.addHook('onRequestAbort', (request: FastifyRequest, done: () => void) => {
    settle(request)
    done()
  })

  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    settle(request)
    const info = request.requestInfo
    const code = reply.statusCode
    const verb = reportedVerb(info, request.method, request.headers['content-type'])
    const dryRun = dryRunOf(request.url)
    const scope = scopeOf(info)
    const series = (info.isResourceRequest
      ? findSeries(verb, dryRun, info.apiGroup, info.apiVersion, info.resource, info.subresource, scope)
      : findSeries(verb, dryRun, '', '', '', info.path, scope)) ?? boundedSeries(request, code, verb, dryRun, scope)
    let count = series.codes.get(code)
    if (count === undefined) {
      count = requestTotal.child(...series.values, COMPONENT, String(code))
      series.codes.set(code, count)
    }
    count.inc()
    series.duration.observe(reply.elapsedTime / 1000)
    done()
  })

  fastify.get('/metrics', async (_request: FastifyRequest, reply: FastifyReply) => {
    const text = await registry.metrics()
    return reply.type(registry.contentType).send(text)
  })
}, { name: 'metrics', dependencies: ['request-info'] })
