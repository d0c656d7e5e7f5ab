// The load generator: a process of its own, so its CPU is not the server's. The orchestrator
// (bench/run.ts) passes one job as JSON in argv[2]; the result is one JSON line on stdout.
// Every ceiling that is an HTTP endpoint is driven by this same code.
import { performance } from 'node:perf_hooks'
import type { Dispatcher } from 'undici'
import { pagedLists, type PagedJob } from './paged-lists.js'
import { pool, timedGet } from './http-pool.js'
import { bigLists, type BigListJob } from './big-lists.js'
import { BENCH_CRD, configMapBody, customObjectBody, latencySummary, type LatencySummary } from './payload.js'
import { openWatchStream, type WatchStream } from './watch-stream.js'
import { processCpuMs, processWaitMs } from './cpu.js'

export interface Target {
  origin: string
  /** PEM; absent for plain HTTP (etcd's gateway on loopback). */
  ca?: string
  cert?: string
  key?: string
  /** Sent with every request of a loop (impersonation: the admin's requests as another user). */
  headers?: Record<string, string>
}

/** A closed loop: `concurrency` clients, each sending its next request when the last is answered. */
export interface LoopJob {
  mode: 'loop'
  target: Target
  request: RequestKind
  concurrency: number
  /** Unmeasured load first: connections, JIT, the database's caches and WAL warm up. */
  warmupMs?: number
  /** Stop after this long... */
  durationMs?: number
  /** ...or after this many requests in all. */
  count?: number
  /**
   * As client-go: a 429 or 503 with Retry-After makes that client wait so many seconds before its
   * next request. Off, a client asks again at once (a script that ignores the header).
   */
  honourRetryAfter?: boolean
}

export type RequestKind =
  | { kind: 'create', namespace: string, prefix: string, payloadBytes: number }
  /** Creates of BENCH_CRD's custom objects. */
  | { kind: 'create-custom', namespace: string, prefix: string, payloadBytes: number }
  | { kind: 'get', path: string }
  | { kind: 'update', namespace: string, prefix: string, payloadBytes: number }
  | { kind: 'patch', path: string }
  | { kind: 'etcd-put', prefix: string, payloadBytes: number }
  | { kind: 'list', path: string }
  /** Server-side apply of ConfigMaps: each request a new object (`fresh`), or client n's first one re-applied unchanged. */
  | { kind: 'apply', namespace: string, prefix: string, payloadBytes: number, fresh: boolean }

export interface LoopResult {
  requests: number
  perSecond: number
  elapsedMs: number
  /** The generator's own CPU ms over the measured part. */
  cpuMs: number
  /** Ms its threads spent runnable but waiting for a core over the measured part. */
  waitMs: number
  statuses: Record<string, number>
  latency: LatencySummary
  /** Answers with a status the request kind does not count as success. */
  failures: number
  firstFailure?: string
}

/**
 * Watchers of namespaced collections while a writer creates at a fixed rate. Watcher i watches
 * namespaces[i % n] and write k goes to namespaces[k % n]: with one namespace every watcher gets
 * every event (the fan-out's worst case); with many, each write reaches watchers/n streams.
 */
export interface WatchJob {
  mode: 'watch'
  target: Target
  namespaces: string[]
  watchers: number
  writesPerSecond: number
  durationMs: number
  payloadBytes: number
  /** How long to wait for the last events after the last write. */
  drainMs: number
  /** The server's process, whose CPU over the writes this generator reads beside its own. */
  serverPid?: number
}

export interface WatchResult {
  watchers: number
  connected: number
  writes: number
  writeFailures: number
  expectedDeliveries: number
  delivered: number
  lost: number
  latency: LatencySummary
  /** CPU ms from the first write to the last answer (every watcher connected by then). */
  cpuMs: { server?: number, generator: number }
}

/** The list workload: latency of LIST, and JSON.stringify of the same items in this process. */
export interface ListJob {
  mode: 'list'
  target: Target
  path: string
  iterations: number
  warmup: number
}

export interface ListResult {
  items: number
  bytes: number
  unset: LatencySummary
  zero: LatencySummary
  stringify: LatencySummary
}

type Job = LoopJob | WatchJob | ListJob | PagedJob | BigListJob

