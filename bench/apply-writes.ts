// What one write costs PostgreSQL inside the store's group commit: batches of creates through
// apply_writes on one connection of a fresh database, with nothing else running. Reports the
// backend's CPU and the WAL bytes per write, so a schema or function change can be weighed
// alone, apart from the HTTP path (bench/inject.ts) and the whole server (npm run bench).
//   npx tsx bench/apply-writes.ts [batches] [batch size] [payload bytes]   (DATABASE_URL or the local PostgreSQL)
import { readFileSync } from 'node:fs'
import pg from 'pg'
import { SCHEMA_SQL } from '../storage/schema.js'
import { configMapBody } from './payload.js'
import { scratchDatabase } from './scratch-database.js'

const [batchesArg = '2000', sizeArg = '30', payloadArg = '1024'] = process.argv.slice(2)
const batches = Number(batchesArg)
const size = Number(sizeArg)
const db = await scratchDatabase('apply_writes')
const client = new pg.Client({ connectionString: db.url })

try {
  await client.connect()
  await client.query(SCHEMA_SQL)
  const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
  /** The backend's user and system CPU so far, in ms (clock ticks of 10 ms). */
  const backendCpuMs = (): number => {
    const fields = readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  }
  const walLsn = async (): Promise<string> => (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0]!.lsn

  let next = 0
  // The stored form as the store sends it: the revision is a placeholder apply_writes fills in.
  const value = (name: string): string => {
    const obj = JSON.parse(configMapBody(name, Number(payloadArg)))
    obj.metadata.resourceVersion = '\u0001'
    return JSON.stringify(obj)
  }
  const text = `SELECT code, rev FROM apply_writes($1::text[], $2::text[], ARRAY[${Array.from({ length: size }, (_, i) => `$${i + 5}`).join(',')}]::text[], $3::bigint[], $4::text)`
  const batch = async (): Promise<void> => {
    const keys = Array.from({ length: size }, () => `/registry/configmaps/default/c-${next++}`)
    await client.query({ name: 'apply-writes', text, values: [keys.map(() => 'create'), keys, keys.map(() => null), 'bench', ...keys.map(k => value(k))] })
  }

  for (let i = 0; i < Math.min(300, batches); i++) await batch() // plans cached, tables past empty
  const [cpu0, wal0, t0] = [backendCpuMs(), await walLsn(), performance.now()]
  for (let i = 0; i < batches; i++) await batch()
  const [cpu1, wal1, t1] = [backendCpuMs(), await walLsn(), performance.now()]
  const walBytes = Number((await client.query<{ d: string }>('SELECT pg_wal_lsn_diff($1, $2) AS d', [wal1, wal0])).rows[0]!.d)
  const writes = batches * size
  process.stdout.write(`${writes} creates in batches of ${size}: backend CPU ${((cpu1 - cpu0) * 1000 / writes).toFixed(1)} µs/write, ` +
    `WAL ${(walBytes / writes).toFixed(0)} bytes/write, wall ${((t1 - t0) * 1000 / writes).toFixed(1)} µs/write\n`)
} finally {
  await client.end().catch(() => {})
  await db.drop()
}
