// The node lifecycle controller's health monitor, without evicting pods: a Node whose agent has
// neither renewed its Lease nor posted a new Ready heartbeat for the grace period has its Ready
// and pressure conditions set Unknown. Its taints follow its conditions as the reference's
// tainting passes make them: NoSchedule for not-ready, unreachable, pressure and network
// unavailable (and for a cordoned node), NoExecute for not-ready and unreachable; once it reports
// Ready again they go.
// As the reference, health is judged by when this controller last *saw* a heartbeat change, not
// by the timestamps the agent wrote: an agent's clock may be off, this process's is the judge.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../resources/define.js'
import { ApiError } from '../resources/status.js'
import { GROUPS, NAMESPACES, NODE_TAINTS } from '../resources/naming.js'
import type { ResourceStore } from '../storage/resource-store.js'
import { CONTROLLER_WRITE, controllerCaller, controllerLoop } from './loop.js'

/** The reference controller manager's defaults: --node-monitor-period, --node-monitor-grace-period, --node-startup-grace-period. */
export const DEFAULT_MONITOR_PERIOD_MS = 5_000
export const DEFAULT_GRACE_PERIOD_MS = 50_000
export const DEFAULT_STARTUP_GRACE_PERIOD_MS = 60_000

export interface NodeLifecycleOptions {
  /** How often every node's health is checked. */
  monitorPeriodMs?: number
  /** How long a node that has reported may go without a heartbeat before it is Unknown. */
  gracePeriodMs?: number
  /** The same for a node that never reported Ready, counted from its creation. */
  startupGracePeriodMs?: number
  /** The clock, in epoch milliseconds; tests inject one. */
  now?: () => number
}

const MANAGER = 'node-controller'
/** The conditions the node agent keeps, which go Unknown with it. */
const WATCHED_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']

/** What this controller last saw of a node's heartbeats, and when it saw them change. */
interface NodeHealth {
  readyHeartbeat?: string
  leaseRenewTime?: string
  probeTime: number
}

/** metav1.Time's form: RFC 3339 to the second. */
const timestamp = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z')

const conditionOf = (node: AnyObject, type: string): AnyObject | undefined =>
  (node.status?.conditions ?? []).find((c: AnyObject) => c.type === type)

/** The node's conditions as the reference leaves a node it stopped hearing from; undefined when nothing changes. */
export function unknownConditions (node: AnyObject, now: string): AnyObject[] | undefined {
  const conditions: AnyObject[] = [...(node.status?.conditions ?? [])]
  let changed = false
  for (const type of WATCHED_CONDITIONS) {
    const i = conditions.findIndex(c => c.type === type)
    if (i < 0) {
      conditions.push({ type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: node.metadata.creationTimestamp, lastTransitionTime: now })
      changed = true
    } else if (conditions[i]!.status !== 'Unknown') {
      conditions[i] = { ...conditions[i], status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: now }
      changed = true
    }
  }
  return changed ? conditions : undefined
}

const sameTaint = (a: AnyObject, b: AnyObject): boolean => a.key === b.key && a.effect === b.effect

/** The reference's nodeConditionToTaintKeyStatusMap: the NoSchedule taint a condition in a status brings. */
const CONDITION_TAINTS: Record<string, Record<string, string>> = {
  Ready: { False: NODE_TAINTS.notReady, Unknown: NODE_TAINTS.unreachable },
  MemoryPressure: { True: NODE_TAINTS.memoryPressure },
  DiskPressure: { True: NODE_TAINTS.diskPressure },
  NetworkUnavailable: { True: NODE_TAINTS.networkUnavailable },
  PIDPressure: { True: NODE_TAINTS.pidPressure }
}
/** The NoSchedule taints this controller owns: the conditions' and the cordon's. */
const NO_SCHEDULE_KEYS = new Set([...Object.values(CONDITION_TAINTS).flatMap(m => Object.values(m)), NODE_TAINTS.unschedulable])
/** The NoExecute taints it owns (TaintBasedEvictions): a node not ready, or not heard from. */
const NO_EXECUTE_KEYS = new Set([NODE_TAINTS.notReady, NODE_TAINTS.unreachable])

/** The taints a node's conditions and cordon call for, as the reference's NoSchedule and NoExecute tainting passes add them. */
function wantedTaints (node: AnyObject): AnyObject[] {
  const wanted: AnyObject[] = []
  for (const c of (node.status?.conditions ?? []) as AnyObject[]) {
    const key = CONDITION_TAINTS[c.type]?.[c.status]
    if (key !== undefined) wanted.push({ key, effect: 'NoSchedule' })
  }
  if (node.spec?.unschedulable === true) wanted.push({ key: NODE_TAINTS.unschedulable, effect: 'NoSchedule' })
  const ready = conditionOf(node, 'Ready')?.status
  if (ready === 'False') wanted.push({ key: NODE_TAINTS.notReady, effect: 'NoExecute' })
  if (ready === 'Unknown') wanted.push({ key: NODE_TAINTS.unreachable, effect: 'NoExecute' })
  return wanted
}

const owned = (t: AnyObject): boolean => (t.effect === 'NoSchedule' && NO_SCHEDULE_KEYS.has(t.key)) || (t.effect === 'NoExecute' && NO_EXECUTE_KEYS.has(t.key))

/**
 * The node's taints with the ones this controller owns made what its conditions call for (others
 * kept as they are, and kept taints unchanged); undefined when nothing changes.
 */