const SUCCESS: Record<RequestKind['kind'], number[]> = {
  create: [201],
  'create-custom': [201],
  get: [200],
  update: [200],
  patch: [200],
  'etcd-put': [200],
  list: [200],
  apply: [200, 201]
}


const sleep = async (ms: number): Promise<void> => { if (ms > 0) await new Promise(resolve => setTimeout(resolve, ms)) }

const WATCH_WAVE = 50
const RV = /"resourceVersion":"(\d+)"/

/** Builds each client's requests; `onAnswer` sees the body when the next request needs it. */
function requester (kind: RequestKind, client: number): { next (): Dispatcher.RequestOptions, needsBody: boolean, onAnswer (body: string): void } {
  switch (kind.kind) {
    case 'create': {
      let i = 0
      const path = `/api/v1/namespaces/${kind.namespace}/configmaps`
      return {
        needsBody: false,
        onAnswer () {},
        next: () => ({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: configMapBody(`${kind.prefix}-${client}-${i++}`, kind.payloadBytes) })
      }
    }
    case 'create-custom': {
      let i = 0
      const path = `/apis/${BENCH_CRD.spec.group}/v1/namespaces/${kind.namespace}/${BENCH_CRD.spec.names.plural}`
      return {
        needsBody: false,
        onAnswer () {},
        next: () => ({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: customObjectBody(`${kind.prefix}-${client}-${i++}`, kind.payloadBytes) })
      }
    }
    case 'update': {
      // Client n owns the object its create loop named `<prefix>-n-0` and sends the resourceVersion
      // it last saw: no conflicts expected.
      let i = 0
      let rv = ''
      const name = `${kind.prefix}-${client}-0`
      const path = `/api/v1/namespaces/${kind.namespace}/configmaps/${name}`
      return {
        needsBody: true,
        onAnswer (body) { rv = RV.exec(body)?.[1] ?? '' },
        next: () => ({ method: 'PUT', path, headers: { 'content-type': 'application/json' }, body: configMapBody(name, kind.payloadBytes, { resourceVersion: rv, round: String(i++) }) })
      }
    }
    case 'patch': {
      let i = 0
      return {
        needsBody: false,
        onAnswer () {},
        next: () => ({ method: 'PATCH', path: kind.path, headers: { 'content-type': 'application/merge-patch+json' }, body: `{"data":{"writer":"${client}","round":"${i++}"}}` })
      }
    }
    case 'etcd-put': {
      let i = 0
      return {
        needsBody: false,
        onAnswer () {},
        next: () => {
          const name = `${kind.prefix}-${client}-${i++}`
          const key = Buffer.from(`/registry/configmaps/bench/${name}`).toString('base64')
          const value = Buffer.from(configMapBody(name, kind.payloadBytes)).toString('base64')
          return { method: 'POST', path: '/v3/kv/put', headers: { 'content-type': 'application/json' }, body: `{"key":"${key}","value":"${value}"}` }
        }
      }
    }
    case 'apply': {
      let i = 0
      const path = (name: string): string => `/api/v1/namespaces/${kind.namespace}/configmaps/${name}?fieldManager=bench`
      return {
        needsBody: false,
        onAnswer () {},
        next: () => {
          const name = `${kind.prefix}-${client}-${kind.fresh ? i++ : 0}`
          return { method: 'PATCH', path: path(name), headers: { 'content-type': 'application/apply-patch+yaml' }, body: configMapBody(name, kind.payloadBytes) }
        }
      }
    }
    case 'get':
    case 'list':
      return { needsBody: false, onAnswer () {}, next: () => ({ method: 'GET', path: kind.path }) }
  }
}

