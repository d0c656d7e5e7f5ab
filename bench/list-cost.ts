// The CPU of lists in process: a paged walk of every ConfigMap (`limit=500`) beside unpaged
// lists of the same objects, and the 1% label selector, through `fastify.inject` into the real
// app (no TLS, no load generator, no other process's scheduling), so the cost of a page beyond
// its share of the unpaged list shows plainly. `--profile` writes a V8 CPU profile of the walks
// alone (summarise it with bench/profile.ts).
//   npx tsx bench/list-cost.ts [objects] [walks] [--profile]   (DATABASE_URL or the local PostgreSQL)
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { constants, performance, PerformanceObserver } from 'node:perf_hooks'
import { configMapBody } from './payload.js'
import { fillConfigMaps } from './fill.js'
import { inProcessApp } from './in-process.js'

const args = process.argv.slice(2).filter(a => !a.startsWith('--'))
const profile = process.argv.includes('--profile')
const objects = Number(args[0] ?? 100_000)
const walks = Number(args[1] ?? 3)
const PER_NAMESPACE = 1000

const { app, db, headers } = await inProcessApp('listcost')
const get = async (url: string): Promise<string> => {
  const res = await app.inject({ method: 'GET', url, headers })
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`)
  return res.body
}
const post = async (url: string, payload: string): Promise<string> => {
  const res = await app.inject({ method: 'POST', url, headers, payload })
  if (res.statusCode >= 300 && res.statusCode !== 409) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`)
  return res.body
}

const nsOf = (n: number): string => `lc-${Math.floor(n / PER_NAMESPACE)}`
for (let i = 0; i * PER_NAMESPACE < objects; i++) await post('/api/v1/namespaces', JSON.stringify({ metadata: { name: nsOf(i * PER_NAMESPACE) } }))
const template = await post(`/api/v1/namespaces/${nsOf(0)}/configmaps`, configMapBody('template', 1024))
process.stdout.write(`filling ${objects} ConfigMaps\n`)
await fillConfigMaps(db.url, template, nsOf, 'p', objects - 1, n => ({ 'bench-shard': String(n % 100) }))
// A consistent list waits until the cache holds every write.
const total = (JSON.parse(await get('/api/v1/configmaps?limit=1')) as { metadata: { remainingItemCount: number } }).metadata.remainingItemCount + 1
process.stdout.write(`${total} ConfigMaps cached\n`)

