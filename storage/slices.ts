// Long in-memory work (sorting a large cache's keys, indexing its labels) done in slices of a
// few milliseconds, so that requests keep being served between them instead of waiting behind
// one long turn of the event loop.

/** How long one slice may hold the event loop. */
export const SLICE_MS = 5

/** Lets the event loop serve what is waiting (I/O callbacks first) before the work goes on. */
export const nextTurn = async (): Promise<void> => { await new Promise(resolve => setImmediate(resolve)) }

/** A clock for one slice: `spent()` says when the slice has used its time. */
export function sliceClock (ms = SLICE_MS): { spent (): boolean, restart (): void } {
  let until = performance.now() + ms
  return {
    spent: () => performance.now() >= until,
    restart () { until = performance.now() + ms }
  }
}
