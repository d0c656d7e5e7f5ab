// The apiserver_flowcontrol_* metrics: the dispatcher's counts as they change, and the levels'
// seat limits read when /metrics is scraped. Cells are kept per level and schema, so the hot path
// is a Map lookup and an increment. The utilization and demand timing histograms are ratios of
// a level's count to its nominal seats (the reference divides by its periodically re-derived
// limit, which this server's lending at dispatch does not have; see docs/load-protection.md).
import type { ApiserverMetrics } from '../metrics/index.js'
import { FLOWCONTROL_METRICS as M } from '../metrics/definitions.js'
import type { CounterCell, GaugeCell, HistogramCell, TimingHistogramCell } from '../metrics/cells.js'
import type { Dispatcher, DispatchObserver, LevelState, RejectReason } from './dispatcher.js'
import { Integrator, updateStats, type SeatDemandStats } from './seat-demand.js'

interface FlowCells {
  dispatched: CounterCell
  inqueueRequests: GaugeCell
  inqueueSeats: GaugeCell
  queueLength: HistogramCell
  executingRequests: GaugeCell
  executingSeats: GaugeCell
  waitExecuted: HistogramCell
  execution: HistogramCell
  estimatedSeats: HistogramCell
  noAccommodation: CounterCell
}

interface LevelCells {
  seats: TimingHistogramCell
  executing: TimingHistogramCell
  waiting: TimingHistogramCell
  demand: TimingHistogramCell
  demandIntegral: Integrator
  stats: SeatDemandStats
}

type Phase = 'waiting' | 'executing'

export interface FlowcontrolMetrics extends DispatchObserver {
  /** The seats a request was estimated at, before it waits. */
  estimated (level: string, schema: string, seats: number): void
  /** The watches a write of this flow will send its event to (the mutating work estimator's input). */
  watchCount (level: string, schema: string, watches: number): void
  /** A request starts or stops waiting or executing (read_vs_write_current_requests). */
  requestPhase (phase: Phase, mutating: boolean, delta: 1 | -1): void
  /** With priority and fairness disabled: the in-flight limits the executing requests are a fraction of. */
  inflightLimits (readOnly: number, mutating: number): void
  /** The end of a demand period: the seat-demand statistics of every level. */
  adjust (): void
}

