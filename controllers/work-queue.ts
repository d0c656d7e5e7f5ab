// A deduplicating work queue (the reference client-go workqueue, in small): an id queued twice
// before it runs runs once; an id queued while it runs runs again after; a failure is retried
// after a delay. At most `concurrency` items run at once.
export class WorkQueue<T> {
  private readonly waiting = new Map<string, T>()
  private readonly running = new Set<string>()
  private readonly again = new Map<string, T>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private stopped = false

  constructor (
    private readonly concurrency: number,
    private readonly handle: (item: T, id: string) => Promise<void>,
    private readonly onError: (err: unknown, id: string) => void,
    private readonly retryMs: number
  ) {}

  add (id: string, item: T): void {
    if (this.stopped) return
    if (this.running.has(id)) { this.again.set(id, item); return }
    this.waiting.set(id, item)
    this.pump()
  }

  /** Items waiting or running. */
  get size (): number { return this.waiting.size + this.running.size }

  stop (): void {
    this.stopped = true
    this.waiting.clear()
    this.again.clear()
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }

  private pump (): void {
    while (!this.stopped && this.running.size < this.concurrency && this.waiting.size > 0) {
      const [id, item] = this.waiting.entries().next().value as [string, T]
      this.waiting.delete(id)
      this.running.add(id)
      void this.run(id, item)
    }
  }

  private async run (id: string, item: T): Promise<void> {
    try {
      await this.handle(item, id)
    } catch (err) {
      if (!this.stopped) {
        this.onError(err, id)
        const timer = setTimeout(() => { this.timers.delete(timer); this.add(id, item) }, this.retryMs)
        timer.unref()
        this.timers.add(timer)
      }
    } finally {
      this.running.delete(id)
      const next = this.again.get(id)
      if (next !== undefined) { this.again.delete(id); this.waiting.set(id, next) }
      this.pump()
    }
  }
}