/** Garbage collections seen so far: how many full (mark-compact) ones, and every collection's pause. */
const gcs = { major: 0, pauseMs: 0 }
new PerformanceObserver(list => {
  for (const e of list.getEntries()) {
    if ((e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcs.major++
    gcs.pauseMs += e.duration
  }
}).observe({ entryTypes: ['gc'] })
const gcSince = (before: { major: number, pauseMs: number }): string => `${gcs.major - before.major} full GCs, ${(gcs.pauseMs - before.pauseMs).toFixed(0)} ms of GC pauses`

const cpu = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** One walk: wall and CPU ms of its requests alone (the client's parse of each page's metadata not counted). */
async function walk (): Promise<{ ms: number, cpu: number, pages: number[] }> {
  let token: string | undefined
  let ms = 0
  let used = 0
  const pages: number[] = []
  do {
    const c0 = cpu()
    const t0 = performance.now()
    const body = await get(`/api/v1/configmaps?limit=500${token === undefined ? '' : `&continue=${encodeURIComponent(token)}`}`)
    const t = performance.now() - t0
    used += cpu() - c0
    ms += t
    pages.push(t)
    token = (JSON.parse(body.slice(0, body.indexOf(',"items":[')) + '}') as { metadata: { continue?: string } }).metadata.continue
  } while (token !== undefined)
  return { ms, cpu: used, pages }
}

async function timed (url: string, n: number): Promise<{ ms: number, cpu: number }> {
  const ms: number[] = []
  const used: number[] = []
  for (let i = 0; i < n; i++) {
    const c0 = cpu()
    const t0 = performance.now()
    await get(url)
    ms.push(performance.now() - t0)
    used.push(cpu() - c0)
  }
  return { ms: median(ms), cpu: median(used) }
}

await walk()
await timed('/api/v1/configmaps', 1)
const session = new Session()
if (profile) {
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
}
const w: Array<{ ms: number, cpu: number, pages: number[] }> = []
const g0 = { ...gcs }
for (let i = 0; i < walks; i++) w.push(await walk())
const walkGc = gcSince(g0)
if (profile) {
  const { profile: p } = await session.post('Profiler.stop')
  const file = `bench/results/list-cost-${Date.now()}.cpuprofile`
  writeFileSync(file, JSON.stringify(p))
  process.stdout.write(`profile of the walks: ${file}\n`)
}
const g1 = { ...gcs }
const unpaged = await timed('/api/v1/configmaps', walks)
const unpagedGc = gcSince(g1)
/** `n` timed requests of `url`, under a CPU profile written as `<name>` when --profile is given. */
async function profiled (name: string, url: string, n: number): Promise<{ ms: number, cpu: number }> {
  if (profile) await session.post('Profiler.start')
  const got = await timed(url, n)
  if (profile) {
    const { profile: p } = await session.post('Profiler.stop')
    const file = `bench/results/list-cost-${name}-${Date.now()}.cpuprofile`
    writeFileSync(file, JSON.stringify(p))
    process.stdout.write(`profile of the ${name} lists: ${file}\n`)
  }
  return got
}
// The first label-selector list builds the cache's label index: its time, and the longest the
// event loop was held meanwhile (what every other request waited at most).
let lastTick = performance.now()
let longestGap = 0
const ticker = setInterval(() => {
  const now = performance.now()
  longestGap = Math.max(longestGap, now - lastTick)
  lastTick = now
}, 1)
const firstSelector = await timed(`/api/v1/configmaps?labelSelector=${encodeURIComponent('bench-shard=3')}`, 1)
await new Promise(resolve => setTimeout(resolve, 20))
clearInterval(ticker)
process.stdout.write(`first 1% selector (builds the label index): ${firstSelector.ms.toFixed(0)} ms, CPU ${firstSelector.cpu.toFixed(0)} ms; event loop held at most ${longestGap.toFixed(1)} ms\n`)
const selector = await profiled('selector', `/api/v1/configmaps?labelSelector=${encodeURIComponent('bench-shard=7')}`, 200)
// A namespace's list beside JSON.stringify of its parsed items (the paged workload's ceiling).
const namespacePath = `/api/v1/namespaces/${nsOf(7 * PER_NAMESPACE)}/configmaps`
const namespaceDoc = JSON.parse(await get(namespacePath)) as { items: unknown[] }
const namespace = await profiled('namespace', namespacePath, 200)
const stringifyMs: number[] = []
for (let i = 0; i < 200; i++) {
  const t0 = performance.now()
  JSON.stringify(namespaceDoc)
  stringifyMs.push(performance.now() - t0)
}
const walkMs = median(w.map(x => x.ms))
const walkCpu = median(w.map(x => x.cpu))
const pageMs = median(w.flatMap(x => x.pages))
const pagesPerWalk = w[0]!.pages.length
process.stdout.write(`walk (${pagesPerWalk} pages): ${walkMs.toFixed(0)} ms, CPU ${walkCpu.toFixed(0)} ms; page p50 ${pageMs.toFixed(2)} ms\n`)
process.stdout.write(`unpaged: ${unpaged.ms.toFixed(0)} ms, CPU ${unpaged.cpu.toFixed(0)} ms; walk/unpaged ${(walkMs / unpaged.ms).toFixed(2)}x (CPU ${(walkCpu / unpaged.cpu).toFixed(2)}x)\n`)
process.stdout.write(`${walks} walks: ${walkGc}; ${walks} unpaged lists: ${unpagedGc}\n`)
process.stdout.write(`per page beyond its share of the unpaged list: ${((walkMs - unpaged.ms) / pagesPerWalk).toFixed(2)} ms\n`)
process.stdout.write(`1% selector: ${selector.ms.toFixed(2)} ms, CPU ${selector.cpu.toFixed(2)} ms\n`)
process.stdout.write(`namespace list (${namespaceDoc.items.length} items): ${namespace.ms.toFixed(2)} ms, CPU ${namespace.cpu.toFixed(2)} ms; stringify ${median(stringifyMs).toFixed(2)} ms\n`)
await app.close()
await db.drop()
