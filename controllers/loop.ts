// A level-triggered control loop: `sync` runs whenever an object of the watched kinds changes,
// again after it asks to (an expiry), and at a slow resync; never two runs at once.
import type { FastifyInstance } from 'fastify'
import { CONTROLLER_USER } from '../resources/naming.js'
import type { Caller, GenericStore } from '../plugins/rest/store.js'
import type { CacheEvent } from '../storage/interface.js'

export interface LoopOptions {
  name: string
  /**
   * The kinds whose changes trigger a sync, resolved once the app is ready; `when` narrows a
   * kind to the events that can matter, so churn elsewhere in it costs no sync.
   */
  watch: () => Array<GenericStore | { store: GenericStore, when: (e: CacheEvent) => boolean }>
  /** Brings the world in line; may return how soon (ms) it wants to run again. */
  sync: () => Promise<number | undefined>
  resyncMs?: number
}

/** The identity controllers write as, with a field manager named after the controller. */
export const controllerCaller = (manager: string): Caller =>
  ({ user: { ...CONTROLLER_USER, groups: [...CONTROLLER_USER.groups] }, manager, warnings: [] })

export const CONTROLLER_WRITE = { dryRun: false, fieldValidation: 'Ignore' as const, force: false }

export function controllerLoop (fastify: FastifyInstance, o: LoopOptions): void {
  const resyncMs = o.resyncMs ?? 30_000
  let stopped = false
  let running = false
  let again = false
  let timer: NodeJS.Timeout | undefined
  const watches: Array<{ stop(): void }> = []

  const schedule = (ms: number): void => {
    if (stopped) return
    if (timer !== undefined) clearTimeout(timer)
    timer = setTimeout(() => { void run() }, Math.max(0, ms))
    timer.unref()
  }
  async function run (): Promise<void> {
    if (running) { again = true; return }
    running = true
    let next = resyncMs
    try {
      const wanted = await o.sync()
      if (wanted !== undefined) next = Math.min(next, wanted)
    } catch (err) {
      if (!stopped) fastify.log.warn({ err, controller: o.name }, 'controller sync failed; will retry')
      next = Math.min(next, 1000)
    } finally {
      running = false
    }
    if (again) { again = false; next = 0 }
    schedule(next)
  }

  fastify.addHook('onReady', async () => {
    for (const source of o.watch()) {
      const { store, when } = 'store' in source ? source : { store: source, when: undefined }
      await store.cache.ready
      const trigger = (e: CacheEvent): void => {
        if (when !== undefined && !when(e)) return
        if (!running) schedule(0)
        else again = true
      }
      watches.push(store.cache.watch(store.prefix, store.cache.revision, trigger,
        (err) => { if (!stopped) fastify.log.warn({ err, controller: o.name }, 'controller watch ended') }))
    }
    schedule(0)
  })
  fastify.addHook('onClose', async () => {
    stopped = true
    for (const w of watches) w.stop()
    if (timer !== undefined) clearTimeout(timer)
  })
}

export interface EventLoopOptions {
  name: string
  /** The kinds to follow and what to do with each event, resolved once the app is ready. */
  sources: () => Array<{ store: GenericStore, onEvent: (e: CacheEvent) => void }>
  /** A full pass over the current objects, at start and then every `resyncMs`. */
  resync: () => void
  resyncMs?: number
}

/** An edge-triggered loop: each event is handled as it comes, with a periodic full resync behind it. */
export function eventLoop (fastify: FastifyInstance, o: EventLoopOptions): { stopped: () => boolean } {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  const watches: Array<{ stop(): void }> = []
  fastify.addHook('onReady', async () => {
    for (const { store, onEvent } of o.sources()) {
      await store.cache.ready
      watches.push(store.cache.watch(store.prefix, store.cache.revision, (e) => { if (!stopped) onEvent(e) },
        (err) => { if (!stopped) fastify.log.warn({ err, controller: o.name }, 'controller watch ended') }))
    }
    const tick = (): void => {
      if (stopped) return
      o.resync()
      timer = setTimeout(tick, o.resyncMs ?? 10_000)
      timer.unref()
    }
    timer = setTimeout(tick, 0)
  })
  fastify.addHook('onClose', async () => {
    stopped = true
    for (const w of watches) w.stop()
    if (timer !== undefined) clearTimeout(timer)
  })
  return { stopped: () => stopped }
}
