// The fairness workload: one user floods (lists and creates from many clients) while another,
// in a FlowSchema and priority level of its own, gets one object at a steady trickle. Both act
// through the admin's impersonation, so API Priority and Fairness classifies them as themselves.
// The figure is the trickle's p99 under the flood as a ratio to its p99 unloaded in the same run;
// the trickle must see no failure, and the flood must meet 429s.
import { commandCpuMs, commandWaitMs, cpuDuring, machineCpuMs, processCpuMs, processWaitMs, splitWaits, waitReaders } from './cpu.js'
import { runJson } from './process.js'
import type { LoopJob, LoopResult, RequestKind, Target } from './load.js'

export interface FairnessFlags { durationS: number, floodConcurrency: number, listItems: number, payloadBytes: number }

export interface FairnessResult {
  unloaded: LoopResult
  loaded: LoopResult
  floodLists: LoopResult
  floodCreates: LoopResult
  /**
   * The trickle's requests under the flood as the server timed them (APF's execution histogram of
   * its level, seat to answer): how many ended within each bucket's bound. Beside the client's
   * figure it tells the server's own delay from the time the two cores gave to other processes.
   */
  trickleServerSide: Array<{ le: string, count: number }>
  /** CPU ms, and ms runnable but waiting for a core, of the server, PostgreSQL and the machine under the flood. */
  underFlood: { cpuMs: Record<string, number>, waitMs: Record<string, number> }
}

const LOAD = 'bench/load.ts'
const FLOODER = 'bench-flooder'
const TRICKLER = 'bench-trickler'
const FC = '/apis/flowcontrol.apiserver.svc.io/v1'

type Api = (method: string, path: string, body: string, okCodes?: number[]) => Promise<string>

/** A limited level of `shares` seats that queues (no lending, no borrowing): the flood's or the trickle's own. */
export const queuedLevel = (name: string, shares: number, queues: number, queueLengthLimit: number): object => ({
  apiVersion: 'flowcontrol.apiserver.svc.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { name },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Queue', queuing: { queues, handSize: 1, queueLengthLimit } } } }
})
/** A FlowSchema sending every request of one user to `levelName`, flows by user. */
export const userFlowSchema = (name: string, user: string, levelName: string): object => ({
  apiVersion: 'flowcontrol.apiserver.svc.io/v1',
  kind: 'FlowSchema',
  metadata: { name },
  spec: {
    priorityLevelConfiguration: { name: levelName },
    matchingPrecedence: 100,
    distinguisherMethod: { type: 'ByUser' },
    rules: [{ subjects: [{ kind: 'User', user: { name: user } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }]
  }
})

/** The two users may do anything (they are measured, not authorized), in levels of their own. */
export async function setUpFairness (ensure: Api): Promise<void> {
  await ensure('POST', '/apis/rbac.authorization.svc.io/v1/clusterrolebindings', JSON.stringify({
    apiVersion: 'rbac.authorization.svc.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'bench-fairness' },
    roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [FLOODER, TRICKLER].map(name => ({ apiGroup: 'rbac.authorization.svc.io', kind: 'User', name }))
  }))
  // The flood's level: a few seats and short queues, so it sheds; the trickle's: its own seats.
  await ensure('POST', `${FC}/prioritylevelconfigurations`, JSON.stringify(queuedLevel('bench-flood', 2, 4, 8)))
  await ensure('POST', `${FC}/prioritylevelconfigurations`, JSON.stringify(queuedLevel('bench-trickle', 10, 4, 50)))
  await ensure('POST', `${FC}/flowschemas`, JSON.stringify(userFlowSchema('bench-flood', FLOODER, 'bench-flood')))
  await ensure('POST', `${FC}/flowschemas`, JSON.stringify(userFlowSchema('bench-trickle', TRICKLER, 'bench-trickle')))
}

const as = (t: Target, user: string): Target => ({ ...t, headers: { 'impersonate-user': user } })

function loop (target: Target, request: RequestKind, concurrency: number, durationMs: number): Promise<LoopResult> {
  // The flood's clients wait out Retry-After as client-go does: the flood keeps its level's
  // seats and queues full, and the server's time is not all spent saying 429 to a busy loop.
  const job: LoopJob = { mode: 'loop', target, request, concurrency, durationMs, honourRetryAfter: true }
  return runJson<LoopResult>(LOAD, job)
}

const EXECUTION = 'apiserver_flowcontrol_request_execution_seconds_bucket'

/** Cumulative bucket counts of `level`'s execution histogram in an exposition. */
function executionBuckets (exposition: string, level: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(EXECUTION) || !line.includes(`priority_level="${level}"`)) continue
    const le = /le="([^"]+)"/.exec(line)?.[1]
    if (le !== undefined) out.set(le, (out.get(le) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)))
  }
  return out
}

export async function runFairness (t: Target, namespace: string, getPath: string, f: FairnessFlags, serverPid: number, scrape: () => Promise<string>): Promise<FairnessResult> {
  const durationMs = f.durationS * 1000
  const trickler = as(t, TRICKLER)
  const flooder = as(t, FLOODER)
  const unloaded = await loop(trickler, { kind: 'get', path: getPath }, 1, durationMs)
  const half = Math.max(1, Math.floor(f.floodConcurrency / 2))
  const before = executionBuckets(await scrape(), 'bench-trickle')
  const flood = await cpuDuring({
    server: () => processCpuMs(serverPid),
    postgres: () => commandCpuMs('postgres'),
    machine: machineCpuMs,
    ...waitReaders({ server: () => processWaitMs(serverPid), postgres: () => commandWaitMs('postgres') })
  }, 0, Promise.all([
    loop(trickler, { kind: 'get', path: getPath }, 1, durationMs),
    loop(flooder, { kind: 'list', path: `/api/v1/namespaces/${namespace}/configmaps` }, half, durationMs),
    loop(flooder, { kind: 'create', namespace, prefix: 'flood', payloadBytes: f.payloadBytes }, half, durationMs)
  ]))
  const [loaded, floodLists, floodCreates] = flood.result
  const after = executionBuckets(await scrape(), 'bench-trickle')
  const trickleServerSide = [...after].map(([le, count]) => ({ le, count: count - (before.get(le) ?? 0) }))
  return { unloaded, loaded, floodLists, floodCreates, trickleServerSide, underFlood: splitWaits(flood.cpuMs) }
}

/** "p50 <= 5 ms, p99 <= 20 ms": the bucket bounds the server's own timing puts each quantile under. */
export function serverSide (buckets: FairnessResult['trickleServerSide']): string {
  const total = buckets.find(b => b.le === '+Inf')?.count ?? 0
  if (total === 0) return 'no requests seen'
  const bound = (q: number): string => {
    const b = buckets.filter(b => b.le !== '+Inf').sort((x, y) => Number(x.le) - Number(y.le)).find(b => b.count >= q * total)
    return b === undefined ? 'over the last bucket' : `<= ${Number(b.le) * 1000} ms`
  }
  return `p50 ${bound(0.5)}, p99 ${bound(0.99)} of ${total}`
}
