// Leader election for the in-process controllers, as the reference controller manager does it:
// one Lease in the system namespace, taken and renewed by compare-and-swap through the store, so
// that of several replicas on one database exactly one runs the controllers. A replica that
// cannot renew within the renew deadline stops its controllers; another takes the lease only
// once the lease duration has passed since it last saw the record change, which is later.
import fp from 'fastify-plugin'
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { performance } from 'node:perf_hooks'
import type { FastifyInstance } from 'fastify'
import { CONTROLLER_MANAGER_LEASE, GROUPS, NAMESPACES } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'
import type { ResourceStore } from '../storage/resource-store.js'
import { CONTROLLER_WRITE, controllerCaller } from './loop.js'

export interface LeaderElectionOptions {
  /** --leader-elect; false: this process runs the controllers alone, without a lease. */
  enabled?: boolean
  /** --leader-elect-lease-duration (default 15 s). */
  leaseDurationMs?: number
  /** --leader-elect-renew-deadline (default 10 s). */
  renewDeadlineMs?: number
  /** --leader-elect-retry-period (default 2 s). */
  retryPeriodMs?: number
  /** --leader-elect-resource-namespace and --leader-elect-resource-name. */
  namespace?: string
  name?: string
  /** Default `<hostname>_<uuid>`, as the reference controller manager names itself. */
  identity?: string
}

/** A controller's start and stop, run while this replica leads. */
interface Member { name: string, start: () => Promise<void>, stop: () => Promise<void> }

export interface Leadership {
  readonly identity: string
  isLeader (): boolean
  /**
   * Runs `start` while this replica holds the lease (at once when election is off, or when it
   * already leads: then the returned promise waits for it) and `stop` when it stops leading.
   */
  run (name: string, start: () => Promise<void>, stop: () => Promise<void>): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance { leadership: Leadership }
}

/** Upstream's JitterFactor: retries wait between one and 1.2 retry periods. */
const JITTER = 1.2

/** A MicroTime as the reference server writes it: microseconds, UTC. */
const microTime = (d: Date): string => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z')

/** Refuses timings under which two replicas could both lead, with upstream's messages. */
export function checkLeaderElectionTimings (o: { leaseDurationMs: number, renewDeadlineMs: number, retryPeriodMs: number }): void {
  if (o.leaseDurationMs <= o.renewDeadlineMs) throw new Error('leaseDuration must be greater than renewDeadline')
  if (o.renewDeadlineMs <= JITTER * o.retryPeriodMs) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor')
  if (o.retryPeriodMs < 1) throw new Error('retryPeriod must be greater than zero')
}

