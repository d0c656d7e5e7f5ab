// Gives memory back after a burst. V8 starts a major collection when the old generation reaches
// a multiple of what the last one left live, so after a burst of writes, lists or watch traffic
// the heap holds up to that much garbage, and a server that then goes quiet keeps it: no
// allocation, so no collection (on the benchmark RSS stayed flat through ten quiet seconds).
// Once the event loop has been idle for a while and the committed heap has grown well past what
// the last such collection left, this asks V8 for the collection it makes under memory pressure
// (several passes, compacting, pages returned to the OS): a pause of about 100 ms for a 200 MiB
// heap of cached objects, taken only when the loop has been idle for two looks.
import { Session } from 'node:inspector/promises'
import { getHeapStatistics } from 'node:v8'
import { performance, type EventLoopUtilization } from 'node:perf_hooks'

export interface IdleCollectOptions {
  /** How often to look. Default 1000 ms. */
  intervalMs?: number
  /** Consecutive idle looks before collecting. Default 2. */
  idleChecks?: number
  /** Event loop utilization below which a look counts as idle. Default 0.05. */
  idleUtilization?: number
  /** Growth of the committed heap over the baseline that is worth a collection: the larger of this many bytes and a quarter of the baseline. Default 32 MiB. */
  minGrowthBytes?: number
  onCollect?: (before: number, after: number, ms: number) => void
}

/** Whether the committed heap has grown enough past the baseline to be worth a collection. */
export function grownEnough (committed: number, baseline: number, minGrowthBytes: number): boolean {
  return committed > baseline + Math.max(minGrowthBytes, baseline / 4)
}

/** The collection V8 makes under memory pressure, asked for through an in-process inspector session. */
export async function collectAvailableGarbage (): Promise<void> {
  const session = new Session()
  session.connect()
  try {
    // Without the domain enabled the request is never answered.
    await session.post('HeapProfiler.enable')
    await session.post('HeapProfiler.collectGarbage')
    await session.post('HeapProfiler.disable')
  } finally {
    session.disconnect()
  }
}

/** Starts the idle collector; returns a function that stops it. The timer never keeps the process alive. */
export function startIdleCollect (opts: IdleCollectOptions = {}): () => void {
  const intervalMs = opts.intervalMs ?? 1000
  const idleChecks = opts.idleChecks ?? 2
  const idleUtilization = opts.idleUtilization ?? 0.05
  const minGrowth = opts.minGrowthBytes ?? 32 * 1024 * 1024
  // Before the first collection nothing is known of what is live: the first quiet spell collects.
  let baseline = 0
  let idleLooks = 0
  let collecting = false
  let last: EventLoopUtilization = performance.eventLoopUtilization()
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization()
    const utilization = performance.eventLoopUtilization(now, last).utilization
    last = now
    if (collecting) return
    idleLooks = utilization < idleUtilization ? idleLooks + 1 : 0
    const committed = getHeapStatistics().total_heap_size
    // V8's own collections may shrink the heap: growth counts from the smallest size seen since.
    if (committed < baseline) baseline = committed
    if (idleLooks < idleChecks || !grownEnough(committed, baseline, minGrowth)) return
    collecting = true
    const started = performance.now()
    collectAvailableGarbage().then(() => {
      baseline = getHeapStatistics().total_heap_size
      opts.onCollect?.(committed, baseline, performance.now() - started)
    }, () => {
      // No inspector in this Node build: stop looking.
      clearInterval(timer)
    }).finally(() => {
      collecting = false
      idleLooks = 0
    })
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
