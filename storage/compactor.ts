// The background compaction loop.
import type { Storage } from './interface.js'

export interface CompactorOptions {
  intervalMs: number
  logger?: { warn (obj: object, msg: string): void, debug? (obj: object, msg: string): void }
}

/**
 * Every interval, compacts up to the revision that was current one interval earlier, so the
 * history of the last interval (the retention window) stays readable and watchable; the store
 * itself also keeps its newest `minRetain` revisions. Several replicas may each run one.
 */
export function startCompactor (storage: Storage, opts: CompactorOptions): { stop (): void } {
  let previous: number | undefined
  let busy = false
  let stopped = false

  async function tick (): Promise<void> {
    if (busy || stopped) return
    busy = true
    try {
      const current = await storage.currentRevision()
      if (previous !== undefined) {
        const compacted = await storage.compact(previous)
        opts.logger?.debug?.({ compacted, target: previous }, 'compacted the revision log')
      }
      previous = current
    } catch (err) {
      opts.logger?.warn({ err }, 'compaction failed; retrying next interval')
    } finally {
      busy = false
    }
  }

  const timer = setInterval(() => { void tick() }, opts.intervalMs)
  timer.unref()
  void tick()
  return {
    stop () {
      stopped = true
      clearInterval(timer)
    }
  }
}