export default fp(async function leaderElection (fastify: FastifyInstance, opts: LeaderElectionOptions) {
  const enabled = opts.enabled ?? true
  const leaseDurationMs = opts.leaseDurationMs ?? 15_000
  const renewDeadlineMs = opts.renewDeadlineMs ?? 10_000
  const retryPeriodMs = opts.retryPeriodMs ?? 2_000
  if (enabled) checkLeaderElectionTimings({ leaseDurationMs, renewDeadlineMs, retryPeriodMs })
  const namespace = opts.namespace ?? NAMESPACES.system
  const name = opts.name ?? CONTROLLER_MANAGER_LEASE
  const identity = opts.identity ?? `${hostname()}_${randomUUID()}`
  const caller = () => controllerCaller('leader-election')
  const leases = (): ResourceStore => fastify.resources.find({ group: GROUPS.coordination, resource: 'leases' })!

  const members: Member[] = []
  let leading = !enabled
  let closed = false
  let timer: NodeJS.Timeout | undefined
  /** When this replica last renewed (or took) the lease; the renew deadline counts from it. */
  let renewedAt = 0
  /** The record as last seen and when it was first seen so: expiry is judged by our own clock. */
  let observed: { raw: string, at: number, holder: string, durationMs: number } | undefined
  /** Starts and stops run one at a time, in order. */
  let transition: Promise<void> = Promise.resolve()
  /** The attempt under way, which shutdown waits for before it releases the lease. */
  let ticking: Promise<void> | undefined

  const startAll = (): Promise<void> => (transition = transition.then(async () => {
    for (const m of members) await m.start().catch((err: unknown) => { fastify.log.error({ err, controller: m.name }, 'controller failed to start') })
  }))
  const stopAll = (): Promise<void> => (transition = transition.then(async () => {
    await Promise.all(members.map(async m => await m.stop().catch((err: unknown) => { fastify.log.warn({ err, controller: m.name }, 'controller failed to stop') })))
  }))

  function observe (spec: AnyObject): void {
    const raw = JSON.stringify(spec)
    if (observed?.raw === raw) return
    observed = { raw, at: performance.now(), holder: spec.holderIdentity ?? '', durationMs: (spec.leaseDurationSeconds ?? 0) * 1000 }
  }

  /** One attempt to take or renew the lease; true when this replica holds it afterwards. */
  async function tryAcquireOrRenew (): Promise<boolean> {
    const store = leases()
    const now = new Date()
    const record = (acquireTime: string, transitions: number): AnyObject => ({
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime,
      renewTime: microTime(now),
      leaseTransitions: transitions
    })
    let current: AnyObject
    try {
      current = JSON.parse((await store.get(namespace, name)).json) as AnyObject
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err
      const created = await store.create(namespace, { metadata: { name }, spec: record(microTime(now), 0) }, CONTROLLER_WRITE, caller())
      observe(created.object.spec)
      return true
    }
    const spec: AnyObject = current.spec ?? {}
    observe(spec)
    const holder: string = spec.holderIdentity ?? ''
    const mine = holder === identity
    if (holder !== '' && !mine && observed!.at + observed!.durationMs > performance.now()) return false
    const next = record(mine ? spec.acquireTime ?? microTime(now) : microTime(now), (spec.leaseTransitions ?? 0) + (mine ? 0 : 1))
    // The resourceVersion read makes this a compare-and-swap: a replica that took the lease
    // in between makes it a conflict, never a second holder.
    const updated = await store.update(namespace, name, (old) => ({ ...old, metadata: { ...old.metadata, resourceVersion: current.metadata.resourceVersion }, spec: { ...spec, ...next } }),
      { ...CONTROLLER_WRITE, subresource: '' }, caller())
    observe((JSON.parse(updated.json) as AnyObject).spec)
    return true
  }

  async function attempt (): Promise<boolean> {
    try {
      return await tryAcquireOrRenew()
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 409 || err.code === 404))) {
        if (!closed) fastify.log.warn({ err, lease: `${namespace}/${name}` }, 'error taking or renewing the controllers\' lease')
      }
      return false
    }
  }

  async function tick (): Promise<void> {
    timer = undefined
    if (closed) return
    const held = await attempt()
    if (closed) return
    if (held) {
      renewedAt = performance.now()
      if (!leading) {
        leading = true
        fastify.log.info({ identity, lease: `${namespace}/${name}` }, 'became leader: starting controllers')
        await startAll()
      }
    } else if (leading && performance.now() - renewedAt >= renewDeadlineMs) {
      leading = false
      fastify.log.warn({ identity, lease: `${namespace}/${name}` }, 'leader election lost: stopping controllers')
      await stopAll()
    }
    if (closed) return
    // A leader renews every retry period; a candidate retries with jitter, as upstream does.
    const wait = leading ? retryPeriodMs : retryPeriodMs * (1 + Math.random() * (JITTER - 1))
    timer = setTimeout(() => { ticking = tick() }, wait)
    timer.unref()
  }

  /** Gives the lease up, so that another replica takes it at its next retry rather than after the lease duration. */
  async function release (): Promise<void> {
    await ticking
    leading = false
    await stopAll()
    try {
      const store = leases()
      const found = JSON.parse((await store.get(namespace, name)).json) as AnyObject
      if (found.spec?.holderIdentity !== identity) return
      const now = microTime(new Date())
      await store.update(namespace, name, (old) => ({
        ...old,
        metadata: { ...old.metadata, resourceVersion: found.metadata.resourceVersion },
        spec: { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: found.spec?.leaseTransitions ?? 0 }
      }), { ...CONTROLLER_WRITE, subresource: '' }, caller())
      fastify.log.info({ identity, lease: `${namespace}/${name}` }, 'released the controllers\' lease')
    } catch (err) {
      fastify.log.warn({ err }, 'could not release the controllers\' lease; another replica takes it when it expires')
    }
  }

  const leadership: Leadership = {
    identity,
    isLeader: () => leading,
    async run (memberName, start, stop) {
      members.push({ name: memberName, start, stop })
      if (leading) await start()
    }
  }
  fastify.decorate('leadership', leadership)

  if (!enabled) return
  fastify.addHook('onReady', async () => {
    await leases().cache.ready
    // The first attempt is made before the server is ready, so a lone server (or the first of
    // several on a fresh database) starts its controllers as part of starting up.
    ticking = tick()
    await ticking
  })
  // Released as shutdown begins (before in-flight requests drain), so another replica takes over at once.
  fastify.addHook('preClose', async () => {
    closed = true
    if (timer !== undefined) clearTimeout(timer)
    await release()
  })
  fastify.addHook('onClose', async () => {
    closed = true
    if (timer !== undefined) clearTimeout(timer)
  })
}, { name: 'leader-election', dependencies: ['rest'] })
