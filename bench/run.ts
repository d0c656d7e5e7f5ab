// `npm run bench`: the server under load from a separate process, each workload beside its
// ceiling measured in the same run, one table, and the figures in bench/results/.
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync, readdirSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { spawn } from 'node:child_process'
import pg from 'pg'
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../storage/embedded.js'
import { startServer, type RunningServer } from './apiserver.js'
import { runAtScale } from './at-scale.js'
import { api, configMapBytes, countConfigMaps, ensure } from './client.js'
import { startEtcd } from './ceilings/etcd.js'
import { commandCpuMs, commandWaitMs, cpuDuring, machineCpuMs, perRequest, processCpuMs, processWaitMs, splitWaits, waitReaders } from './cpu.js'
import { parseBenchFlags, type BenchFlags, type Workload } from './flags.js'
import type { ListJob, ListResult, LoopJob, LoopResult, RequestKind, Target, WatchJob, WatchResult } from './load.js'
import type { PagedJob, PagedResult } from './paged-lists.js'
import type { BigListJob, BigListResult, ListMedia } from './big-lists.js'
import { BENCH_CRD, configMapBody } from './payload.js'
import { fillConfigMaps } from './fill.js'
import { runHostile } from './hostile.js'
import { BENCH_POLICY, benchPolicyBinding } from './policy.js'
import { runFairness, serverSide, setUpFairness } from './fairness.js'
import { freePort, runJson, startJsonService, TS_NODE_ARGS } from './process.js'
import { LABELS } from '../resources/naming.js'
import { medianOf, printTable, type Row } from './table.js'

const RESULTS_DIR = resolve('bench/results')
const MEMORY_SETTLE_S = 10
/** What one list in flight may add to the server's RSS in the big-lists workload. */
const BUFFER_PER_LIST = 8 * 1024 * 1024
const LOAD = 'bench/load.ts'

const NS = {
  create: 'bench-create',
  webhook: 'bench-webhook',
  policy: 'bench-policy',
  custom: 'bench-custom',
  get: 'bench-get',
  list: 'bench-list',
  paged: 'bench-paged',
  watch: 'bench-watch',
  update: 'bench-update',
  apply: 'bench-apply',
  hostile: 'bench-hostile',
  fairness: 'bench-fairness',
  memory: 'bench-memory',
  owned: 'bench-owned'
}

