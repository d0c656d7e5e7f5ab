// The create ceiling on PostgreSQL: single-row INSERT plus NOTIFY transactions from a pool of
// `concurrency` connections, each transaction one statement (one round trip, one commit).
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { configMapBody, latencySummary } from '../payload.js'
import { processWaitMs } from '../cpu.js'

interface Options { url: string, concurrency: number, warmupMs: number, durationMs: number, payloadBytes: number }

const opts = JSON.parse(process.argv[2]!) as Options
const TABLE = 'bench_raw_inserts'
const pool = new pg.Pool({ connectionString: opts.url, max: opts.concurrency })
await pool.query(`DROP TABLE IF EXISTS ${TABLE}; CREATE TABLE ${TABLE} (key text COLLATE "C" PRIMARY KEY, value text NOT NULL)`)
// Every connection opened before the clock starts, as the HTTP generator's are by its first requests.
const clients = await Promise.all(Array.from({ length: opts.concurrency }, () => pool.connect()))
for (const c of clients) c.release()

const latencies: number[] = []
let cpuAtStart = process.cpuUsage()
let waitAtStart = processWaitMs('self')
setTimeout(() => {
  cpuAtStart = process.cpuUsage()
  waitAtStart = processWaitMs('self')
}, opts.warmupMs)
const start = performance.now() + opts.warmupMs
const deadline = start + opts.durationMs
await Promise.all(Array.from({ length: opts.concurrency }, async (_, n) => {
  for (let i = 0; performance.now() < deadline; i++) {
    const name = `raw-${n}-${i}`
    const t0 = performance.now()
    await pool.query(
      `WITH i AS (INSERT INTO ${TABLE} (key, value) VALUES ($1, $2) RETURNING 1) SELECT pg_notify('bench_raw', $1) FROM i`,
      [`/registry/configmaps/bench/${name}`, configMapBody(name, opts.payloadBytes)])
    if (t0 >= start) latencies.push(performance.now() - t0)
  }
}))
const elapsedMs = performance.now() - start
const cpu = process.cpuUsage(cpuAtStart)
await pool.query(`DROP TABLE ${TABLE}`)
await pool.end()
process.stdout.write(JSON.stringify({ requests: latencies.length, perSecond: latencies.length / (elapsedMs / 1000), elapsedMs, cpuMs: (cpu.user + cpu.system) / 1000, waitMs: processWaitMs('self') - waitAtStart, latency: latencySummary(latencies) }) + '\n')
