// Metric families whose children are plain cells: recording is a field increment on a child the
// caller keeps (no label hashing per observation, as prom-client's own children do), and the
// exposition is built only when /metrics is scraped. They register in a prom-client Registry
// like its own metrics, which formats them.
type Labels = Record<string, string>
/** One exposition line, as prom-client's Registry reads it from a metric's get(). */
export interface SampleValue { labels: Labels, value: number, metricName?: string }
export interface FamilySnapshot { name: string, help: string, type: 'counter' | 'gauge' | 'histogram', aggregator: 'sum', values: SampleValue[] }

export class CounterCell {
  value = 0
  constructor (readonly labels: Labels) {}
  inc (by = 1): void { this.value += by }
}

export class GaugeCell {
  value = 0
  constructor (readonly labels: Labels) {}
  inc (): void { this.value++ }
  dec (): void { this.value-- }
  set (v: number): void { this.value = v }
}

export class HistogramCell {
  /** Per-bucket (not cumulative) counts; the last one is +Inf. */
  readonly counts: Float64Array
  sum = 0
  count = 0
  constructor (readonly labels: Labels, private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1)
  }

  observe (v: number): void {
    const b = this.bounds
    let i = 0
    while (i < b.length && v > b[i]!) i++
    this.counts[i]!++
    this.sum += v
    this.count++
  }
}

/**
 * The reference's timing histogram (component-base TimingHistogram): a gauge whose value is
 * credited, for the time it held it, to its bucket. Counts are nanoseconds; the sum is the
 * integral of the value over nanoseconds. `numerator / denominator` is the value, so a ratio
 * gauge (the reference's TimingRatioHistogram) changes either side without recomputing the other.
 */
export class TimingHistogramCell {
  readonly counts: Float64Array
  sum = 0
  private numerator = 0
  private denominator = 1
  private value = 0
  /** Whole nanoseconds of `now` (milliseconds) when the value last changed. */
  private since: number
  constructor (readonly labels: Labels, private readonly bounds: readonly number[], private readonly now: () => number) {
    this.counts = new Float64Array(bounds.length + 1)
    this.since = Math.round(now() * 1e6)
  }

  /** Credits the time up to `nowMs` to the value held through it. */
  private settle (nowMs: number): void {
    const t = Math.round(nowMs * 1e6)
    const ns = t - this.since
    if (ns <= 0) return
    const b = this.bounds
    let i = 0
    while (i < b.length && this.value > b[i]!) i++
    this.counts[i]! += ns
    this.sum += ns * this.value
    this.since = t
  }

  private update (nowMs: number): void {
    this.settle(nowMs)
    this.value = this.numerator / this.denominator
  }

  /** `nowMs`: the clock's reading, when the caller has one for several cells (each costs ~0.2 µs). */
  set (numerator: number, nowMs = this.now()): void {
    if (numerator === this.numerator) return
    this.numerator = numerator
    this.update(nowMs)
  }

  setDenominator (denominator: number): void { this.denominator = denominator; this.update(this.now()) }
  /** Brings the counts up to now (at scrape time). */
  flush (): void { this.settle(this.now()) }
}

/**
 * Children by label values, one nested Map level per label: a lookup of known values makes no
 * string or object. Unknown values create the child; callers bound what they pass.
 */
class Children<C> {
  private readonly root = new Map<string, unknown>()
  private readonly list: C[] = []
  /** Called once, when the first child is made (a deprecated metric warns when it is first recorded). */
  onFirstChild?: () => void
  constructor (readonly labelNames: readonly string[], private readonly make: (labels: Labels) => C) {}

  get (values: readonly string[]): C {
    let level = this.root
    const last = values.length - 1
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Map<string, unknown> | undefined
      if (next === undefined) { next = new Map(); level.set(values[i]!, next) }
      level = next
    }
    let child = level.get(values[last]!) as C | undefined
    if (child === undefined) {
      const labels: Labels = {}
      this.labelNames.forEach((n, i) => { labels[n] = values[i]! })
      child = this.make(labels)
      level.set(values[last]!, child)
      this.list.push(child)
      if (this.list.length === 1) this.onFirstChild?.()
    }
    return child
  }

  all (): readonly C[] { return this.list }
}

abstract class Family<C> {
  readonly children: Children<C>
  readonly aggregator = 'sum' as const
  abstract readonly type: FamilySnapshot['type']
  /** Called at scrape time, before the values are read (gauges that sample a state). */
  collect?: () => void
  constructor (readonly name: string, readonly help: string, labelNames: readonly string[], make: (labels: Labels) => C) {
    this.children = new Children(labelNames, make)
  }

  /** The child for these label values, in labelNames order; keep it for the hot path. */
  child (...values: string[]): C { return this.children.get(values) }
  protected abstract values (): SampleValue[]

  get (): FamilySnapshot {
    this.collect?.()
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.values() }
  }

  reset (): void {}
}

export class CounterFamily extends Family<CounterCell> {
  readonly type = 'counter' as const
  constructor (name: string, help: string, labelNames: readonly string[]) { super(name, help, labelNames, l => new CounterCell(l)) }
  protected values (): SampleValue[] { return this.children.all().map(c => ({ labels: c.labels, value: c.value })) }
}

export class GaugeFamily extends Family<GaugeCell> {
  readonly type = 'gauge' as const
  constructor (name: string, help: string, labelNames: readonly string[]) { super(name, help, labelNames, l => new GaugeCell(l)) }
  protected values (): SampleValue[] { return this.children.all().map(c => ({ labels: c.labels, value: c.value })) }
}

function histogramValues (name: string, bounds: readonly number[], cells: readonly HistogramCell[] | readonly TimingHistogramCell[]): SampleValue[] {
  const out: SampleValue[] = []
  for (const c of cells) {
    let cumulative = 0
    bounds.forEach((le, i) => {
      cumulative += c.counts[i]!
      out.push({ metricName: `${name}_bucket`, labels: { ...c.labels, le: String(le) }, value: cumulative })
    })
    cumulative += c.counts[bounds.length]!
    out.push({ metricName: `${name}_bucket`, labels: { ...c.labels, le: '+Inf' }, value: cumulative })
    out.push({ metricName: `${name}_sum`, labels: c.labels, value: c.sum })
    out.push({ metricName: `${name}_count`, labels: c.labels, value: cumulative })
  }
  return out
}

export class HistogramFamily extends Family<HistogramCell> {
  readonly type = 'histogram' as const
  constructor (name: string, help: string, labelNames: readonly string[], readonly bounds: readonly number[]) {
    super(name, help, labelNames, l => new HistogramCell(l, bounds))
  }

  protected values (): SampleValue[] { return histogramValues(this.name, this.bounds, this.children.all()) }
}

export class TimingHistogramFamily extends Family<TimingHistogramCell> {
  readonly type = 'histogram' as const
  constructor (name: string, help: string, labelNames: readonly string[], readonly bounds: readonly number[], now: () => number = () => performance.now()) {
    super(name, help, labelNames, l => new TimingHistogramCell(l, bounds, now))
  }

  protected values (): SampleValue[] {
    const cells = this.children.all()
    for (const c of cells) c.flush()
    return histogramValues(this.name, this.bounds, cells)
  }
}
