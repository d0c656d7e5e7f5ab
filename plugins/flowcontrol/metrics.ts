// The apiserver_flowcontrol_* metrics: the dispatcher's counts as they change, and the levels'
// seat limits read when /metrics is scraped. Cells are kept per level and schema, so the hot path
// is a Map lookup and an increment.
import type { ApiserverMetrics } from '../metrics/index.js'
import { FLOWCONTROL_METRICS as M } from '../metrics/definitions.js'
import type { CounterCell, GaugeCell, HistogramCell } from '../metrics/cells.js'
import type { Dispatcher, DispatchObserver, RejectReason } from './dispatcher.js'

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
}

export interface FlowcontrolMetrics extends DispatchObserver {
  /** The seats a request was estimated at, before it waits. */
  estimated (level: string, schema: string, seats: number): void
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
        estimatedSeats: estimatedSeats.child(level, schema)
      }
      bySchema.set(schema, c)
    }
    return c
  }

  return {
    estimated (level, schema, seats) { of(level, schema).estimatedSeats.observe(seats) },
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
    finished (level, schema, seats, executedMs) {
      const c = of(level, schema)
      c.executingRequests.dec()
      c.executingSeats.set(c.executingSeats.value - seats)
      c.execution.observe(executedMs / 1000)
    },
    rejected (level, schema, reason: RejectReason, waitedMs) {
      rejected.child(level, schema, reason).inc()
      waitDuration.child(level, schema, 'false').observe(waitedMs / 1000)
    }
  }
}
