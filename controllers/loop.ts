// A level-triggered control loop: `sync` runs whenever an object of the watched kinds changes,
// again after it asks to (an expiry), and at a slow resync; never two runs at once.
import type { FastifyInstance } from 'fastify'
import { CONTROLLER_USER } from '../resources/naming.js'
import type { AnyObject } from '../resources/define.js'
import { ApiError } from '../resources/status.js'
import type { Caller, ResourceStore } from '../storage/resource-store.js'
import type { CacheEvent } from '../storage/interface.js'

export interface LoopOptions {
  name: string
  /**
   * The kinds whose changes trigger a sync, resolved once the app is ready; `when` narrows a
   * kind to the events that can matter, so churn elsewhere in it costs no sync.
   */
  watch: () => Array<ResourceStore | { store: ResourceStore, when: (e: CacheEvent) => boolean }>
  /** Brings the world in line; may return how soon (ms) it wants to run again. */
  sync: () => Promise<number | undefined>
  resyncMs?: number
}

/** The identity controllers write as, with a field manager named after the controller. */
export const controllerCaller = (manager: string): Caller =>
  ({ user: { ...CONTROLLER_USER, groups: [...CONTROLLER_USER.groups] }, manager, warnings: [] })

export const CONTROLLER_WRITE = { dryRun: false, fieldValidation: 'Ignore' as const, force: false }

/**
 * The stored object a bootstrap step (the default roles, the default flow schemas) compares its
 * own with; undefined when absent. A first attempt reads the cache, which the caller freshened
 * once for the whole pass (one revision query rather than one per object, which at start-up is
 * most of the time to ready); a retry, after a conflict, reads consistently.
 */
export async function bootstrapRead (store: ResourceStore, name: string, attempt: number): Promise<{ json: string } | undefined> {
  if (attempt === 0) return await store.readRecent(store.key('', name), name)
  return await store.get('', name).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === 404) return undefined
    throw err
  })
}

/**
 * Writes `status` to `obj` through /status, conditional on the version it was computed from:
 * true when written or the object is gone, false when it changed meanwhile (compute again).
 */
export async function writeStatusIfUnchanged (store: ResourceStore, obj: AnyObject, status: AnyObject, manager: string): Promise<boolean> {
  try {
    await store.update(obj.metadata.namespace ?? '', obj.metadata.name,
      (old) => ({ ...old, metadata: { ...old.metadata, resourceVersion: obj.metadata.resourceVersion }, status }),
      { ...CONTROLLER_WRITE, subresource: 'status' }, controllerCaller(manager))
    return true
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return true
    if (err instanceof ApiError && err.code === 409) return false
    throw err
  }
}

/**
 * Runs a controller's `start` while this replica leads the controllers (through the
 * leader-election plugin; at once without it) and its `stop` when it stops leading or closes.
 */
export function whileLeading (fastify: FastifyInstance, name: string, start: () => Promise<void>, stop: () => Promise<void>): void {
  fastify.addHook('onReady', async () => {
    if (fastify.hasDecorator('leadership')) await fastify.leadership.run(name, start, stop)
    else await start()
  })
  fastify.addHook('onClose', stop)
}

/**
 * A running loop starts over when kinds come or go (custom resources), so one that follows
 * every kind follows the new ones from their first object.
 */
function restartOnKindChanges (fastify: FastifyInstance, name: string, running: () => boolean, end: () => Promise<void>, begin: () => Promise<void>): void {
  const unsubscribe = fastify.resources.onChange(() => {
    if (!running()) return
    end().then(begin).catch((err: unknown) => { fastify.log.warn({ err, controller: name }, 'restarting a controller loop after the kinds changed failed') })
  })
  fastify.addHook('onClose', async () => { unsubscribe() })
}

export function controllerLoop (fastify: FastifyInstance, o: LoopOptions): void {
  const resyncMs = o.resyncMs ?? 30_000
  let stopRun: (() => Promise<void>) | undefined

  /** One run of the loop, from a start to its stop; a later start begins a fresh one. */
  async function begin (): Promise<void> {
    let stopped = false
    let running: Promise<void> | undefined
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
      if (running !== undefined) { again = true; return }
      let next = resyncMs
      running = (async () => {
        try {
          const wanted = await o.sync()
          if (wanted !== undefined) next = Math.min(next, wanted)
        } catch (err) {
          if (!stopped) fastify.log.warn({ err, controller: o.name }, 'controller sync failed; will retry')
          next = Math.min(next, 1000)
        }
      })()
      await running
      running = undefined
      if (again) { again = false; next = 0 }
      schedule(next)
    }

    stopRun = async () => {
      stopped = true
      for (const w of watches) w.stop()
      if (timer !== undefined) clearTimeout(timer)
      await running
    }
    for (const source of o.watch()) {
      const { store, when } = 'store' in source ? source : { store: source, when: undefined }
      await store.cache.ready
      if (stopped) return
      const trigger = (e: CacheEvent): void => {
        if (when !== undefined && !when(e)) return
        if (running === undefined) schedule(0)
        else again = true
      }
      watches.push(store.cache.watch(store.prefix, store.cache.revision, trigger,
        (err) => { if (!stopped) fastify.log.warn({ err, controller: o.name }, 'controller watch ended') }))
    }
    schedule(0)
  }

  const end = async (): Promise<void> => {
    const stop = stopRun
    stopRun = undefined
    await stop?.()
  }
  whileLeading(fastify, o.name, begin, end)
  restartOnKindChanges(fastify, o.name, () => stopRun !== undefined, end, begin)
}

export interface EventLoopOptions {
  name: string
  /** The kinds to follow and what to do with each event, resolved once the app is ready. */
  sources: () => Array<{ store: ResourceStore, onEvent: (e: CacheEvent) => void }>
  /** A full pass over the current objects, at start and then every `resyncMs`. */
  resync: () => void
  resyncMs?: number
}

/**
 * An edge-triggered loop: each event is handled as it comes, with a periodic full resync behind
 * it. `stopped()` is true while the loop does not run (not leading, or closed).
 */
export function eventLoop (fastify: FastifyInstance, o: EventLoopOptions): { stopped: () => boolean } {
  let stopped = true
  let timer: NodeJS.Timeout | undefined
  let watches: Array<{ stop(): void }> = []
  async function begin (): Promise<void> {
    stopped = false
    for (const { store, onEvent } of o.sources()) {
      await store.cache.ready
      if (stopped) return
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
  }
  const end = async (): Promise<void> => {
    stopped = true
    for (const w of watches) w.stop()
    watches = []
    if (timer !== undefined) clearTimeout(timer)
  }
  whileLeading(fastify, o.name, begin, end)
  restartOnKindChanges(fastify, o.name, () => !stopped, end, begin)
  return { stopped: () => stopped }
}
