/** Retries `check` until it stops throwing (controllers act asynchronously), else rethrows its last error. */
export async function eventually<T> (check: () => Promise<T> | T, timeoutMs = 10_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (err) {
      if (Date.now() > deadline) throw err
      await new Promise(resolve => setTimeout(resolve, intervalMs))
    }
  }
}
