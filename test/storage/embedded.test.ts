import assert from 'node:assert/strict'
import { access, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import pg from 'pg'
import { startEmbeddedPostgres, StartStopped } from '../../storage/embedded.js'

async function query (url: string, text: string): Promise<pg.QueryResultRow[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text)).rows
  } finally {
    await client.end()
  }
}

describe('embedded postgres', () => {
  it('starts, stops and restarts on a new port keeping its data and password', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'embedded-test-'))
    t.after(() => rm(dir, { recursive: true, force: true }))

    const first = await startEmbeddedPostgres(dir)
    let running = first
    t.after(() => running.stop())
    assert.match(first.url, /^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/apiserver$/)
    const [{ encoding }] = await query(first.url, "SELECT pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = 'apiserver'")
    assert.equal(encoding, 'UTF8')
    await query(first.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')")
    assert.equal((await stat(join(dir, 'postgres.password'))).mode & 0o777, 0o600)
    await first.stop()
    await assert.rejects(query(first.url, 'SELECT 1'))

    const second = await startEmbeddedPostgres(dir)
    running = second
    assert.equal(new URL(second.url).password, new URL(first.url).password)
    assert.deepEqual(await query(second.url, 'SELECT v FROM kept'), [{ v: 'still here' }])
    await second.stop()
  })

  it('stops where it is when its signal says so: during initdb, while the server starts; the next start serves', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'embedded-stopped-'))
    t.after(() => rm(dir, { recursive: true, force: true }))
    const lockFile = join(dir, 'postgres', 'postmaster.pid')
    const absent = async (path: string): Promise<boolean> => await access(path).then(() => false, () => true)

    // During initdb: it removes what it wrote of the cluster.
    const duringInitdb = new AbortController()
    const first = startEmbeddedPostgres(dir, { signal: duringInitdb.signal, onLog: () => { duringInitdb.abort() } })
    await assert.rejects(first, StartStopped)
    assert.ok(await absent(lockFile))
    assert.ok(await absent(join(dir, 'postgres', 'PG_VERSION')), 'no half-made cluster')

    // Once the server is spawned, before it is ready: a fast shutdown, no lock left.
    const whileStarting = new AbortController()
    const second = startEmbeddedPostgres(dir, { signal: whileStarting.signal, onSpawn: () => { whileStarting.abort() } })
    await assert.rejects(second, StartStopped)
    assert.ok(await absent(lockFile))

    const third = await startEmbeddedPostgres(dir)
    t.after(() => third.stop())
    assert.deepEqual(await query(third.url, 'SELECT 1 AS one'), [{ one: 1 }])
    await third.stop()
    assert.ok(await absent(lockFile))
  })
})
