import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import pg from 'pg'
import { type LogEvent, StorageError, type StoredObject } from '../../storage/interface.js'
import { createPostgresStorage } from '../../storage/postgres.js'
import { storageContract } from './contract.js'
import { PREFIX, configMap, eventually, key, testDatabase } from './fixtures.js'
import { NOTIFY_CHANNEL } from '../../resources/naming.js'

storageContract('postgres', async (t) => (await testDatabase(t)).open())

/** Collects what a subscription delivers and checks each batch is in order and after the last. */
function collector (): { events: LogEvent[], positions: number[], onEvents: (events: LogEvent[], revision: number) => void } {
  const c = {
    events: [] as LogEvent[],
    positions: [] as number[],
    onEvents (events: LogEvent[], revision: number) {
      for (const e of events) {
        assert.ok(e.revision > (c.positions.at(-1) ?? -1), `event ${e.revision} after position ${c.positions.at(-1)}`)
        assert.ok(e.revision <= revision)
      }
      c.events.push(...events)
      c.positions.push(revision)
    }
  }
  return c
}

/** An extra connection; the database is dropped (forcing it out) before after-hooks end it. */
async function connect (t: { after (fn: () => unknown): void }, url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  t.after(() => client.end())
  return client
}

const revisionsOf = (events: LogEvent[]): number[] => events.map(e => e.revision)
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe('postgres storage', () => {
  it('keeps the newest minRetain revisions out of compaction', async (t) => {
    const s = await (await testDatabase(t)).open({ minRetain: 3 })
    for (let i = 0; i < 5; i++) await s.write({ type: 'create', key: key('ns', `o${i}`), value: configMap('ns', `o${i}`) })
    assert.equal(await s.compact(5), 2)
    assert.equal(await s.compactedRevision(), 2)
  })

  it('answers Unavailable when the database cannot be reached', async () => {
    await assert.rejects(createPostgresStorage({ url: 'postgres://postgres@127.0.0.1:1/nothing' }),
      (err: unknown) => err instanceof StorageError && err.code === 'Unavailable')
  })

  it('fails every op of a batch whose connection dies with Unavailable, and recovers', async (t) => {
    const db = await testDatabase(t)
    const s = await db.open()
    const admin = await connect(t, db.url)
    // Hold the counter row so the batch is in flight when its backend is killed. (Another
    // connection watches: pg_stat_activity is frozen for the length of a transaction.)
    const locker = await connect(t, db.url)
    await locker.query('BEGIN')
    await locker.query('SELECT value FROM revision FOR UPDATE')
    let next: Promise<Array<PromiseSettledResult<unknown>>>
    try {
      const doomed = Promise.allSettled(Array.from({ length: 5 }, (_, i) => s.write({ type: 'create', key: key('ns', `d${i}`), value: configMap('ns', `d${i}`) })))
      let pid: number | undefined
      await eventually(async () => {
        pid = (await admin.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query ILIKE '%apply_writes%'")).rows[0]?.pid
        return pid !== undefined
      }, 5000, 'the blocked batch')
      next = Promise.allSettled(Array.from({ length: 3 }, (_, i) => s.write({ type: 'create', key: key('ns', `n${i}`), value: configMap('ns', `n${i}`) })))
      await admin.query('SELECT pg_terminate_backend($1)', [pid])
      for (const r of await doomed) {
        assert.equal(r.status, 'rejected')
        assert.ok(r.status === 'rejected' && r.reason instanceof StorageError && r.reason.code === 'Unavailable', String((r as PromiseRejectedResult).reason))
      }
    } finally {
      // Released whatever happens, or closing the store would wait for the blocked batch forever.
      await locker.query('ROLLBACK')
    }
    assert.deepEqual((await next).map(r => r.status === 'fulfilled' ? (r.value as StoredObject).revision : r.reason), [1, 2, 3])
  })

  it('drops the CHECK on event types from a log made before it went, and keeps its events', async (t) => {
    const db = await testDatabase(t)
    const client = await connect(t, db.url)
    await client.query(`CREATE TABLE events (revision bigint PRIMARY KEY, key text COLLATE "C" NOT NULL,
      type text NOT NULL CHECK (type IN ('ADDED', 'MODIFIED', 'DELETED')), value text NOT NULL)`)
    const constraints = async (): Promise<string[]> => (await client.query<{ conname: string }>(
      "SELECT conname FROM pg_constraint WHERE conrelid = 'events'::regclass AND contype = 'c'")).rows.map(r => r.conname)
    assert.deepEqual(await constraints(), ['events_type_check'])
    const s = await db.open()
    assert.deepEqual(await constraints(), [])
    await s.write({ type: 'create', key: key('ns', 'a'), value: configMap('ns', 'a') })
    await s.close()
    // Applying the schema again finds nothing to drop and leaves the log as it was.
    await db.open()
    assert.deepEqual((await client.query('SELECT revision, type FROM events')).rows, [{ revision: '1', type: 'ADDED' }])
  })

  it('holds no connection once close() resolves, so a database stopped right after ends none of them', async (t) => {
    const db = await testDatabase(t)
    const name = `close-${process.pid}-${Date.now()}`
    const url = new URL(db.url)
    url.searchParams.set('application_name', name)
    const s = await createPostgresStorage({ url: url.toString(), minRetain: 0 })
    // Reads in parallel open several pooled connections; a write and a subscription use their own.
    await Promise.all(Array.from({ length: 6 }, (_, i) => s.get(key('ns', `x${i}`))))
    await s.write({ type: 'create', key: key('ns', 'a'), value: configMap('ns', 'a') })
    const stop = s.subscribe(0, () => {})
    const admin = await connect(t, db.url)
    const open = async (): Promise<number> => Number((await admin.query('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [name])).rows[0].n)
    assert.ok(await open() > 1)
    stop()
    await s.close()
    assert.equal(await open(), 0)
  })

  it('uses the index for prefix ranges', async (t) => {
    const db = await testDatabase(t)
    await db.open()
    const client = await connect(t, db.url)
    await client.query('SET enable_seqscan = off')
    const { rows } = await client.query(
      `EXPLAIN SELECT key FROM objects WHERE key >= $1 AND key > '' AND key < $2 ORDER BY key`, [`${PREFIX}a/`, `${PREFIX}a0`])
    assert.match(rows.map(r => r['QUERY PLAN']).join('\n'), /Index (Only )?Scan (using|on) objects_pkey[\s\S]*Index Cond: \(\(key >= /)
  })
})

describe('log subscription', () => {
  it('delivers every event once, in order, across a dropped LISTEN connection', async (t) => {
    const db = await testDatabase(t)
    // A poll this slow never fires during the test: delivery rests on LISTEN and reconnection.
    // The writes come from another Storage, as another replica's: a Storage's own commits reach
    // its reader without the log.
    const s = await db.open({ pollIntervalMs: 60_000 })
    const writer = await db.open()
    const got = collector()
    const unsubscribe = s.subscribe(0, got.onEvents)
    t.after(unsubscribe)
    const admin = await connect(t, db.url)
    const listeners = async (): Promise<number[]> => (await admin.query(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'")).rows.map(r => r.pid)

    await eventually(async () => (await listeners()).length === 1, 5000, 'the listener')
    for (let i = 1; i <= 5; i++) await writer.write({ type: 'create', key: key('ns', `o${i}`), value: configMap('ns', `o${i}`) })
    await eventually(() => got.events.length === 5, 5000, 'the first five events')

    const [old] = await listeners()
    await admin.query('SELECT pg_terminate_backend($1)', [old])
    // Writes while the listener is down are read by position once it is back.
    for (let i = 6; i <= 8; i++) await writer.write({ type: 'create', key: key('ns', `o${i}`), value: configMap('ns', `o${i}`) })
    await eventually(async () => { const now = await listeners(); return now.length === 1 && now[0] !== old }, 5000, 'a new listener')
    for (let i = 9; i <= 10; i++) await writer.write({ type: 'create', key: key('ns', `o${i}`), value: configMap('ns', `o${i}`) })
    await eventually(() => got.events.length >= 10, 5000, 'all ten events')
    await new Promise(resolve => setTimeout(resolve, 100))
    assert.deepEqual(revisionsOf(got.events), range(1, 10))
  })

  it('shares the log between two Storage instances on one database', async (t) => {
    const db = await testDatabase(t)
    const s1 = await db.open()
    const s2 = await db.open()
    const got1 = collector()
    const got2 = collector()
    t.after(s1.subscribe(0, got1.onEvents))
    t.after(s2.subscribe(0, got2.onEvents))
    const writes = []
    for (let i = 0; i < 20; i++) {
      const s = i % 2 === 0 ? s1 : s2
      writes.push(s.write({ type: 'create', key: key('ns', `o${i}`), value: configMap('ns', `o${i}`) }))
    }
    await Promise.all(writes)
    await eventually(() => got1.events.length === 20 && got2.events.length === 20, 5000, 'both readers')
    assert.deepEqual(revisionsOf(got1.events), range(1, 20))
    assert.deepEqual(got2.events, got1.events)
    assert.deepEqual(new Set(got1.events.map(e => e.key)).size, 20)
  })

  it('catches a late subscriber up from its own position, then joins it to the live log', async (t) => {
    const s = await (await testDatabase(t)).open()
    const first = collector()
    t.after(s.subscribe(0, first.onEvents))
    for (let i = 1; i <= 5; i++) await s.write({ type: 'create', key: key('ns', `o${i}`), value: configMap('ns', `o${i}`) })
    await eventually(() => first.events.length === 5, 5000, 'the first subscriber')
    const late = collector()
    t.after(s.subscribe(2, late.onEvents))
    const ahead = collector()
    t.after(s.subscribe(7, ahead.onEvents))
    for (let i = 6; i <= 9; i++) await s.write({ type: 'create', key: key('ns', `o${i}`), value: configMap('ns', `o${i}`) })
    await eventually(() => late.events.length === 7 && first.events.length === 9, 5000, 'the late subscriber')
    assert.deepEqual(revisionsOf(late.events), range(3, 9))
    assert.deepEqual(revisionsOf(ahead.events), [8, 9])
    assert.deepEqual(revisionsOf(first.events), range(1, 9))
  })

  it('reports Compacted to a subscriber whose position was compacted away', async (t) => {
    const s = await (await testDatabase(t)).open()
    for (let i = 1; i <= 4; i++) await s.write({ type: 'create', key: key('ns', `o${i}`), value: configMap('ns', `o${i}`) })
    await s.compact(3)
    let error: unknown
    const got = collector()
    t.after(s.subscribe(1, got.onEvents, (err) => { error = err }))
    await eventually(() => error !== undefined, 5000, 'the error')
    assert.ok(error instanceof StorageError && error.code === 'Compacted' && error.revision === 3)
    assert.deepEqual(got.events, [])
  })
})

describe('group commit', () => {
  it('commits concurrent writes in shared transactions with one notification each', async (t) => {
    const db = await testDatabase(t)
    const s = await db.open()
    const listener = new pg.Client({ connectionString: db.url })
    // The database is dropped (connections forced out) when the test ends.
    listener.on('error', () => {})
    await listener.connect()
    t.after(() => listener.end())
    const notified: number[] = []
    listener.on('notification', (n) => notified.push(Number(n.payload)))
    await listener.query(`LISTEN ${listener.escapeIdentifier(NOTIFY_CHANNEL)}`)
    const written = await Promise.all(Array.from({ length: 100 }, (_, i) =>
      s.write({ type: 'create', key: key('gc', `o${i}`), value: configMap('gc', `o${i}`) })))
    assert.deepEqual(written.map(w => w.revision), range(1, 100), 'revisions in issue order, no gaps')
    await eventually(() => notified.at(-1) === 100, 5000, 'the last notification')
    assert.ok(notified.length < 100, `${notified.length} notifications for 100 writes: batches formed`)
    assert.deepEqual([...notified].sort((a, b) => a - b), notified, 'notifications in commit order')
    // A batch whose every write fails allocates nothing and notifies nothing.
    const before = notified.length
    await Promise.allSettled([0, 1, 2].map(i => s.write({ type: 'create', key: key('gc', `o${i}`), value: configMap('gc', `o${i}`) })))
    await s.write({ type: 'create', key: key('gc', 'last'), value: configMap('gc', 'last') })
    await eventually(() => notified.at(-1) === 101, 5000, 'the notification of the last write')
    assert.equal(notified.length, before + 1)
  })

  it('fails a write PostgreSQL refuses alone, not its batch-mates', async (t) => {
    const s = await (await testDatabase(t)).open()
    const results = await Promise.allSettled([
      s.write({ type: 'create', key: key('gc', 'a'), value: configMap('gc', 'a') }),
      s.write({ type: 'create', key: key('gc', 'bad\u0000key'), value: configMap('gc', 'bad') }),
      s.write({ type: 'create', key: key('gc', 'b'), value: configMap('gc', 'b') })
    ])
    assert.equal(results[0].status, 'fulfilled')
    assert.equal(results[1].status, 'rejected')
    assert.equal(results[2].status, 'fulfilled')
    const page = await s.list({ prefix: key('gc', '') })
    assert.deepEqual(page.items.map(i => i.key), [key('gc', 'a'), key('gc', 'b')])
  })

  it('delivers every event of concurrent batches to a subscriber, in order', async (t) => {
    const s = await (await testDatabase(t)).open()
    const c = collector()
    const stop = s.subscribe(0, c.onEvents)
    t.after(stop)
    const writes: Array<Promise<unknown>> = []
    for (let i = 0; i < 300; i++) {
      writes.push(s.write({ type: 'create', key: key('gc', `e${i}`), value: configMap('gc', `e${i}`) }))
      if (i % 50 === 0) await new Promise(resolve => setImmediate(resolve))
    }
    await Promise.all(writes)
    await eventually(() => c.events.length === 300, 5000, 'all 300 events')
    assert.deepEqual(revisionsOf(c.events), range(1, 300))
  })
})
