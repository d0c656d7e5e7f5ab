// Read coalescing: callers share one run of a read as long as that run starts after they call,
// so each caller gets an answer at least as fresh as a read of its own would have been.

/**
 * Wraps `read` so that at most one run is in flight and at most one more is queued: a call while
 * a run is in flight joins the queued run, which starts when the in-flight one settles.
 */
export function coalesce<T> (read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined
  let queued: Promise<T> | undefined
  const start = (): Promise<T> => {
    const run = read()
    running = run
    const clear = (): void => { if (running === run) running = undefined }
    run.then(clear, clear)
    return run
  }
  return () => {
    if (queued !== undefined) return queued
    if (running === undefined) return start()
    const next = running.then(() => {}, () => {}).then(() => {
      queued = undefined
      return start()
    })
    queued = next
    return next
  }
}
