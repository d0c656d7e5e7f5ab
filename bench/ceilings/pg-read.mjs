// The start-up ceiling: what any server on this data directory must do before it can answer
// from memory, and nothing else: start the embedded PostgreSQL, connect, read every stored
// object. Plain JavaScript on plain `node` (as the server runs from dist/), so neither pays a
// compiler's start-up. Prints { rows, bytes, readAt } (readAt: the wall clock once read).
//   node bench/ceilings/pg-read.mjs <data-dir>
import pg from 'pg'
import { startEmbeddedPostgres } from '../../dist/storage/embedded.js'

const db = await startEmbeddedPostgres(process.argv[2])
let result
try {
  const client = new pg.Client({ connectionString: db.url })
  await client.connect()
  const { rows } = await client.query('SELECT key, revision, value FROM objects ORDER BY key')
  const readAt = Date.now()
  let bytes = 0
  for (const r of rows) bytes += r.value.length
  result = { rows: rows.length, bytes, readAt }
  await client.end()
} finally {
  await db.stop()
}
process.stdout.write(JSON.stringify(result) + '\n')