export function conditionTaints (node: AnyObject, now: string): AnyObject[] | undefined {
  const taints: AnyObject[] = node.spec?.taints ?? []
  const wanted = wantedTaints(node)
  const kept = taints.filter(have => !owned(have) || wanted.some(t => sameTaint(have, t)))
  const missing = wanted.filter(t => !kept.some(have => sameTaint(have, t)))
  if (missing.length === 0 && kept.length === taints.length) return undefined
  // NoExecute taints carry when they came: tolerationSeconds count from then.
  return [...kept, ...missing.map(t => t.effect === 'NoExecute' ? { ...t, timeAdded: now } : t)]
}

function withTaints (spec: AnyObject | undefined, taints: AnyObject[]): AnyObject {
  const { taints: _was, ...rest } = spec ?? {}
  return taints.length === 0 ? rest : { ...rest, taints }
}

export default fp(async function nodeLifecycleController (fastify: FastifyInstance, opts: NodeLifecycleOptions) {
  const now = opts.now ?? Date.now
  const monitorPeriodMs = opts.monitorPeriodMs ?? DEFAULT_MONITOR_PERIOD_MS
  const gracePeriodMs = opts.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS
  const startupGracePeriodMs = opts.startupGracePeriodMs ?? DEFAULT_STARTUP_GRACE_PERIOD_MS
  const caller = controllerCaller(MANAGER)
  const health = new Map<string, NodeHealth>()

  const nodes = (): ResourceStore => fastify.resources.find({ group: '', resource: 'nodes' })!
  const leases = (): ResourceStore => fastify.resources.find({ group: GROUPS.coordination, resource: 'leases' })!

  /** tryUpdateNodeHealth's bookkeeping: the probe time moves whenever a heartbeat is seen to change. */
  function observe (node: AnyObject, lease: AnyObject | undefined): NodeHealth {
    const name: string = node.metadata.name
    const readyHeartbeat: string | undefined = conditionOf(node, 'Ready')?.lastHeartbeatTime ?? undefined
    const leaseRenewTime: string | undefined = lease?.spec?.renewTime ?? undefined
    let seen = health.get(name)
    if (seen === undefined) {
      // A node that never reported counts from its creation; one already reporting from now (this controller just started).
      const created = Date.parse(node.metadata.creationTimestamp)
      seen = { readyHeartbeat, leaseRenewTime, probeTime: conditionOf(node, 'Ready') === undefined && !Number.isNaN(created) ? created : now() }
      if (leaseRenewTime !== undefined) seen.probeTime = now()
    } else {
      if (readyHeartbeat !== seen.readyHeartbeat) seen = { ...seen, readyHeartbeat, probeTime: now() }
      if (leaseRenewTime !== undefined && (seen.leaseRenewTime === undefined || Date.parse(leaseRenewTime) > Date.parse(seen.leaseRenewTime))) {
        seen = { ...seen, leaseRenewTime, probeTime: now() }
      }
    }
    health.set(name, seen)
    return seen
  }

  /** Writes through `subresource` conditionally on the version read: an agent's write since wins, and the next pass looks again. */
  async function write (node: AnyObject, subresource: '' | 'status', change: (old: AnyObject) => AnyObject): Promise<AnyObject | undefined> {
    const store = nodes()
    try {
      const { json } = await store.update('', node.metadata.name, (old) => {
        const next = change(old)
        return { ...next, metadata: { ...next.metadata, resourceVersion: node.metadata.resourceVersion } }
      }, { ...CONTROLLER_WRITE, subresource }, caller)
      return JSON.parse(json) as AnyObject
    } catch (err) {
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return undefined
      throw err
    }
  }

  async function monitor (node: AnyObject, lease: AnyObject | undefined): Promise<void> {
    const seen = observe(node, lease)
    const grace = conditionOf(node, 'Ready') === undefined ? startupGracePeriodMs : gracePeriodMs
    let current: AnyObject | undefined = node
    if (now() > seen.probeTime + grace) {
      const conditions = unknownConditions(node, timestamp(now()))
      if (conditions !== undefined) {
        current = await write(node, 'status', old => ({ ...old, status: { ...old.status, conditions } }))
        if (current === undefined) return
        // Our own write is no heartbeat.
        health.set(node.metadata.name, { ...seen, readyHeartbeat: conditionOf(current, 'Ready')?.lastHeartbeatTime ?? undefined })
      }
    }
    // A node yet to report is neither ready nor not: its taints (the admission's not-ready one) stay as they are.
    if (conditionOf(current, 'Ready') === undefined) return
    const taints = conditionTaints(current, timestamp(now()))
    // No taints left is no field, as the reference's omitempty list writes it.
    if (taints !== undefined) await write(current, '', old => ({ ...old, spec: withTaints(old.spec, taints) }))
  }

  controllerLoop(fastify, {
    name: 'nodelifecycle',
    // Node changes matter at once (a node back to Ready loses its taints); leases only at the next period.
    watch: () => [nodes()],
    resyncMs: monitorPeriodMs,
    async sync () {
      const all = nodes().cachedObjects()
      const names = new Set(all.map(n => n.metadata.name as string))
      for (const name of health.keys()) if (!names.has(name)) health.delete(name)
      const leaseOf = new Map(leases().cachedObjects(NAMESPACES.nodeLease).map(l => [l.metadata.name as string, l]))
      for (const node of all) await monitor(node, leaseOf.get(node.metadata.name))
      return monitorPeriodMs
    }
  })
}, { name: 'controller:nodelifecycle', dependencies: ['rest'] })
