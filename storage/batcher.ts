// Group commit: items pushed while a batch is in flight wait and go together in the next one,
// so throughput is not one round trip (and one fsync) per item.

export interface BatcherOptions<T> {
  /** Most items in one batch. */
  maxItems: number
  /** Most total weight in one batch (a batch always takes at least one item). */
  maxWeight: number
  weight (item: T): number
  /**
   * Batches in flight at once (default 1). Beyond the first, a batch starts only when a full one
   * (maxItems or maxWeight) is waiting, or one at least as large as the batch last started and
   * `evenFrom` items: below that, waiting for the batch in flight makes the next one bigger, and
   * one big batch costs less per item than two small ones.
   */
  concurrency?: number
  /**
   * The least a batch beyond the first holds before it starts without being full (default: it
   * waits until full). A batch that starts alone, in the tick of its first item, is often small;
   * the writes that arrive while it is in flight then start beside it once they are as many,
   * rather than wait for its round trip.
   */
  evenFrom?: number
}

export interface Batcher<T, R> {
  /** Queues one item; settles with its own result or error. */
  push (item: T): Promise<R>
  /** Resolves once every item pushed so far has settled. */
  drain (): Promise<void>
}

/**
 * `run` receives batches in push order, at most `concurrency` at a time, and returns one result
 * per item (an Error instance fails that item alone). If `run` throws, every item of that batch
 * fails with it.
 */
export function createBatcher<T, R> (run: (items: T[]) => Promise<Array<R | Error>>,
  opts: BatcherOptions<T>): Batcher<T, R> {
  interface Pending { item: T, weight: number, resolve: (r: R) => void, reject: (err: unknown) => void }
  const queue: Pending[] = []
  const concurrency = opts.concurrency ?? 1
  let queuedWeight = 0
  let inFlight = 0
  /** Items in the batch started last. */
  let lastSize = 0
  const evenFrom = opts.evenFrom ?? Infinity
  let scheduled = false
  const idle: Array<() => void> = []

  function take (): Pending[] {
    let weight = 0
    let n = 0
    while (n < queue.length && n < opts.maxItems) {
      weight += queue[n].weight
      if (n > 0 && weight > opts.maxWeight) break
      n++
    }
    const batch = queue.splice(0, n)
    for (const p of batch) queuedWeight -= p.weight
    return batch
  }

  /** Whether another batch may start now. */
  function canStart (): boolean {
    if (queue.length === 0 || inFlight >= concurrency) return false
    return inFlight === 0 || queue.length >= opts.maxItems || queuedWeight >= opts.maxWeight ||
      (queue.length >= evenFrom && queue.length >= lastSize)
  }

  async function runOne (batch: Pending[]): Promise<void> {
    let results: Array<R | Error>
    try {
      results = await run(batch.map(p => p.item))
    } catch (err) {
      for (const p of batch) p.reject(err)
      return
    }
    batch.forEach((p, i) => {
      const r = results[i]
      if (r instanceof Error) p.reject(r)
      else p.resolve(r)
    })
  }

  function pump (): void {
    scheduled = false
    while (canStart()) {
      inFlight++
      const batch = take()
      lastSize = batch.length
      void runOne(batch).finally(() => {
        inFlight--
        pump()
      })
    }
    if (queue.length === 0 && inFlight === 0) for (const resolve of idle.splice(0)) resolve()
  }

  return {
    push (item) {
      return new Promise<R>((resolve, reject) => {
        const weight = opts.weight(item)
        queue.push({ item, weight, resolve, reject })
        queuedWeight += weight
        // Items pushed in the same tick as the first one join the first batch.
        if (!scheduled && canStart()) {
          scheduled = true
          queueMicrotask(pump)
        }
      })
    },
    drain () {
      if (queue.length === 0 && inFlight === 0) return Promise.resolve()
      return new Promise<void>(resolve => idle.push(resolve))
    }
  }
}