export function flowcontrolMetrics (metrics: ApiserverMetrics, dispatcher: () => Dispatcher | undefined): FlowcontrolMetrics {
  const f = metrics.families
  const rejected = f.counter(M.rejected)
  const dispatched = f.counter(M.dispatched)
  const inqueueRequests = f.gauge(M.inqueueRequests)
  const inqueueSeats = f.gauge(M.inqueueSeats)
  const queueLength = f.histogram(M.queueLength)
  const executingRequests = f.gauge(M.executingRequests)
  const executingSeats = f.gauge(M.executingSeats)
  const waitDuration = f.histogram(M.waitDuration)
  const executionDuration = f.histogram(M.executionDuration)
  const estimatedSeats = f.histogram(M.estimatedSeats)
  const nominal = f.gauge(M.nominalLimit)
  const lower = f.gauge(M.lowerLimit)
  const upper = f.gauge(M.upperLimit)
  const current = f.gauge(M.currentLimit)
  const seatUtilization = f.timingHistogram(M.seatUtilization)
  const requestUtilization = f.timingHistogram(M.requestUtilization)
  const readVsWrite = f.timingHistogram(M.readVsWrite)
  const concurrencyLimit = f.gauge(M.concurrencyLimit)
  const concurrencyInUse = f.gauge(M.concurrencyInUse)
  const noAccommodation = f.counter(M.noAccommodation)
  const watchCounts = f.histogram(M.watchCountSamples)
  const demandSeats = f.timingHistogram(M.demandSeats)
  const demandHighWatermark = f.gauge(M.demandHighWatermark)
  const demandAverage = f.gauge(M.demandAverage)
  const demandStdev = f.gauge(M.demandStdev)
  const demandSmoothed = f.gauge(M.demandSmoothed)
  nominal.collect = () => {
    const d = dispatcher()
    if (d === undefined) return
    for (const [name, s] of d.levels) {
      nominal.child(name).set(s.limits.nominal)
      lower.child(name).set(s.entry.exempt ? 0 : s.limits.guaranteed)
      upper.child(name).set(s.entry.exempt ? 0 : s.limits.upper)
      current.child(name).set(s.entry.exempt ? 0 : Math.max(s.limits.guaranteed, s.inUseSeats))
    }
  }
  // Deprecated names of two of the gauges above, read from them (shown while not hidden).
  concurrencyLimit.collect = () => {
    for (const [name, s] of dispatcher()?.levels ?? []) concurrencyLimit.child(name).set(s.limits.nominal)
  }
  concurrencyInUse.collect = () => {
    for (const c of executingSeats.children.all()) concurrencyInUse.child(c.labels.priority_level!, c.labels.flow_schema!).set(c.value)
  }

  const levelCells = new Map<string, LevelCells>()
  const ofLevel = (level: string): LevelCells => {
    let c = levelCells.get(level)
    if (c === undefined) {
      c = {
        seats: seatUtilization.child('executing', level),
        executing: requestUtilization.child('executing', level),
        waiting: requestUtilization.child('waiting', level),
        demand: demandSeats.child(level),
        demandIntegral: new Integrator(),
        stats: { highWatermark: 0, average: 0, stdev: 0, smoothed: 0 }
      }
      levelCells.set(level, c)
    }
    return c
  }

  const phases = {
    waiting: { counts: [0, 0], cells: [readVsWrite.child('waiting', 'readOnly'), readVsWrite.child('waiting', 'mutating')] },
    executing: { counts: [0, 0], cells: [readVsWrite.child('executing', 'readOnly'), readVsWrite.child('executing', 'mutating')] }
  }
  const setReadWriteLimits = (waiting: number, readOnly: number, mutating: number): void => {
    phases.waiting.cells[0]!.setDenominator(waiting)
    phases.waiting.cells[1]!.setDenominator(waiting)
    phases.executing.cells[0]!.setDenominator(readOnly)
    phases.executing.cells[1]!.setDenominator(mutating)
  }

  function changed (s: LevelState): void {
    const c = ofLevel(s.entry.name)
    const demand = s.inUseSeats + s.waitingSeats
    const now = performance.now()
    c.seats.set(s.inUseSeats, now)
    c.executing.set(s.executing, now)
    c.waiting.set(s.waiting, now)
    c.demand.set(demand, now)
    c.demandIntegral.set(demand, now)
  }

  function adjust (): void {
    for (const [level, c] of levelCells) {
      updateStats(c.stats, c.demandIntegral.reset())
      demandHighWatermark.child(level).set(c.stats.highWatermark)
      demandAverage.child(level).set(c.stats.average)
      demandStdev.child(level).set(c.stats.stdev)
      demandSmoothed.child(level).set(c.stats.smoothed)
    }
  }

  const cells = new Map<string, Map<string, FlowCells>>()
  const of = (level: string, schema: string): FlowCells => {
    let bySchema = cells.get(level)
    if (bySchema === undefined) cells.set(level, bySchema = new Map())
    let c = bySchema.get(schema)
    if (c === undefined) {
      c = {
        dispatched: dispatched.child(level, schema),
        inqueueRequests: inqueueRequests.child(level, schema),
        inqueueSeats: inqueueSeats.child(level, schema),
        queueLength: queueLength.child(level, schema),
        executingRequests: executingRequests.child(level, schema),
        executingSeats: executingSeats.child(level, schema),
        waitExecuted: waitDuration.child(level, schema, 'true'),
        execution: executionDuration.child(level, schema, 'regular'),
        estimatedSeats: estimatedSeats.child(level, schema),
        noAccommodation: noAccommodation.child(level, schema)
      }
      bySchema.set(schema, c)
    }
    return c
  }

  return {
    estimated (level, schema, seats) { of(level, schema).estimatedSeats.observe(seats) },
    watchCount (level, schema, watches) { watchCounts.child(level, schema).observe(watches) },
    requestPhase (phase, mutating, delta) {
      const p = phases[phase]
      const i = mutating ? 1 : 0
      p.cells[i]!.set(p.counts[i]! += delta)
    },
    inflightLimits (readOnly, mutating) {
      // As the reference's max-in-flight filter: a limit of 0 (none) leaves the denominator at 1.
      setReadWriteLimits(1, Math.max(1, readOnly), Math.max(1, mutating))
    },
    adjust,
    configured (levels: ReadonlyMap<string, LevelState>, serverLimit) {
      let waitingLimit = 0
      let executingLimit = 0
      for (const [name, s] of levels) {
        const c = ofLevel(name)
        // A level without nominal seats is measured against a tenth of the server, as the reference's.
        const seats = s.limits.nominal > 0 ? s.limits.nominal : Math.max(1, Math.round(serverLimit / 10))
        c.seats.setDenominator(seats)
        c.executing.setDenominator(seats)
        c.demand.setDenominator(seats)
        const q = s.entry.queuing
        c.waiting.setDenominator(Math.max(1, q?.queueLengthLimit ?? 0) * Math.max(1, q?.queues ?? 0))
        executingLimit += s.limits.nominal
        if (q !== undefined) waitingLimit += q.queues * q.queueLengthLimit
        changed(s)
      }
      setReadWriteLimits(Math.max(1, waitingLimit), Math.max(1, executingLimit), Math.max(1, executingLimit))
      // The reference re-derives its limits, and so restarts the demand period, on every configuration.
      adjust()
    },
    changed,
    unaccommodated (level, schema) { of(level, schema).noAccommodation.inc() },
    enqueued (level, schema, seats, length) {
      const c = of(level, schema)
      c.inqueueRequests.inc()
      c.inqueueSeats.set(c.inqueueSeats.value + seats)
      c.queueLength.observe(length)
    },
    dequeued (level, schema, seats) {
      const c = of(level, schema)
      c.inqueueRequests.dec()
      c.inqueueSeats.set(c.inqueueSeats.value - seats)
    },
    dispatched (level, schema, seats, waitedMs) {
      const c = of(level, schema)
      c.dispatched.inc()
      c.executingRequests.inc()
      c.executingSeats.set(c.executingSeats.value + seats)
      c.waitExecuted.observe(waitedMs / 1000)
    },
    finished (level, schema, seats, executedMs, watch) {
      const c = of(level, schema)
      c.executingRequests.dec()
      c.executingSeats.set(c.executingSeats.value - seats)
      // As the reference: a watch's execution (to its stream's start) is typed apart.
      if (watch) executionDuration.child(level, schema, 'watch').observe(executedMs / 1000)
      else c.execution.observe(executedMs / 1000)
    },
    rejected (level, schema, reason: RejectReason, waitedMs) {
      rejected.child(level, schema, reason).inc()
      waitDuration.child(level, schema, 'false').observe(waitedMs / 1000)
    }
  }
}