async function loop (job: LoopJob): Promise<LoopResult> {
  const p = pool(job.target, job.concurrency)
  const ok = SUCCESS[job.request.kind]
  const statuses: Record<string, number> = {}
  const latencies: number[] = []
  let failures = 0
  let firstFailure: string | undefined
  let sent = 0
  const start = performance.now() + (job.warmupMs ?? 0)
  const deadline = job.durationMs === undefined ? Infinity : start + job.durationMs
  const limit = job.count ?? Infinity
  let cpuAtStart = process.cpuUsage()
  let waitAtStart = processWaitMs('self')
  const startCpu = setTimeout(() => {
    cpuAtStart = process.cpuUsage()
    waitAtStart = processWaitMs('self')
  }, job.warmupMs ?? 0)

  async function client (n: number): Promise<void> {
    const r = requester(job.request, n)
    while (performance.now() < deadline && sent < limit) {
      sent++
      const t0 = performance.now()
      const options = r.next()
      if (job.target.headers !== undefined) options.headers = { ...(options.headers as Record<string, string> | undefined), ...job.target.headers }
      const res = await p.request(options)
      const good = ok.includes(res.statusCode)
      if (r.needsBody || !good) {
        const body = await res.body.text()
        if (good) r.onAnswer(body)
        else firstFailure ??= `${res.statusCode} ${body.slice(0, 300)}`
      } else {
        // undici's dump reads at most `limit` bytes and then destroys the connection; Infinity
        // is not a finite limit to it and falls back to 128 KiB, so a list closed its connection.
        await res.body.dump({ limit: Number.MAX_SAFE_INTEGER })
      }
      const retryAfterS = job.honourRetryAfter === true && (res.statusCode === 429 || res.statusCode === 503)
        ? Number(res.headers['retry-after'] ?? NaN)
        : NaN
      if (t0 >= start) {
        latencies.push(performance.now() - t0)
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1
        if (!good) failures++
      }
      if (retryAfterS > 0) await sleep(Math.min(retryAfterS * 1000, deadline - performance.now()))
    }
  }

  await Promise.all(Array.from({ length: job.concurrency }, (_, n) => client(n)))
  const elapsedMs = performance.now() - start
  clearTimeout(startCpu)
  const cpu = process.cpuUsage(cpuAtStart)
  const waitMs = processWaitMs('self') - waitAtStart
  await p.close()
  return { requests: latencies.length, perSecond: latencies.length / (elapsedMs / 1000), elapsedMs, cpuMs: (cpu.user + cpu.system) / 1000, waitMs, statuses, latency: latencySummary(latencies), failures, firstFailure }
}

async function list (job: ListJob): Promise<ListResult> {
  const p = pool(job.target, 1)
  const time = async (path: string): Promise<{ ms: number, body: string }> => await timedGet(p, path)
  const unset: number[] = []
  const zero: number[] = []
  let last = ''
  for (let i = 0; i < job.warmup + job.iterations; i++) {
    const a = await time(job.path)
    const b = await time(`${job.path}?resourceVersion=0`)
    if (i >= job.warmup) { unset.push(a.ms); zero.push(b.ms) }
    last = b.body
  }
  await p.close()
  // The ceiling: serialising the same items, in this one process, as often as the server listed.
  const doc = JSON.parse(last) as { items: unknown[] }
  const stringify: number[] = []
  for (let i = 0; i < job.warmup + job.iterations; i++) {
    const t0 = performance.now()
    const s = JSON.stringify(doc)
    if (i >= job.warmup) stringify.push(performance.now() - t0)
    if (s.length === 0) throw new Error('unreachable')
  }
  return { items: doc.items.length, bytes: Buffer.byteLength(last), unset: latencySummary(unset), zero: latencySummary(zero), stringify: latencySummary(stringify) }
}

