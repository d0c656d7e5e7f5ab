// Group commit: items pushed while a batch is in flight wait and go together in the next one,
// so throughput is not one round trip (and one fsync) per item.

export interface BatcherOptions<T> {
  /** Most items in one batch. */
  maxItems: number
  /** Most total weight in one batch (a batch always takes at least one item). */
  maxWeight: number
  weight (item: T): number
}

export interface Batcher<T, R> {
  /** Queues one item; settles with its own result or error. */
  push (item: T): Promise<R>
  /** Resolves once every item pushed so far has settled. */
  drain (): Promise<void>
}

/**
 * `run` receives batches in push order, one at a time, and returns one result per item (an
 * Error instance fails that item alone). If `run` throws, every item of that batch fails with it.
 */
export function createBatcher<T, R> (run: (items: T[]) => Promise<Array<R | Error>>,
  opts: BatcherOptions<T>): Batcher<T, R> {
  interface Pending { item: T, resolve: (r: R) => void, reject: (err: unknown) => void }
  const queue: Pending[] = []
  let running: Promise<void> | undefined

  function take (): Pending[] {
    let weight = 0
    let n = 0
    while (n < queue.length && n < opts.maxItems) {
      weight += opts.weight(queue[n].item)
      if (n > 0 && weight > opts.maxWeight) break
      n++
    }
    return queue.splice(0, n)
  }

  async function loop (): Promise<void> {
    // Items pushed in the same tick as the first one join the first batch.
    await Promise.resolve()
    while (queue.length > 0) {
      const batch = take()
      let results: Array<R | Error>
      try {
        results = await run(batch.map(p => p.item))
      } catch (err) {
        for (const p of batch) p.reject(err)
        continue
      }
      batch.forEach((p, i) => {
        const r = results[i]
        if (r instanceof Error) p.reject(r)
        else p.resolve(r)
      })
    }
    running = undefined
  }

  return {
    push (item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject })
        running ??= loop()
      })
    },
    async drain () {
      while (running) await running
    }
  }
}