const log = (msg: string): void => { process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`) }
const round = (n: number, digits = 0): number => Number(n.toFixed(digits))
const mib = (n: number): string => `${round(n / 1048576)} MiB`

function loop (target: Target, request: RequestKind, concurrency: number, limits: { warmupMs?: number, durationMs?: number, count?: number }): Promise<LoopResult> {
  const job: LoopJob = { mode: 'loop', target, request, concurrency, ...limits }
  return runJson<LoopResult>(LOAD, job)
}

function checkLoop (what: string, r: LoopResult, allowed: number[] = []): void {
  const bad = Object.entries(r.statuses).filter(([code]) => !allowed.includes(Number(code)) && r.failures > 0)
  if (r.failures > 0 && bad.length > 0) log(`${what}: ${r.failures} failed answers ${JSON.stringify(r.statuses)}; first: ${r.firstFailure ?? ''}`)
}

/** A database for this run: a fresh one on the given server, else the embedded PostgreSQL. */
async function provideDatabase (flags: BenchFlags, dataDir: string): Promise<{ url: string, embedded?: EmbeddedPostgresHandle, drop (): Promise<void> }> {
  if (flags.databaseUrl === undefined) {
    const embedded = await startEmbeddedPostgres(dataDir)
    return { url: embedded.url, embedded, drop: async () => {} }
  }
  const name = `bench_${randomBytes(5).toString('hex')}`
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: flags.databaseUrl })
    await client.connect()
    try { await client.query(sql) } finally { await client.end() }
  }
  await admin(`CREATE DATABASE ${name}`)
  const url = new URL(flags.databaseUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

/** A note listing each round's ratio, beside the median the table shows. */
function byRound<T> (what: string, rounds: T[], ratio: (r: T) => number): string {
  return `${what} by round: ${rounds.map(r => `${ratio(r).toFixed(2)}x`).join(', ')} (the median is in the table)`
}

/** The measured processes, then the client's own figure, then the whole machine's. */
function cpuParties ({ machine, ...processes }: Record<string, number>, client: string, clientMs: number): Record<string, number> {
  return { ...processes, [client]: clientMs, 'whole machine': machine ?? 0 }
}

async function main (): Promise<void> {
  const flags = parseBenchFlags(process.argv.slice(2), process.env)
  const runs = (w: Workload): boolean => flags.only.includes(w)
  const workDir = mkdtempSync(join(tmpdir(), 'svc-bench-'))
  const dataDir = join(workDir, 'data')
  mkdirSync(dataDir)
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  mkdirSync(RESULTS_DIR, { recursive: true })
  const profDir = flags.cpuProf ? join(RESULTS_DIR, `profile-${stamp}`) : undefined
  const rows: Row[] = []
  const raw: Record<string, unknown> = {}
  const notes: string[] = []
  const bytes = flags.payloadBytes
  const warmupMs = flags.warmup * 1000
  /** A workload that fails is reported in the table; the others still run. */
  const attempt = async (workload: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn()
    } catch (err) {
      log(`${workload} failed: ${(err as Error).stack ?? String(err)}`)
      rows.push({ workload, figure: 'failed', target: '-', pass: false })
      notes.push(`${workload} failed: ${(err as Error).message.split('\n')[0]}`)
    }
  }

  const db = await provideDatabase(flags, dataDir)
  log(`database: ${flags.databaseUrl === undefined ? 'embedded PostgreSQL' : 'fresh database on DATABASE_URL'}; work directory ${workDir}`)
  let server: RunningServer | undefined
  try {
    server = await startServer({ dataDir, port: await freePort(), storageUrl: db.url, cpuProfDir: profDir, nodeArgs: flags.serverNodeArgs })
    const running = server
    const t = server.target
    log(`server ready in ${round(server.readyMs)} ms (pid ${server.pid})`)
    for (const ns of Object.values(NS)) await ensure(t, 'POST', '/api/v1/namespaces', `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${ns}"}}`)

    /**
     * Plain ConfigMap creates, then `variant`'s creates for as long, in this run: a row of the
     * variant's rate against plain's, which must reach 0.8x.
     */
    const createBesidePlain = async (name: string, plainRequest: RequestKind, variant: { what: string, request: RequestKind, row: string, ceiling: string }): Promise<void> => {
      const durationMs = flags.createDuration * 1000
      const c = flags.createConcurrency
      log(`${name}: plain create, ${c} clients for ${flags.createDuration} s`)
      const plain = await loop(t, plainRequest, c, { warmupMs, durationMs })
      checkLoop('plain create', plain)
      log(`${name}: ${variant.what}, ${c} clients for ${flags.createDuration} s`)
      const measured = await loop(t, variant.request, c, { warmupMs, durationMs })
      checkLoop(variant.what, measured)
      raw[name] = { plain, [name]: measured }
      const ratio = measured.perSecond / plain.perSecond
      rows.push({
        workload: variant.row,
        figure: `${round(measured.perSecond)}/s (p99 ${round(measured.latency.p99, 1)} ms)`,
        ceiling: `${round(plain.perSecond)}/s ${variant.ceiling}`,
        ratio,
        target: '>= 0.8x',
        pass: ratio >= 0.8
      })
    }

    if (runs('create')) await attempt('create', async () => {
      const durationMs = flags.createDuration * 1000
      const c = flags.createConcurrency
      const postgresCpu = { postgres: () => commandCpuMs('postgres'), machine: machineCpuMs }
      interface CreateRound {
        created: LoopResult, createCpu: Record<string, number>, createWait: Record<string, number>, rawPg: LoopResult, rawPgCpu: Record<string, number>
        etcdPuts?: LoopResult, etcdCpu?: Record<string, number>, etcdWait?: Record<string, number>
      }
      const vsPgOf = (r: CreateRound): number => r.created.perSecond / r.rawPg.perSecond
      const vsEtcdOf = (r: CreateRound): number => r.created.perSecond / r.etcdPuts!.perSecond
      const measured: CreateRound[] = []
      let etcdSkipped: string | undefined
      for (let round = 0; round < flags.rounds; round++) {
        const of = flags.rounds > 1 ? ` (round ${round + 1} of ${flags.rounds})` : ''
        log(`create: ${c} clients for ${flags.createDuration} s${of}`)
        const serverCreate = await cpuDuring({
          server: () => processCpuMs(running.pid),
          ...postgresCpu,
          ...waitReaders({ server: () => processWaitMs(running.pid), postgres: () => commandWaitMs('postgres') })
        }, warmupMs, loop(t, { kind: 'create', namespace: NS.create, prefix: `c${round}`, payloadBytes: bytes }, c, { warmupMs, durationMs }))
        const created = serverCreate.result
        const { cpuMs: createCpu, waitMs: createWait } = splitWaits(serverCreate.cpuMs)
        checkLoop('create', created)
        log(`create ceiling: raw PostgreSQL INSERT+NOTIFY, ${c} connections${of}`)
        const { result: rawPg, cpuMs: rawPgCpu } = await cpuDuring(postgresCpu, warmupMs,
          runJson<LoopResult>('bench/ceilings/pg-insert.ts', { url: db.url, concurrency: c, warmupMs, durationMs, payloadBytes: bytes }))
        const r: CreateRound = { created, createCpu, createWait, rawPg, rawPgCpu }
        const etcd = await startEtcd(workDir)
        if (typeof etcd === 'string') {
          etcdSkipped = etcd
        } else {
          log(`create ceiling: etcd ${etcd.version} puts, ${c} clients${of}`)
          try {
            const etcdPid = etcd.pid
            const m = await cpuDuring({ etcd: () => processCpuMs(etcdPid), machine: machineCpuMs, ...waitReaders({ etcd: () => processWaitMs(etcdPid) }) }, warmupMs,
              loop({ origin: etcd.origin }, { kind: 'etcd-put', prefix: 'e', payloadBytes: bytes }, c, { warmupMs, durationMs }))
            checkLoop('etcd put', m.result)
            const { cpuMs: etcdCpu, waitMs: etcdWait } = splitWaits(m.cpuMs)
            Object.assign(r, { etcdPuts: m.result, etcdCpu, etcdWait })
          } finally {
            await etcd.stop()
            rmSync(join(workDir, 'etcd'), { recursive: true, force: true })
          }
        }
        measured.push(r)
      }
      raw.create = measured.map(r => ({ server: r.created, serverCpuMs: r.createCpu, serverWaitMs: r.createWait, rawPostgres: r.rawPg, rawPostgresCpuMs: r.rawPgCpu, etcd: r.etcdPuts, etcdWaitMs: r.etcdWait }))
      const vsPg = medianOf(measured, vsPgOf)
      const figure = (r: CreateRound): string => `${round(r.created.perSecond)}/s (p99 ${round(r.created.latency.p99, 1)} ms)`
      const withEtcd = measured.filter(r => r.etcdPuts !== undefined)
      const etcdNotes: string[] = []
      if (withEtcd.length === 0) {
        notes.push(`etcd ceiling skipped: ${etcdSkipped ?? 'not measured'}`)
        rows.push({ workload: 'create vs etcd', figure: figure(vsPg), ceiling: 'skipped', target: '>= 1.0x', note: 'etcd not available' })
      } else {
        const vsEtcd = medianOf(withEtcd, vsEtcdOf)
        const ratio = vsEtcdOf(vsEtcd)
        rows.push({ workload: 'create vs etcd', figure: figure(vsEtcd), ceiling: `${round(vsEtcd.etcdPuts!.perSecond)} puts/s`, ratio, target: '>= 1.0x', pass: ratio >= 1 })
        etcdNotes.push(`CPU per etcd put: ${perRequest(cpuParties(vsEtcd.etcdCpu!, 'load generator', vsEtcd.etcdPuts!.cpuMs), vsEtcd.etcdPuts!.requests)}`)
        etcdNotes.push(`waiting for a core per etcd put: ${perRequest({ ...vsEtcd.etcdWait!, 'load generator': vsEtcd.etcdPuts!.waitMs }, vsEtcd.etcdPuts!.requests)}`)
        if (measured.length > 1) etcdNotes.push(byRound('create vs etcd', withEtcd, vsEtcdOf))
      }
      const pgRatio = vsPgOf(vsPg)
      rows.push({ workload: 'create vs PostgreSQL', figure: figure(vsPg), ceiling: `${round(vsPg.rawPg.perSecond)} tx/s`, ratio: pgRatio, target: '>= 1.5x', pass: pgRatio >= 1.5 })
      notes.push(`CPU per create: ${perRequest(cpuParties(vsPg.createCpu, 'load generator', vsPg.created.cpuMs), vsPg.created.requests)}`)
      notes.push(`waiting for a core per create (runnable, not running): ${perRequest({ ...vsPg.createWait, 'load generator': vsPg.created.waitMs }, vsPg.created.requests)}`)
      notes.push(`CPU per raw PostgreSQL transaction: ${perRequest(cpuParties(vsPg.rawPgCpu, 'client', vsPg.rawPg.cpuMs), vsPg.rawPg.requests)}`)
      if (measured.length > 1) notes.push(byRound('create vs PostgreSQL', measured, vsPgOf))
      notes.push(...etcdNotes)
    })

    if (runs('custom')) await attempt('custom', async () => {
      // Custom objects with a schema and two CEL rules beside ConfigMaps, in the same run: what
      // defaulting, pruning, schema validation and the rules add to a create.
      const crds = '/apis/apiextensions.svc.io/v1/customresourcedefinitions'
      await ensure(t, 'POST', crds, JSON.stringify(BENCH_CRD))
      const widgets = `/apis/${BENCH_CRD.spec.group}/v1/namespaces/${NS.custom}/${BENCH_CRD.spec.names.plural}`
      for (let served = false, tries = 0; !served; tries++) {
        if (tries === 100) throw new Error('the bench CRD was never served')
        served = (await api(t, 'GET', widgets)).status === 200
        if (!served) await new Promise(resolve => setTimeout(resolve, 100))
      }
      await createBesidePlain('custom', { kind: 'create', namespace: NS.custom, prefix: 'cp', payloadBytes: bytes }, {
        what: 'custom object create',
        request: { kind: 'create-custom', namespace: NS.custom, prefix: 'cw', payloadBytes: bytes },
        row: 'create a custom object (schema, two CEL rules)',
        ceiling: 'ConfigMap create'
      })
    })

    if (runs('webhook')) await attempt('webhook', async () => {
      // Creates whose namespace one no-op validating webhook watches, beside plain creates, in
      // the same run: the webhook round trip's share of a create (a kept-alive HTTPS call).
      const hook = await startJsonService<{ port: number, caBundle: string }>('bench/noop-webhook.ts', [join(workDir, 'noop-webhook')])
      const config = '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations'
      try {
        const hookPid = hook.pid
        await ensure(t, 'POST', config, JSON.stringify({
          metadata: { name: 'bench-noop' },
          webhooks: [{
            name: 'noop.bench.example.com',
            clientConfig: { url: `https://127.0.0.1:${hook.info.port}/validate`, caBundle: hook.info.caBundle },
            rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
            namespaceSelector: { matchLabels: { [LABELS.namespaceName]: NS.webhook } },
            sideEffects: 'None',
            admissionReviewVersions: ['v1']
          }]
        }))
        const durationMs = flags.createDuration * 1000
        const c = flags.createConcurrency
        log(`webhook: plain create, ${c} clients for ${flags.createDuration} s`)
        const plain = await loop(t, { kind: 'create', namespace: NS.create, prefix: 'wp', payloadBytes: bytes }, c, { warmupMs, durationMs })
        checkLoop('plain create', plain)
        log(`webhook: create through one no-op validating webhook, ${c} clients for ${flags.createDuration} s`)
        const hooked = await cpuDuring({ server: () => processCpuMs(running.pid), webhook: () => processCpuMs(hookPid), machine: machineCpuMs }, warmupMs,
          loop(t, { kind: 'create', namespace: NS.webhook, prefix: 'wh', payloadBytes: bytes }, c, { warmupMs, durationMs }))
        checkLoop('create through a webhook', hooked.result)
        raw.webhook = { plain, hooked: hooked.result, cpuMs: hooked.cpuMs }
        rows.push({
          workload: 'create through one no-op validating webhook',
          figure: `${round(hooked.result.perSecond)}/s (p99 ${round(hooked.result.latency.p99, 1)} ms)`,
          ceiling: `${round(plain.perSecond)}/s plain create`,
          ratio: hooked.result.perSecond / plain.perSecond,
          target: '-'
        })
        notes.push(`CPU per create through the webhook: ${perRequest(cpuParties(hooked.cpuMs, 'load generator', hooked.result.cpuMs), hooked.result.requests)}`)
      } finally {
        await api(t, 'DELETE', `${config}/bench-noop`).catch(() => {})
        await hook.stop()
      }
    })

    if (runs('policy')) await attempt('policy', async () => {
      // Creates whose namespace one ValidatingAdmissionPolicy (three expressions, all true)
      // watches, beside plain creates, in the same run: what evaluating CEL in process adds.
      const ar = '/apis/admissionregistration.svc.io/v1'
      await ensure(t, 'POST', `${ar}/validatingadmissionpolicies`, JSON.stringify(BENCH_POLICY))
      await ensure(t, 'POST', `${ar}/validatingadmissionpolicybindings`, JSON.stringify(benchPolicyBinding(NS.policy)))
      try {
        await createBesidePlain('policy', { kind: 'create', namespace: NS.create, prefix: 'pc', payloadBytes: bytes }, {
          what: 'create through one ValidatingAdmissionPolicy with three expressions',
          request: { kind: 'create', namespace: NS.policy, prefix: 'pp', payloadBytes: bytes },
          row: 'create through one ValidatingAdmissionPolicy (three expressions)',
          ceiling: 'plain create'
        })
      } finally {
        await api(t, 'DELETE', `${ar}/validatingadmissionpolicybindings/${BENCH_POLICY.metadata.name}`).catch(() => {})
        await api(t, 'DELETE', `${ar}/validatingadmissionpolicies/${BENCH_POLICY.metadata.name}`).catch(() => {})
      }
    })

    if (runs('get')) await attempt('get', async () => {
      const body = await ensure(t, 'POST', `/api/v1/namespaces/${NS.get}/configmaps`, configMapBody('object', bytes))
      const path = `/api/v1/namespaces/${NS.get}/configmaps/object`
      const stored = await api(t, 'GET', path)
      const bodyFile = join(workDir, 'object.json')
      writeFileSync(bodyFile, stored.status === 200 ? stored.body : body)
      const measured: Array<{ server: LoopResult, bareFastify: LoopResult }> = []
      for (let round = 0; round < flags.rounds; round++) {
        const of = flags.rounds > 1 ? ` (round ${round + 1} of ${flags.rounds})` : ''
        log(`get: ${flags.getConcurrency} clients for ${flags.getDuration} s${of}`)
        const got = await loop(t, { kind: 'get', path }, flags.getConcurrency, { warmupMs, durationMs: flags.getDuration * 1000 })
        checkLoop('get', got)
        log(`get ceiling: bare Fastify HTTPS route${of}`)
        const bare = await withBareFastify(running.tls, bodyFile, (origin) =>
          loop({ ...t, origin }, { kind: 'get', path: '/object' }, flags.getConcurrency, { warmupMs, durationMs: flags.getDuration * 1000 }))
        measured.push({ server: got, bareFastify: bare })
      }
      raw.get = measured
      const vsBare = (r: { server: LoopResult, bareFastify: LoopResult }): number => r.server.perSecond / r.bareFastify.perSecond
      const { server: got, bareFastify: bare } = medianOf(measured, vsBare)
      rows.push({ workload: 'get', figure: `${round(got.perSecond)}/s (p99 ${round(got.latency.p99, 1)} ms)`, ceiling: `${round(bare.perSecond)}/s`, ratio: got.perSecond / bare.perSecond, target: '>= 0.6x', pass: got.perSecond >= 0.6 * bare.perSecond })
      if (measured.length > 1) notes.push(byRound('get', measured, vsBare))
    })

    if (runs('list')) await attempt('list', async () => {
      const have = JSON.parse((await api(t, 'GET', `/api/v1/namespaces/${NS.list}/configmaps?limit=1&resourceVersion=0`)).body) as { items: unknown[], metadata: { remainingItemCount?: number } }
      const missing = flags.listItems - have.items.length - (have.metadata.remainingItemCount ?? 0)
      log(`list: filling ${missing} objects, then ${flags.listIterations} lists at resourceVersion unset and 0`)
      if (missing > 0) checkLoop('list fill', await loop(t, { kind: 'create', namespace: NS.list, prefix: 'item', payloadBytes: bytes }, 32, { count: missing }))
      const job: ListJob = { mode: 'list', target: t, path: `/api/v1/namespaces/${NS.list}/configmaps`, iterations: flags.listIterations, warmup: 2 }
      const listed = await runJson<ListResult>(LOAD, job)
      raw.list = listed
      for (const [label, l] of [['unset', listed.unset], ['0', listed.zero]] as const) {
        rows.push({
          workload: `list ${listed.items} rv=${label}`,
          figure: `p50 ${round(l.p50, 1)} ms, p99 ${round(l.p99, 1)} ms`,
          ceiling: `stringify p50 ${round(listed.stringify.p50, 1)} ms`,
          ratio: l.p50 / listed.stringify.p50,
          target: '<= 2x',
          pass: l.p50 <= 2 * listed.stringify.p50
        })
      }
    })

    /** The paged workload's ConfigMaps (big-lists lists them too): namespaces of 1,000, one object in a hundred labelled for the selector. */
    const fillPaged = async (): Promise<void> => {
      const perNamespace = 1000
      const have = JSON.parse((await api(t, 'GET', `/api/v1/namespaces/${NS.paged}-0/configmaps?limit=1&resourceVersion=0`)).body) as { items: unknown[], metadata: { remainingItemCount?: number } }
      if (have.items.length > 0) return
      for (let i = 0; i * perNamespace < flags.pagedObjects; i++) await ensure(t, 'POST', '/api/v1/namespaces', `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${NS.paged}-${i}"}}`)
      const template = await ensure(t, 'POST', `/api/v1/namespaces/${NS.paged}-0/configmaps`, configMapBody('template', bytes))
      log(`paged: writing ${flags.pagedObjects} ConfigMaps in namespaces of ${perNamespace} through the store`)
      await fillConfigMaps(db.url, template, n => `${NS.paged}-${Math.floor(n / perNamespace)}`, 'p', flags.pagedObjects - 1,
        n => ({ 'bench-shard': String(n % 100) }))
    }

    if (runs('paged')) await attempt('paged', async () => {
      await fillPaged()
      const total = await countConfigMaps(t, false)
      log(`paged: ${total} ConfigMaps; paged walks (limit=500), unpaged lists, namespace lists, a 1% selector`)
      const job: PagedJob = {
        mode: 'paged', target: t, allPath: '/api/v1/configmaps', namespacePath: `/api/v1/namespaces/${NS.paged}-1/configmaps`,
        selector: 'bench-shard=7', pageLimit: 500, walks: 3, unpagedIterations: 5, iterations: flags.listIterations, warmup: 2, serverPid: running.pid
      }
      const r = await runJson<PagedResult>(LOAD, job)
      raw.paged = r
      const c = (k: 'walk' | 'unpaged'): string => { const x = r.costs[k]; return `server CPU ${round(x.serverCpu, 0)} ms, waiting for a core ${round(x.serverWait, 0)} ms; load generator CPU ${round(x.clientCpu, 0)} ms, waiting ${round(x.clientWait, 0)} ms` }
      log(`paged: a walk: ${c('walk')}`)
      log(`paged: an unpaged list: ${c('unpaged')}`)
      const ms = (n: number): string => `${round(n, 1)} ms`
      rows.push({ workload: `paged walk ${r.objects} (limit 500)`, figure: `${ms(r.walk.p50)}, page p50 ${ms(r.pages.p50)} p99 ${ms(r.pages.p99)}`, ceiling: `unpaged list ${ms(r.unpaged.p50)}`, ratio: r.walk.p50 / r.unpaged.p50, target: '<= 2x', pass: r.walk.p50 <= 2 * r.unpaged.p50 })
      rows.push({ workload: `unpaged list ${r.objects}`, figure: `p50 ${ms(r.unpaged.p50)}, ${mib(r.unpagedBytes)}`, ceiling: `stringify p50 ${ms(r.stringify.all.p50)}`, ratio: r.unpaged.p50 / r.stringify.all.p50, target: '<= 1.5x', pass: r.unpaged.p50 <= 1.5 * r.stringify.all.p50 })
      rows.push({ workload: `namespace list ${r.namespaceItems}`, figure: `p50 ${ms(r.namespace.p50)}, p99 ${ms(r.namespace.p99)}`, ceiling: `stringify p50 ${ms(r.stringify.namespace.p50)}`, ratio: r.namespace.p50 / r.stringify.namespace.p50, target: '<= 1.0x', pass: r.namespace.p50 <= r.stringify.namespace.p50 })
      rows.push({ workload: `namespace list ${r.namespaceItems}, protobuf`, figure: `p50 ${ms(r.namespaceProtobuf.p50)}, p99 ${ms(r.namespaceProtobuf.p99)}`, ceiling: `the JSON list p50 ${ms(r.namespace.p50)}`, ratio: r.namespaceProtobuf.p50 / r.namespace.p50, target: '<= 1.0x', pass: r.namespaceProtobuf.p50 <= r.namespace.p50, note: `CPU per answer ${round(r.serverCpuPerList.namespaceProtobuf, 2)} ms, the JSON list's ${round(r.serverCpuPerList.namespace, 2)} ms` })
      rows.push({ workload: `namespace list ${r.namespaceItems}, Table`, figure: `p50 ${ms(r.namespaceTable.p50)}, p99 ${ms(r.namespaceTable.p99)}`, ceiling: `the JSON list p50 ${ms(r.namespace.p50)}`, ratio: r.namespaceTable.p50 / r.namespace.p50, target: '<= 1.0x', pass: r.namespaceTable.p50 <= r.namespace.p50, note: `CPU per answer ${round(r.serverCpuPerList.namespaceTable, 2)} ms, the JSON list's ${round(r.serverCpuPerList.namespace, 2)} ms` })
      rows.push({ workload: `label selector, ${r.selectorItems} of ${r.objects}`, figure: `p50 ${ms(r.selector.p50)}, p99 ${ms(r.selector.p99)}`, ceiling: `stringify p50 ${ms(r.stringify.selector.p50)}`, ratio: r.selector.p50 / r.stringify.selector.p50, target: '<= 2x', pass: r.selector.p50 <= 2 * r.stringify.selector.p50 })
      // A second ceiling for the small lists: the same bytes from a bare Fastify HTTPS route,
      // what moving the answer between the two processes costs with no server behind it; in
      // time, and in the serving process's CPU per answer (steadier on a shared machine).
      for (const [workload, path, server, serverCpu] of [[`namespace list ${r.namespaceItems}`, job.namespacePath, r.namespace, r.serverCpuPerList.namespace], [`label selector, ${r.selectorItems} of ${r.objects}`, `${job.allPath}?labelSelector=${encodeURIComponent(job.selector)}`, r.selector, r.serverCpuPerList.selector]] as const) {
        const bodyFile = join(workDir, 'list.json')
        writeFileSync(bodyFile, (await api(t, 'GET', path)).body)
        const listJob: ListJob = { mode: 'list', target: t, path: '/object', iterations: flags.listIterations, warmup: 2 }
        const { result: bare, cpu: bareCpu } = await withBareFastify(running.tls, bodyFile, async (origin, pid) => {
          const c0 = processCpuMs(pid)
          const result = await runJson<ListResult>(LOAD, { ...listJob, target: { ...t, origin } })
          // The list job asks twice per iteration (resourceVersion unset and 0).
          return { result, cpu: (processCpuMs(pid) - c0) / (2 * (listJob.iterations + listJob.warmup)) }
        })
        log(`paged: ${workload}: server CPU ${round(serverCpu, 2)} ms per answer, the bare route's ${round(bareCpu, 2)} ms (${round(serverCpu / bareCpu, 2)}x)`)
        rows.push({ workload: `${workload}, vs its bytes from a bare route`, figure: `p50 ${ms(server.p50)}`, ceiling: `bare Fastify route p50 ${ms(bare.unset.p50)}`, ratio: server.p50 / bare.unset.p50, target: '-', note: `CPU per answer ${round(serverCpu, 2)} ms, the bare route's ${round(bareCpu, 2)} ms (${round(serverCpu / bareCpu, 2)}x)` })
      }
    })

    // Unpaged lists of every ConfigMap, ten at once: the server's RSS may grow by a bounded
    // buffer (and its garbage) per list, never by an answer's size per list; then one at a time
    // beside JSON.stringify of the same items.
    if (runs('big-lists')) await attempt('big-lists', async () => {
      await fillPaged()
      await countConfigMaps(t, false)
      const c = flags.bigListConcurrency
      const base = { mode: 'big-lists' as const, target: t, path: '/api/v1/configmaps', rounds: flags.bigListRounds }
      const single = await runJson<BigListResult>(LOAD, { ...base, phase: 'single', concurrency: 1, media: ['json', 'protobuf'] } satisfies BigListJob)
      const liveJson = single.lists.json!.bytes
      const concurrent: Record<string, unknown> = {}
      for (const media of ['json', 'protobuf'] as ListMedia[]) {
        await new Promise(resolve => setTimeout(resolve, 3000))
        const before = running.rssBytes()
        let peak = before
        const sampler = setInterval(() => { peak = Math.max(peak, running.rssBytes()) }, 20)
        let r: BigListResult
        try {
          r = await runJson<BigListResult>(LOAD, { ...base, phase: 'concurrent', concurrency: c, rounds: 1, media: [media] } satisfies BigListJob)
        } finally {
          clearInterval(sampler)
        }
        concurrent[media] = { ...r, rssBeforeBytes: before, rssPeakBytes: peak }
        const cutOff = r.lists[media]!.cutOff
        // Bounded: what the server held before (the live set among it) plus a bounded buffer per list.
        const allowed = before + c * BUFFER_PER_LIST
        rows.push({
          workload: `${c} unpaged lists of ${single.items} at once, ${media}`,
          figure: `peak RSS ${mib(peak)}, +${mib(peak - before)} over ${mib(before)}` +
            (cutOff < c ? `; list p50 ${round(r.lists[media]!.ms.p50)} ms` : '') +
            (cutOff > 0 ? `; ${cutOff} cut off at the request deadline` : ''),
          ceiling: `live JSON ${mib(liveJson)}`,
          ratio: peak / liveJson,
          target: `<= ${round(allowed / liveJson, 1)}x (RSS before + ${mib(BUFFER_PER_LIST)}/list), none cut off`,
          pass: peak <= allowed && cutOff === 0
        })
      }
      raw.bigLists = { single, concurrent, liveJsonBytes: liveJson }
      const stringify = single.stringify!.p50
      for (const [media, target] of [['json', 1.5], ['protobuf', 3]] as const) {
        const l = single.lists[media]!
        rows.push({ workload: `unpaged list ${single.items}, ${media}`, figure: `p50 ${round(l.ms.p50, 1)} ms, ${mib(l.bytes)}`, ceiling: `stringify p50 ${round(stringify, 1)} ms`, ratio: l.ms.p50 / stringify, target: `<= ${target}x`, pass: l.ms.p50 <= target * stringify })
      }
    })

    /** Watchers over namespaces while a writer creates at --watch-rate: latency from each write's answer to each event's arrival. */
    const watchWorkload = async (namespaces: string[], watchers: number, p99Target: number): Promise<void> => {
      const spread = namespaces.length === 1 ? '' : ` over ${namespaces.length} namespaces`
      log(`watch: ${watchers} watchers${spread}, ${flags.watchRate} writes/s for ${flags.watchDuration} s`)
      const job: WatchJob = { mode: 'watch', target: t, namespaces, watchers, writesPerSecond: flags.watchRate, durationMs: flags.watchDuration * 1000, payloadBytes: bytes, drainMs: 10_000, serverPid: running.pid }
      const w = await runJson<WatchResult>(LOAD, job)
      const name = `watch ${w.watchers}${spread === '' ? '' : `/${namespaces.length}ns`}x${flags.watchRate}/s`
      raw[name] = w
      // With one namespace the deliveries are the cost; spread, each write's create is most of it.
      const [per, unit] = spread === '' ? [w.delivered, 'watch event delivered'] : [w.writes, `write (its create and its ${round(w.delivered / Math.max(1, w.writes), 1)} events)`]
      const cost = (ms: number): string => `${(ms * 1000 / Math.max(1, per)).toFixed(1)} µs`
      notes.push(`${name}: CPU per ${unit}: server ${cost(w.cpuMs.server ?? 0)}, load generator ${cost(w.cpuMs.generator)}`)
      rows.push({ workload: name, figure: `p50 ${round(w.latency.p50, 1)} ms, p99 ${round(w.latency.p99, 1)} ms`, target: `p99 <= ${p99Target} ms`, pass: w.latency.p99 <= p99Target })
      rows.push({ workload: `${name}: events lost`, figure: `${w.lost} of ${w.expectedDeliveries}`, target: '0', pass: w.lost === 0 && w.connected === w.watchers })
    }
    // Every watcher on the written namespace: each write goes to every stream, the fan-out's worst case.
    if (runs('watch')) await attempt('watch', () => watchWorkload([NS.watch], flags.watchers, 100))
    // The issue's shape: watchers spread over namespaces as a cluster's clients are, each write
    // reaching a few of them.
    if (runs('watch-spread')) {
      await attempt('watch-spread', async () => {
        const namespaces = Array.from({ length: flags.spreadNamespaces }, (_, i) => `${NS.watch}-${i}`)
        for (const ns of namespaces) await ensure(t, 'POST', '/api/v1/namespaces', `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${ns}"}}`)
        await watchWorkload(namespaces, flags.spreadWatchers, 50)
      })
    }

    if (runs('update')) await attempt('update', async () => {
      const c = flags.updateConcurrency
      checkLoop('update fill', await loop(t, { kind: 'create', namespace: NS.update, prefix: 'u', payloadBytes: bytes }, c, { count: c }))
      log(`update: ${c} clients on distinct objects for ${flags.updateDuration} s`)
      const updated = await loop(t, { kind: 'update', namespace: NS.update, prefix: 'u', payloadBytes: bytes }, c, { warmupMs, durationMs: flags.updateDuration * 1000 })
      checkLoop('update', updated)
      await ensure(t, 'POST', `/api/v1/namespaces/${NS.update}/configmaps`, configMapBody('hot', bytes))
      log(`update: ${flags.hotConcurrency} clients patching one object for ${flags.hotDuration} s`)
      const hot = await loop(t, { kind: 'patch', path: `/api/v1/namespaces/${NS.update}/configmaps/hot` }, flags.hotConcurrency, { warmupMs, durationMs: flags.hotDuration * 1000 })
      checkLoop('hot patch', hot, [409])
      raw.update = { distinct: updated, hot }
      rows.push({ workload: 'update distinct', figure: `${round(updated.perSecond)}/s (p99 ${round(updated.latency.p99, 1)} ms)`, target: '-', note: `${updated.failures} failed` })
      const ok = hot.statuses['200'] ?? 0
      rows.push({ workload: 'update hot PATCH', figure: `${round(ok / (hot.elapsedMs / 1000))}/s ok, ${hot.statuses['409'] ?? 0} x 409`, target: '-', note: `${ok} ok of ${hot.requests}` })
    })

    if (runs('apply')) await attempt('apply', async () => {
      const c = flags.applyConcurrency
      const durationMs = flags.applyDuration * 1000
      log(`apply: ${c} clients creating distinct ConfigMaps by POST, then by server-side apply, for ${flags.applyDuration} s each`)
      const created = await loop(t, { kind: 'create', namespace: NS.apply, prefix: 'post', payloadBytes: bytes }, c, { warmupMs, durationMs })
      checkLoop('apply ceiling (create)', created)
      const applied = await loop(t, { kind: 'apply', namespace: NS.apply, prefix: 'ssa', payloadBytes: bytes, fresh: true }, c, { warmupMs, durationMs })
      checkLoop('apply distinct', applied)
      // Unchanged re-applies must not reach the database: the re-applied objects keep their resourceVersions.
      const revisions = async (): Promise<string[]> => await Promise.all(Array.from({ length: c }, async (_, n) =>
        JSON.parse((await api(t, 'GET', `/api/v1/namespaces/${NS.apply}/configmaps/ssa-${n}-0`)).body).metadata?.resourceVersion as string))
      const before = await revisions()
      log(`apply: ${c} clients re-applying their unchanged ConfigMap for ${flags.applyDuration} s`)
      const again = await loop(t, { kind: 'apply', namespace: NS.apply, prefix: 'ssa', payloadBytes: bytes, fresh: false }, c, { warmupMs, durationMs })
      checkLoop('apply unchanged', again)
      const after = await revisions()
      const writes = after.filter((rv, n) => rv !== before[n]).length
      raw.apply = { create: created, applyDistinct: applied, applyUnchanged: again, unchangedWrites: writes }
      const ratio = applied.perSecond / created.perSecond
      rows.push({ workload: 'apply distinct vs create', figure: `${round(applied.perSecond)}/s (p99 ${round(applied.latency.p99, 1)} ms)`, ceiling: `${round(created.perSecond)} creates/s`, ratio, target: '>= 0.8x', pass: ratio >= 0.8 })
      rows.push({ workload: 'apply unchanged', figure: `${round(again.perSecond)}/s (p99 ${round(again.latency.p99, 1)} ms)`, target: '0 writes', pass: writes === 0, note: `${writes} of ${c} objects written` })
    })

    if (runs('hostile')) await attempt('hostile', async () => {
      log(`hostile: each parser's worst input beside a benign body of its size, ${flags.hostileRounds} rounds, /readyz probed every 10 ms`)
      const h = await runHostile(t, NS.hostile, flags.hostileRounds)
      raw.hostile = h
      const worst = h.cases.reduce((a, b) => b.hostileMs > a.hostileMs ? b : a)
      const ceiling = Math.max(...h.cases.map(c => c.benignMs))
      const ratio = worst.hostileMs / ceiling
      rows.push({ workload: 'hostile input, slowest /readyz', figure: `${round(worst.hostileMs, 1)} ms (${worst.what})`, ceiling: `${round(ceiling, 1)} ms benign`, ratio, target: '<= 3x', pass: ratio <= 3 })
      for (const c of h.cases) notes.push(`hostile: ${c.what}: slowest /readyz ${round(c.hostileMs, 1)} ms, ${round(c.benignMs, 1)} ms for a benign body of its size; answers ${[...new Set(c.statuses)].join(', ')}`)
    })

    if (runs('fairness')) await attempt('fairness', async () => {
      await setUpFairness((method, path, body, okCodes) => ensure(t, method, path, body, okCodes))
      await ensure(t, 'POST', `/api/v1/namespaces/${NS.fairness}/configmaps`, configMapBody('object', bytes))
      const listItems = 500
      checkLoop('fairness fill', await loop(t, { kind: 'create', namespace: NS.fairness, prefix: 'item', payloadBytes: bytes }, 16, { count: listItems }))
      log(`fairness: one user's gets alone for ${flags.fairnessDuration} s, then beside another user's lists (${listItems} items) and creates from ${flags.fairnessConcurrency} clients`)
      const f = await runFairness(t, NS.fairness, `/api/v1/namespaces/${NS.fairness}/configmaps/object`, { durationS: flags.fairnessDuration, floodConcurrency: flags.fairnessConcurrency, listItems, payloadBytes: bytes },
        running.pid, async () => await ensure(t, 'GET', '/metrics', '', [200]))
      raw.fairness = f
      const ratio = f.loaded.latency.p99 / f.unloaded.latency.p99
      const rejected = (f.floodLists.statuses['429'] ?? 0) + (f.floodCreates.statuses['429'] ?? 0)
      const flood = f.floodLists.requests + f.floodCreates.requests
      rows.push({
        workload: 'fairness: trickle p99 under a flood',
        figure: `p99 ${round(f.loaded.latency.p99, 1)} ms`,
        ceiling: `p99 ${round(f.unloaded.latency.p99, 1)} ms unloaded`,
        ratio,
        target: '<= 5x, 0 failed',
        pass: ratio <= 5 && f.loaded.failures === 0 && f.unloaded.failures === 0,
        note: `trickle ${f.loaded.requests} gets, ${f.loaded.failures} failed (as the server timed them: ${serverSide(f.trickleServerSide)}); flood ${flood} requests, ${rejected} x 429`
      })
    })

    /** Fills copies of `template` into `namespace` until `total` ConfigMaps are cached, then reads RSS once it settles. */
    const fillAndMeasure = async (namespace: string, template: string, total: number): Promise<{ rss: number, samples: number[], size: { objects: number, bytes: number } }> => {
      const have = await countConfigMaps(t)
      const missing = total - have
      log(`memory: ${have} ConfigMaps cached; writing ${Math.max(0, missing)} more into ${namespace} through the store`)
      if (missing > 0) {
        await fillConfigMaps(db.url, template, namespace, 'm', missing)
        // A consistent list: the cache has taken in every write.
        let now = 0
        const deadline = Date.now() + 120_000
        while (now < total) {
          if (Date.now() > deadline) throw new Error(`only ${now} ConfigMaps cached two minutes after the fill`)
          now = await countConfigMaps(t, false).catch(() => 0)
        }
      }
      // V8 gives memory back some seconds after a burst of allocation: read RSS once it settles.
      const samples: number[] = []
      for (let i = 0; i < MEMORY_SETTLE_S; i++) {
        await new Promise(resolve => setTimeout(resolve, 1000))
        samples.push(running.rssBytes())
      }
      return { rss: samples[samples.length - 1]!, samples, size: await configMapBytes(t) }
    }

    if (runs('memory')) await attempt('memory', async () => {
      const template = await ensure(t, 'POST', `/api/v1/namespaces/${NS.memory}/configmaps`, configMapBody('template', bytes))
      const { rss, samples, size } = await fillAndMeasure(NS.memory, template, flags.memoryObjects)
      raw.memory = { rssBytes: rss, rssSamples: samples, ...size }
      rows.push({ workload: `memory ${size.objects} objects`, figure: `RSS ${mib(rss)}`, ceiling: `JSON ${mib(size.bytes)}`, ratio: rss / size.bytes, target: '<= 3x', pass: rss <= 3 * size.bytes })
    })

    // The same, with half as many again owned by one live ConfigMap: what the garbage
    // collector's graph of owner references adds to the cached objects' cost.
    if (runs('owned')) await attempt('owned', async () => {
      const owner = JSON.parse(await ensure(t, 'POST', `/api/v1/namespaces/${NS.owned}/configmaps`, configMapBody('owner', bytes))) as { metadata: { uid?: string } }
      const uid = owner.metadata.uid ?? (JSON.parse((await api(t, 'GET', `/api/v1/namespaces/${NS.owned}/configmaps/owner`)).body) as { metadata: { uid: string } }).metadata.uid
      const body = JSON.parse(configMapBody('template', bytes)) as { metadata: Record<string, unknown> }
      body.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid }]
      const template = await ensure(t, 'POST', `/api/v1/namespaces/${NS.owned}/configmaps`, JSON.stringify(body))
      const owned = Math.ceil(flags.memoryObjects / 2)
      const { rss, samples, size } = await fillAndMeasure(NS.owned, template, (await countConfigMaps(t)) + owned)
      raw.owned = { rssBytes: rss, rssSamples: samples, owned, ...size }
      rows.push({ workload: `memory ${size.objects} objects, ${owned} with an owner`, figure: `RSS ${mib(rss)}`, ceiling: `JSON ${mib(size.bytes)}`, ratio: rss / size.bytes, target: '<= 3x', pass: rss <= 3 * size.bytes })
    })

    // A server and database of their own: what earlier workloads left behind counts in neither figure.
    if (runs('rest') || runs('startup')) {
      await server.stop()
      server = undefined
      await attempt(runs('rest') ? 'rest' : 'startup', () => runAtScale({ flags, workDir, rows, notes, raw, log, profDir }, { rest: runs('rest'), startup: runs('startup') }))
    }
  } finally {
    await server?.stop()
    await db.embedded?.stop().catch((err: unknown) => log(`stopping PostgreSQL failed: ${(err as Error).message}`))
    await db.drop().catch((err: unknown) => log(`dropping the benchmark database failed: ${(err as Error).message}`))
    if (!flags.keep) rmSync(workDir, { recursive: true, force: true })
  }

  const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', memoryGiB: round(totalmem() / 1024 ** 3, 1), node: process.version }
  printTable(rows, notes, machine)
  const file = join(RESULTS_DIR, `${stamp}.json`)
  const doc = JSON.stringify({ date: new Date().toISOString(), machine, flags: { ...flags, databaseUrl: flags.databaseUrl === undefined ? undefined : '(set)' }, rows, notes, raw }, null, 2)
  writeFileSync(file, doc)
  writeFileSync(join(RESULTS_DIR, 'latest.json.tmp'), doc)
  renameSync(join(RESULTS_DIR, 'latest.json.tmp'), join(RESULTS_DIR, 'latest.json'))
  log(`results: ${file}`)
  if (profDir !== undefined) log(`CPU profiles: ${readdirSync(profDir).map(f => join(profDir, f)).join(', ')} (summarise with: npx tsx bench/profile.ts <file>)`)
}

/** Runs `fn` against a bare Fastify HTTPS server with the API server's TLS setup. */
async function withBareFastify<T> (tls: RunningServer['tls'], bodyFile: string, fn: (origin: string, pid: number) => Promise<T>): Promise<T> {
  const child = spawn(process.execPath, [...TS_NODE_ARGS, 'bench/ceilings/fastify-route.ts', JSON.stringify({ ...tls, bodyFile })], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString()
        if (out.includes('\n')) resolve(Number(out.trim()))
      })
      child.on('exit', code => reject(new Error(`the bare Fastify server exited with ${code}`)))
    })
    return await fn(`https://127.0.0.1:${port}`, child.pid!)
  } finally {
    const exited = new Promise(resolve => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`)
  process.exit(1)
})
