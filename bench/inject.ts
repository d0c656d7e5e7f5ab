// The request path's own CPU per request, without TLS, sockets or a load generator sharing the
// cores: `fastify.inject` into the real app (token authentication, Node,RBAC authorization, the
// admission chain, the store) on a fresh database. For profiling between commits, next to
// `npm run bench`, whose figures are what the targets are measured on.
//   npx tsx bench/inject.ts [create|create-custom|get|update] [requests] [concurrency]   (DATABASE_URL or the local PostgreSQL)
import { performance } from 'node:perf_hooks'
import { BENCH_CRD, configMapBody, customObjectBody } from './payload.js'
import { commandCpuMs } from './cpu.js'
import { inProcessApp } from './in-process.js'

const [workload = 'create', total = '20000', concurrency = '64'] = process.argv.slice(2)
const { app, db, headers } = await inProcessApp('inject')
const ns = 'bench-inject'
await app.inject({ method: 'POST', url: '/api/v1/namespaces', headers, payload: JSON.stringify({ metadata: { name: ns } }) })
const path = `/api/v1/namespaces/${ns}/configmaps`
await app.inject({ method: 'POST', url: path, headers, payload: configMapBody('hot', 1024) })

// Custom objects with a schema and two CEL rules (the bench's `custom` workload), once served.
const customPath = `/apis/${BENCH_CRD.spec.group}/v1/namespaces/${ns}/${BENCH_CRD.spec.names.plural}`
if (workload === 'create-custom') {
  await app.inject({ method: 'POST', url: '/apis/apiextensions.svc.io/v1/customresourcedefinitions', headers, payload: JSON.stringify(BENCH_CRD) })
  for (let tries = 0; (await app.inject({ method: 'GET', url: customPath, headers })).statusCode !== 200; tries++) {
    if (tries === 100) throw new Error('the bench CRD was never served')
    await new Promise(resolve => setTimeout(resolve, 100))
  }
}

const request = (i: number): Promise<{ statusCode: number }> => {
  if (workload === 'create-custom') return app.inject({ method: 'POST', url: customPath, headers, payload: customObjectBody(`w-${i}`, 1024) })
  if (workload === 'get') return app.inject({ method: 'GET', url: `${path}/hot`, headers })
  if (workload === 'update') return app.inject({ method: 'PUT', url: `${path}/hot`, headers, payload: configMapBody('hot', 1024, { n: String(i) }) })
  return app.inject({ method: 'POST', url: path, headers, payload: configMapBody(`c-${i}`, 1024) })
}

async function run (from: number, count: number): Promise<void> {
  let next = from
  await Promise.all(Array.from({ length: Number(concurrency) }, async () => {
    while (next < from + count) {
      const res = await request(next++)
      if (res.statusCode >= 300 && res.statusCode !== 409) throw new Error(`status ${res.statusCode}`)
    }
  }))
}

/** Every PostgreSQL process's CPU ms so far (backends that exit meanwhile are not counted). */
function postgresCpuMs (): number {
  let ms = 0
  for (const v of commandCpuMs('postgres').values()) ms += v
  return ms
}
/** Committed transactions in the benchmark's database: writes per transaction is the group commit's batch size. */
async function commits (): Promise<number> {
  return Number((await db.admin.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [db.name])).rows[0]!.n)
}

await run(0, 2000) // warm-up: JIT, caches, connections
const n = Number(total)
const commits0 = await commits()
const pg0 = postgresCpuMs()
const cpu0 = process.cpuUsage()
const t0 = performance.now()
await run(2000, n)
const wall = performance.now() - t0
const cpu = process.cpuUsage(cpu0)
const pgMs = postgresCpuMs() - pg0
const transactions = await commits() - commits0
process.stdout.write(`${workload}: ${n} requests, ${(n / (wall / 1000)).toFixed(0)}/s, CPU ${((cpu.user + cpu.system) / n).toFixed(1)} µs/request (user ${(cpu.user / n).toFixed(1)}, system ${(cpu.system / n).toFixed(1)}); ` +
  `PostgreSQL ${(pgMs * 1000 / n).toFixed(1)} µs/request, ${(n / Math.max(1, transactions)).toFixed(1)} requests per transaction\n`)
await app.close()
await db.drop()