async function watch (job: WatchJob): Promise<WatchResult> {
  const collection = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`
  const writers = pool(job.target, 32)
  // The watches start at the current revision, so they carry only the writes below.
  const first = await writers.request({ method: 'GET', path: '/api/v1/configmaps?limit=1' })
  const firstBody = await first.body.text()
  const startRv = RV.exec(firstBody)?.[1]
  if (first.statusCode !== 200 || startRv === undefined) throw new Error(`LIST /api/v1/configmaps: ${first.statusCode} ${firstBody.slice(0, 300)}`)

  // Per watcher: its namespace, and the revisions it received and when, in arrival order.
  const received: Array<{ ns: number, revs: number[], times: number[] }> = []
  const streams: WatchStream[] = []
  // In waves: a thousand TLS handshakes at once overrun the listen backlog and the connect timeout.
  for (let wave = 0; wave < job.watchers; wave += WATCH_WAVE) {
    const opened: Array<Promise<void>> = []
    for (let n = wave; n < Math.min(wave + WATCH_WAVE, job.watchers); n++) {
      const mine = { ns: n % job.namespaces.length, revs: [] as number[], times: [] as number[] }
      received.push(mine)
      const path = `${collection(job.namespaces[mine.ns]!)}?watch=true&resourceVersion=${startRv}&timeoutSeconds=3600`
      const stream = openWatchStream(job.target, path, (rv, at) => { mine.revs.push(rv); mine.times.push(at) })
      streams.push(stream)
      opened.push(stream.opened)
    }
    await Promise.all(opened)
  }
  const connected = streams.length
  let failed: unknown
  for (const s of streams) s.done.catch((err: unknown) => { failed ??= err })
  // Watches are registered with the cache once their headers are out; let the last ones settle.
  await new Promise(resolve => setTimeout(resolve, 500))

  /** Each acknowledged write's revision: when its answer came, and its namespace. */
  const acked = new Map<number, { at: number, ns: number }>()
  let writes = 0
  let writeFailures = 0
  const inflight: Array<Promise<void>> = []
  const serverCpu0 = job.serverPid === undefined ? 0 : processCpuMs(job.serverPid)
  const cpu0 = process.cpuUsage()
  const start = performance.now()
  const total = Math.round(job.writesPerSecond * job.durationMs / 1000)
  for (let n = 0; n < total; n++) {
    // Open loop: write n is due at start + n / rate, however slow the answers are.
    const due = start + n * 1000 / job.writesPerSecond
    const wait = due - performance.now()
    if (wait > 1) await new Promise(resolve => setTimeout(resolve, wait))
    const ns = n % job.namespaces.length
    inflight.push((async () => {
      const res = await writers.request({ method: 'POST', path: collection(job.namespaces[ns]!), headers: { 'content-type': 'application/json' }, body: configMapBody(`w-${n}`, job.payloadBytes) })
      const body = await res.body.text()
      const at = performance.now()
      const rv = RV.exec(body)?.[1]
      if (res.statusCode !== 201 || rv === undefined) { writeFailures++; return }
      writes++
      acked.set(Number(rv), { at, ns })
    })())
  }
  await Promise.all(inflight)
  const cpu = process.cpuUsage(cpu0)
  const cpuMs = { server: job.serverPid === undefined ? undefined : processCpuMs(job.serverPid) - serverCpu0, generator: (cpu.user + cpu.system) / 1000 }
  const watchersOf = new Array<number>(job.namespaces.length).fill(0)
  for (const r of received) watchersOf[r.ns]!++
  let expected = 0
  for (const { ns } of acked.values()) expected += watchersOf[ns]!
  const deliveredNow = (): number => received.reduce((sum, r) => sum + r.revs.filter(rv => acked.has(rv)).length, 0)
  const drainUntil = performance.now() + job.drainMs
  while (performance.now() < drainUntil && deliveredNow() < expected) await new Promise(resolve => setTimeout(resolve, 200))
  for (const s of streams) s.close()
  await Promise.allSettled(streams.map(s => s.done))
  if (failed !== undefined) throw failed
  await writers.close()

  const latencies: number[] = []
  let delivered = 0
  for (const r of received) {
    const seen = new Set<number>()
    for (let i = 0; i < r.revs.length; i++) {
      const write = acked.get(r.revs[i]!)
      if (write === undefined || write.ns !== r.ns || seen.has(r.revs[i]!)) continue
      seen.add(r.revs[i]!)
      delivered++
      // An event may arrive before its write's answer; that is no delay at all.
      latencies.push(Math.max(0, r.times[i]! - write.at))
    }
  }
  return { watchers: job.watchers, connected, writes, writeFailures, expectedDeliveries: expected, delivered, lost: expected - delivered, latency: latencySummary(latencies), cpuMs }
}

async function main (): Promise<void> {
  const job = JSON.parse(process.argv[2]!) as Job
  const result = job.mode === 'loop' ? await loop(job) : job.mode === 'list' ? await list(job) : job.mode === 'paged' ? await pagedLists(job) : job.mode === 'big-lists' ? await bigLists(job) : await watch(job)
  process.stdout.write(JSON.stringify(result) + '\n')
}

main().catch((err: unknown) => {
  process.stderr.write(`load generator failed: ${(err as Error).stack ?? String(err)}\n`)
  process.exit(1)
})
