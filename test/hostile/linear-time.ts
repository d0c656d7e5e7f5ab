// Timing a parser on its worst input at two sizes in one run: linear code takes about ten
// times as long on ten times the input, quadratic code a hundred. Ratios of minima over a few
// repetitions, in CPU time (a run that waits for a core is not slower code), hold on a busy
// machine where absolute times do not.
import assert from 'node:assert/strict'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

// A collection before each timed run, so one run's garbage is not swept in the next's time.
setFlagsFromString('--expose-gc')
const collect = runInNewContext('gc') as () => void

const fastest = (fn: () => unknown, repetitions: number): number => {
  let best = Infinity
  for (let i = 0; i < repetitions; i++) {
    collect()
    const start = process.cpuUsage()
    try { fn() } catch {}
    const used = process.cpuUsage(start)
    best = Math.min(best, (used.user + used.system) / 1000)
  }
  return best
}

/**
 * The larger input stays within the processor's caches and the young generation: past them
 * even a linear scan, or a loop that keeps what it allocates, slows per character, and 10x
 * the input took 30-100x the time. A quadratic parser still shows: 300,000 characters of
 * unterminated PEM took most of a second.
 */
const MAX_CHARS = 300_000

export interface Growth { n: number, small: number, large: number, ratio: number }

/**
 * The time of `run(input(n))` at n and at 10n. n starts at `from` and doubles until a run
 * takes `floorMs` (so the clock's grain does not set the ratio) or the larger input would pass
 * MAX_CHARS; then both sizes are timed in turn, so a busy spell of the machine weighs on both.
 */
export function growth<T> (input: (n: number) => string, run: (s: string) => T, from: number, floorMs = 4): Growth {
  let n = from
  let text = input(n)
  while (fastest(() => run(text), 5) < floorMs && input(2 * n).length * 10 <= MAX_CHARS) {
    n *= 2
    text = input(n)
  }
  const larger = input(10 * n)
  let small = Infinity
  let large = Infinity
  for (let round = 0; round < 5; round++) {
    small = Math.min(small, fastest(() => run(text), 2))
    large = Math.min(large, fastest(() => run(larger), 1))
  }
  // Below a millisecond the clock and the collector set the time, not the input.
  return { n, small, large, ratio: large / Math.max(small, 1) }
}

/**
 * Asserts growth well below quadratic: under 30x for 10x the input. A linear parser whose large
 * input leaves the young generation comes near 20x, and a neighbour's burst can push one
 * measurement past 30x, so it is measured up to three times; quadratic code (100x) fails all three.
 */
export function assertLinear<T> (what: string, input: (n: number) => string, run: (s: string) => T, from = 1000): void {
  const tries: Growth[] = []
  for (let attempt = 0; attempt < 3; attempt++) {
    const g = growth(input, run, from)
    if (g.ratio < 30) return
    tries.push(g)
  }
  assert.fail(`${what}: ${tries.map(g => `${g.small.toFixed(2)} ms at n=${g.n}, ${g.large.toFixed(2)} ms at 10n (${g.ratio.toFixed(1)}x)`).join('; ')}`)
}
