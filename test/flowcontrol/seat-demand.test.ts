// The pieces of the utilization and seat-demand metrics, on a clock the test moves: the timing
// histogram credits each value with the nanoseconds it was held, and the demand statistics are
// the reference's moments and smoothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { TimingHistogramFamily } from '../../plugins/metrics/cells.js'
import { Integrator, updateStats, type SeatDemandStats } from '../../plugins/flowcontrol/seat-demand.js'

test('a timing histogram counts the nanoseconds its ratio spent in each bucket, and their weighted sum', () => {
  let ms = 0
  const family = new TimingHistogramFamily('x_ratio', 'help', ['level'], [0.5, 1], () => ms)
  const cell = family.child('a')
  cell.setDenominator(2)
  ms = 1
  cell.set(1) // 0 for 1 ms
  ms = 3
  cell.set(4) // 0.5 for 2 ms
  cell.set(4) // no change: nothing credited
  ms = 4 // 2 for 1 ms, up to the scrape
  const byName = new Map(family.get().values.map(v => [`${v.metricName ?? ''}${v.labels.le ?? ''}`, v.value]))
  assert.deepEqual(Object.fromEntries(byName), {
    'x_ratio_bucket0.5': 3e6,
    x_ratio_bucket1: 3e6,
    'x_ratio_bucket+Inf': 4e6,
    x_ratio_sum: 0.5 * 2e6 + 2 * 1e6,
    x_ratio_count: 4e6
  })
})

test('seat demand: time-weighted average, deviation and high watermark per period; the smoothed envelope decays', () => {
  let ms = 0
  const demand = new Integrator(() => ms)
  ms = 1000
  demand.set(2)
  ms = 3000
  demand.set(0)
  ms = 4000
  const stats: SeatDemandStats = { highWatermark: 0, average: 0, stdev: 0, smoothed: 0 }
  const first = demand.reset()
  assert.deepEqual(first, { seconds: 4, average: 1, deviation: 1, min: 0, max: 2 })
  updateStats(stats, first)
  assert.deepEqual(stats, { highWatermark: 2, average: 1, stdev: 1, smoothed: 2 })
  ms = 14_000
  updateStats(stats, demand.reset())
  assert.equal(stats.highWatermark, 0, 'the watermark restarts from the value at the reset')
  assert.equal(stats.average, 0)
  assert.equal(stats.stdev, 0)
  assert.ok(Math.abs(stats.smoothed - 0.977 * 2) < 1e-12, 'the envelope decays by the smoothing coefficient')
})
