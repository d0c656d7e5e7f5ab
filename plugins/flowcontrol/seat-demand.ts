// A priority level's seat demand (seats in use plus seats waiting) over time, and the statistics
// the reference's config controller derives from it every adjustment period: the period's high
// watermark, time-weighted average and standard deviation, and a smoothed envelope that decays
// slowly after a burst. The reference feeds them to its periodic re-division of the seats; here
// seats are lent at dispatch, so they are reported only (apiserver_flowcontrol_demand_seats_*).

/** The reference's borrowingAdjustmentPeriod. */
export const ADJUSTMENT_PERIOD_MS = 10_000
/** The reference's seatDemandSmoothingCoefficient. */
const SMOOTHING = 0.977

export interface IntegratorResults {
  seconds: number
  average: number
  /** sqrt(average((x − average)²)); NaN when rounding makes the variance negative. */
  deviation: number
  min: number
  max: number
}

/** The time integrals of x, x² and 1 since the last reset (the reference's fairqueuing Integrator). */
export class Integrator {
  private x = 0
  private last: number
  private elapsed = 0
  private integralX = 0
  private integralXX = 0
  private min = 0
  private max = 0

  constructor (private readonly now: () => number = () => performance.now()) {
    this.last = now()
  }

  set (x: number, nowMs = this.now()): void {
    this.advance(nowMs)
    this.x = x
    if (x < this.min) this.min = x
    if (x > this.max) this.max = x
  }

  private advance (t: number): void {
    const dt = (t - this.last) / 1000
    this.last = t
    this.elapsed += dt
    this.integralX += this.x * dt
    this.integralXX += this.x * this.x * dt
  }

  /** The results up to now; integration starts again from now, from the current value. */
  reset (): IntegratorResults {
    this.advance(this.now())
    let average = NaN
    let deviation = NaN
    if (this.elapsed > 0) {
      average = this.integralX / this.elapsed
      const variance = this.integralXX / this.elapsed - average * average
      if (variance >= 0) deviation = Math.sqrt(variance)
    }
    const results = { seconds: this.elapsed, average, deviation, min: this.min, max: this.max }
    this.elapsed = this.integralX = this.integralXX = 0
    this.min = this.max = this.x
    return results
  }
}

export interface SeatDemandStats { highWatermark: number, average: number, stdev: number, smoothed: number }

/** The reference's seatDemandStats.update: the stats after one more period's results. */
export function updateStats (stats: SeatDemandStats, r: IntegratorResults): void {
  stats.highWatermark = Math.round(r.max)
  if (r.seconds <= 0) return
  const deviation = Number.isNaN(r.deviation) ? 0 : r.deviation
  stats.average = r.average
  stats.stdev = deviation
  const envelope = r.average + deviation
  stats.smoothed = Math.max(envelope, SMOOTHING * stats.smoothed + (1 - SMOOTHING) * envelope)
}
