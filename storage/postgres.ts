// The PostgreSQL Storage: an MVCC revision log (events) beside the current state (objects),
// with one counter row whose lock orders every write.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { NOTIFY_CHANNEL } from '../resources/naming.js'
import { createBatcher } from './batcher.js'
import { coalesce } from './coalesce.js'
import {
  type ApiObject, type EventType, type ListPage, type LogEvent, type RangeOptions, type Storage,
  StorageError, type StoredObject, type WriteOp
} from './interface.js'
import { LogReader, type LogSource } from './log-reader.js'
import { REVISION_PLACEHOLDER, SCHEMA_LOCK_ID, SCHEMA_SQL } from './schema.js'

export interface PostgresStorageOptions {
  url: string
  /** Connections for reads and write batches (the LISTEN connection is extra). Default 10. */
  poolSize?: number
  /** How often the log reader polls when no notification arrives. Default 1000. */
  pollIntervalMs?: number
  /** compact() never drops the newest this-many revisions. Default 1000. */
  minRetain?: number
  logger?: { warn (obj: object, msg: string): void }
  /** Told each statement's latency and each write batch's size (the server's metrics). */
  observer?: StorageObserver
}

export interface StorageObserver {
  query (operation: string, seconds: number): void
  writeBatch (size: number): void
}

const INT8_OID = 20
/** The log event each write makes (apply_writes writes the same types). */
const EVENT_TYPES: Record<WriteOp['type'], EventType> = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' }
const WRITE_TYPES = new Set(Object.keys(EVENT_TYPES))
const MAX_BATCH_OPS = 256
const MAX_BATCH_BYTES = 8 << 20
const LOG_BATCH = 1000
/**
 * Write batches in flight at once. A second one goes out when a full batch is waiting, or as
 * many writes as the batch in flight holds and at least WRITE_EVEN_FROM (the batcher's rule): it
 * waits in the database on the revision lock rather than in this process, so it starts the
 * moment the one before commits, not once this process has read that one's answer (under load
 * the event loop reads it late). Below that, the writes wait here for the batch in flight and go
 * together: a transaction costs PostgreSQL some 250 µs of CPU whatever it holds, and this
 * process a query's worth of work. Batches commit one at a time, in revision order.
 */
const WRITE_PIPELINE = 2
const WRITE_EVEN_FROM = 16
const COMPACT_BATCH_REVISIONS = 10_000
/** Unguessable, and JSON-escaped on the way out (it starts with a control character). */
const RV_SENTINEL = `\u0001${randomBytes(16).toString('hex')}`
const RV_SENTINEL_JSON = JSON.stringify(RV_SENTINEL)

// pg hands int8 over as a string; revisions and counts stay below 2^53, so parse them here once.
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser
}

/** Connects, applies the schema, and returns the Storage. Rejects with Unavailable when the database cannot be reached. */
export async function createPostgresStorage (opts: PostgresStorageOptions): Promise<Storage> {
  const minRetain = opts.minRetain ?? 1000
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize ?? 10,
    types,
    connectionTimeoutMillis: 5000,
    keepAlive: true
  })
  // An idle client whose backend dies emits here; the next query reports it instead.
  pool.on('error', (err) => opts.logger?.warn({ err }, 'idle database connection failed'))
  // Write batches and log reads have a connection each, so neither queues behind the reads of
  // a busy pool: a batch waiting for a connection holds every write in it back, and a log read
  // waiting holds back every watch.
  const lane = (max: number): pg.Pool => {
    const p = new pg.Pool({ connectionString: opts.url, max, types, connectionTimeoutMillis: 5000, keepAlive: true })
    p.on('error', (err) => opts.logger?.warn({ err }, 'idle database connection failed'))
    return p
  }
  const writePool = lane(WRITE_PIPELINE)
  const logPool = lane(1)

  const observer = opts.observer
  /**
   * `operation`: what the statement is for, as the latency metric labels it. `name`: a statement
   * run on every request or log batch, parsed and planned once per connection.
   */
  async function query<R extends pg.QueryResultRow> (operation: string, on: pg.Pool, text: string, values?: unknown[], name?: string): Promise<R[]> {
    const start = observer === undefined ? 0 : performance.now()
    try {
      return (await on.query<R>(name === undefined ? { text, values } : { name, text, values })).rows
    } catch (err) {
      throw translate(err)
    } finally {
      if (observer !== undefined) observer.query(operation, (performance.now() - start) / 1000)
    }
  }

  try {
    await query('schema', pool, `BEGIN; SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_ID}); ${SCHEMA_SQL}; COMMIT`)
    // Connected now, so the first write and the first log read pay no connection set-up.
    await Promise.all([query('connect', writePool, 'SELECT 1'), query('connect', writePool, 'SELECT 1'), query('connect', logPool, 'SELECT 1')])
  } catch (err) {
    await Promise.all([endPool(pool), endPool(writePool), endPool(logPool)])
    throw err
  }

  const batcher = createBatcher<PendingWrite, StoredObject>(runBatch, {
    maxItems: MAX_BATCH_OPS,
    maxWeight: MAX_BATCH_BYTES,
    weight: w => w.json.length,
    concurrency: WRITE_PIPELINE,
    evenFrom: WRITE_EVEN_FROM
  })

  async function runBatch (batch: PendingWrite[]): Promise<Array<StoredObject | Error>> {
    observer?.writeBatch(batch.length)
    const offered = reader.expectOffer()
    try {
      return await applyWrites(batch)
    } catch (err) {
      // A malformed op (say, a key PostgreSQL refuses) must fail alone, not its batch-mates.
      if (isConnectionError(err) || batch.length === 1) throw translate(err)
      const results: Array<StoredObject | Error> = []
      for (const w of batch) {
        try {
          results.push(...await applyWrites([w]))
        } catch (e) {
          results.push(translate(e) as Error)
        }
      }
      return results
    } finally {
      offered()
    }
  }

  async function applyWrites (batch: PendingWrite[]): Promise<Array<StoredObject | Error>> {
    // Each value is a parameter of its own: as one text[] literal, every quote in the JSON
    // would be escaped on the way out and unescaped on the way in.
    // Prepared once per connection and batch size: the statement's text depends on nothing else.
    const start = observer === undefined ? 0 : performance.now()
    const { rows } = await writePool.query<{ code: string, rev: number }>({
      name: `apply-writes-${batch.length}`,
      text: `SELECT code, rev FROM apply_writes($1::text[], $2::text[], ARRAY[${batch.map((_, i) => `$${i + 5}`).join(',')}]::text[], $3::bigint[], $4::text)`,
      values: [batch.map(w => w.op.type), batch.map(w => w.op.key),
        batch.map(w => w.op.type === 'create' ? null : w.op.expectRevision), NOTIFY_CHANNEL, ...batch.map(w => w.json)]
    })
    observer?.query('apply-writes', (performance.now() - start) / 1000)
    const committed: LogEvent[] = []
    const results = batch.map((w, i) => {
      const { code, rev } = rows[i]
      if (code === 'ok') {
        const json = w.json.replace(REVISION_PLACEHOLDER, String(rev))
        committed.push({ type: EVENT_TYPES[w.op.type], key: w.op.key, revision: rev, json })
        return { key: w.op.key, revision: rev, json }
      }
      return preconditionError(code, w.op, rev)
    })
    // The log reader gets its own process's commits from here rather than reading them back.
    reader.offer(committed)
    return results
  }

  const source: LogSource = {
    async readAfter (after, until, limit) {
      const rows = await query<EventRow & { compacted: number }>('read-log', logPool,
        `SELECT c.revision AS compacted, e.revision, e.key, e.type, e.value
         FROM compaction c LEFT JOIN LATERAL (
           SELECT revision, key, type, value FROM events
           WHERE revision > $1 AND revision <= $2 ORDER BY revision LIMIT $3
         ) e ON true ORDER BY e.revision`,
        [after, until ?? Number.MAX_SAFE_INTEGER, limit], 'read-log-after')
      sawCompacted(rows[0].compacted)
      return { compacted: rows[0].compacted, events: toEvents(rows) }
    },
    async listen (onNotify, onLost) {
      const client = new pg.Client({ connectionString: opts.url, types, connectionTimeoutMillis: 5000, keepAlive: true })
      // pg emits 'end' (and may emit 'error') for a connection that fails while connecting, on
      // top of rejecting connect(): a loss before the LISTEN is in place is this call's failure,
      // reported once, by rejecting.
      let listening = false
      let lostEarly: unknown
      const lose = (err: unknown): void => { if (listening) onLost(err); else lostEarly ??= err }
      client.on('error', lose)
      client.on('end', () => lose(new Error('listener connection ended')))
      try {
        await client.connect()
        await client.query(`LISTEN ${client.escapeIdentifier(NOTIFY_CHANNEL)}`)
        if (lostEarly !== undefined) throw lostEarly
        listening = true
      } catch (err) {
        client.removeAllListeners()
        client.on('error', () => {})
        await client.end().catch(() => {})
        throw translate(err)
      }
      client.on('notification', (message) => {
        const revision = Number(message.payload)
        onNotify(message.payload !== undefined && message.payload !== '' && Number.isSafeInteger(revision) ? revision : undefined)
      })
      return {
        async close () {
          client.removeAllListeners()
          client.on('error', () => {})
          await client.end()
        }
      }
    }
  }
  // Consistent reads ask for the current revision at every request; concurrent askers share
  // one query that starts after they asked, so each answer is still as fresh as its own query.
  const readRevision = coalesce(async () => (await query<{ value: number }>('current-revision', pool, 'SELECT value FROM revision', [], 'current-revision'))[0].value)
  const reader = new LogReader(source, { pollIntervalMs: opts.pollIntervalMs ?? 1000, batchSize: LOG_BATCH, logger: opts.logger })
  let closed = false
  /** The highest compacted revision seen by this process (knownCompactedRevision). */
  let compactedSeen = 0
  const sawCompacted = (revision: number): void => { if (revision > compactedSeen) compactedSeen = revision }

  return {
    async get (key) {
      const rows = await query<{ revision: number, value: string }>('get', pool,
        'SELECT revision, value FROM objects WHERE key = $1', [key])
      return rows.length === 0 ? undefined : { key, revision: rows[0].revision, json: rows[0].value }
    },

    list (range) {
      return range.revision === undefined ? listNewest(range) : listAt(range, range.revision)
    },

    scan,

    write (op) {
      if (closed) return Promise.reject(new StorageError('Unavailable', op.key, 'storage is closed'))
      let json: string
      try {
        if (!WRITE_TYPES.has(op.type) || (op.type !== 'create' && !Number.isSafeInteger(op.expectRevision))) {
          throw new TypeError(`invalid write of ${op.key}: type ${op.type}, expectRevision ${(op as { expectRevision?: unknown }).expectRevision}`)
        }
        json = serialise(op.value)
      } catch (err) {
        return Promise.reject(err)
      }
      return batcher.push({ op, json })
    },

    currentRevision: readRevision,

    async compactedRevision () {
      const revision = (await query<{ revision: number }>('compacted-revision', pool, 'SELECT revision FROM compaction'))[0].revision
      sawCompacted(revision)
      return revision
    },

    knownCompactedRevision: () => compactedSeen,

    async compact (upToRevision) {
      const compacted = await compact(upToRevision)
      sawCompacted(compacted)
      return compacted
    },

    async readLog (prefix, afterRevision, untilRevision) {
      const [lo, hi] = keyRange(prefix)
      // prev: the value each MODIFIED or DELETED replaced. It survives compaction, which keeps
      // each live key's newest value at or below the compacted revision.
      const rows = await query<EventRow & { compacted: number }>('read-log', pool,
        `SELECT c.revision AS compacted, e.revision, e.key, e.type, e.value, e.prev
         FROM compaction c LEFT JOIN LATERAL (
           SELECT ev.revision, ev.key, ev.type, ev.value,
             CASE WHEN ev.type <> 'ADDED' THEN (
               SELECT p.value FROM events p WHERE p.key = ev.key AND p.revision < ev.revision
               ORDER BY p.revision DESC LIMIT 1) END AS prev
           FROM events ev
           WHERE c.revision <= $1 AND ev.revision > $1 AND ev.revision <= $2
             AND ev.key >= $3 AND ($4::text IS NULL OR ev.key < $4)
         ) e ON true ORDER BY e.revision`,
        [afterRevision, untilRevision, lo, hi ?? null])
      const compacted = rows[0].compacted
      sawCompacted(compacted)
      if (afterRevision < compacted) {
        throw new StorageError('Compacted', prefix, `revision ${afterRevision} is below the compacted revision ${compacted}`, compacted)
      }
      return toEvents(rows)
    },

    subscribe (afterRevision, onEvents, onError) {
      return reader.subscribe(afterRevision, onEvents, onError)
    },

    async close () {
      if (closed) return
      closed = true
      await batcher.drain()
      await reader.close()
      await Promise.all([endPool(pool), endPool(writePool), endPool(logPool)])
    }
  }

  async function listNewest (range: RangeOptions): Promise<ListPage> {
    const [lo, hi] = keyRange(range.prefix)
    const limit = range.limit !== undefined && range.limit > 0 ? range.limit : undefined
    const where = 'key >= $1 AND key > $2 AND ($4::text IS NULL OR key < $4)'
    // One statement is one snapshot, which is what a REPEATABLE READ transaction would give:
    // the counter and the objects are written in one transaction, so they always agree. The
    // counter comes as a first row of its own (key '', below every object's key) merged with the
    // objects in key order: the objects then stream straight from the key index, with no sort
    // of every value (a sort of a large collection spills to disk), and a range with no objects
    // still gets its revision.
    // One row past the limit says whether the page is the last, without counting the rest.
    const rows = await query<ObjectRow & { current: number | null, total: number | null }>('list', pool,
      `SELECT '' AS key, NULL::bigint AS revision, NULL::text AS value, (SELECT value FROM revision) AS current,
         ${limit === undefined || range.count !== true ? 'NULL::bigint' : `(SELECT count(*) FROM objects WHERE ${where})`} AS total
       UNION ALL (
         SELECT key, revision, value, NULL, NULL FROM objects WHERE ${where} ORDER BY key LIMIT $3
       ) ORDER BY key`,
      rangeParams(lo, range.continueAfterKey, limit === undefined ? undefined : limit + 1, hi))
    return toPage(rows, rows[0].current!, limit, range.count === true ? rows[0].total : null)
  }

  async function scan (prefix: string, onObject: (key: string, revision: number, json: string) => void): Promise<number> {
    const [lo, hi] = keyRange(prefix)
    const start = observer === undefined ? 0 : performance.now()
    let held: HeldConnection
    try {
      held = await checkout(pool)
    } catch (err) {
      throw translate(err)
    }
    const client = held.client
    let failed: unknown
    try {
      return await new Promise<number>((resolve, reject) => {
        // No ORDER BY: a range too big for work_mem would be sorted on disk (at 100,000 objects of
        // 1 KiB, 140 MB of temporary files written and read back before the first row), and an
        // index walk in key order reads the table's pages at random. The counter's row (key NULL)
        // comes from the same snapshot as the objects; arrays, not objects, per row.
        const config: pg.QueryArrayConfig = {
          text: `SELECT NULL::text AS key, value AS revision, NULL::text AS value FROM revision
            UNION ALL SELECT key, revision, value FROM objects WHERE key >= $1 AND ($2::text IS NULL OR key < $2)`,
          values: [lo, hi ?? null],
          rowMode: 'array'
        }
        const q = new pg.Query(config)
        let revision: number | undefined
        let thrown: unknown
        q.on('row', (row: [string | null, number, string | null]) => {
          if (row[0] === null) revision = row[1]
          else if (thrown === undefined) {
            try {
              onObject(row[0], row[1], row[2]!)
            } catch (err) {
              thrown = err
            }
          }
        })
        q.on('error', reject)
        q.on('end', () => thrown === undefined ? resolve(revision!) : reject(thrown))
        client.query(q)
      })
    } catch (err) {
      failed = err
      throw translate(err)
    } finally {
      // A connection that failed mid-scan is not handed to the next query.
      held.release(failed instanceof Error && isConnectionError(failed) ? failed : undefined)
      if (observer !== undefined) observer.query('scan', (performance.now() - start) / 1000)
    }
  }

  async function listAt (range: RangeOptions, rev: number): Promise<ListPage> {
    const [lo, hi] = keyRange(range.prefix)
    const limit = range.limit !== undefined && range.limit > 0 ? range.limit : undefined
    // The newest event of each key at or below rev is the key's state at rev, unless DELETED.
    // DISTINCT ON walks the (key, revision DESC) index in key order from the page's first key
    // and stops at the limit: a page costs its own keys' history, not the rest of the range.
    // One row past the limit says whether more follow; the rest is counted only when asked.
    const atRev = `SELECT DISTINCT ON (key) key, revision, type, value FROM events
      WHERE key >= $1 AND key > $2 AND ($4::text IS NULL OR key < $4) AND revision <= $5
      ORDER BY key, revision DESC`
    const rows = await query<ObjectRow & { current: number, compacted: number, total: number | null }>('list-at-revision', pool,
      `WITH b AS (SELECT (SELECT value FROM revision) AS current, (SELECT revision FROM compaction) AS compacted)
       SELECT b.current, b.compacted,
         ${limit === undefined || range.count !== true ? 'NULL' : `CASE WHEN b.compacted <= $5 AND $5 <= b.current THEN (SELECT count(*) FROM (${atRev}) x WHERE type <> 'DELETED') END`} AS total,
         p.key, p.revision, p.value
       FROM b LEFT JOIN LATERAL (
         SELECT key, revision, value FROM (${atRev}) x
         WHERE b.compacted <= $5 AND $5 <= b.current AND type <> 'DELETED'
         ORDER BY key LIMIT $3
       ) p ON true ORDER BY p.key`,
      [...rangeParams(lo, range.continueAfterKey, limit === undefined ? undefined : limit + 1, hi), rev])
    const { current, compacted } = rows[0]
    sawCompacted(compacted)
    if (rev < compacted) {
      throw new StorageError('Compacted', range.prefix, `revision ${rev} is below the compacted revision ${compacted}`, compacted)
    }
    if (rev > current) {
      throw new StorageError('TooLarge', range.prefix, `revision ${rev} is newer than the current revision ${current}`)
    }
    return toPage(rows, rev, limit, range.count === true ? rows[0].total : null)
  }

  /**
   * Drops, at or below the target, every event but each live key's newest one, so a read at
   * any revision >= the compacted revision still sees every live key. Batches of revisions,
   * each in its own transaction that first advances `compaction`: a reader checks the
   * compacted revision in the same snapshot as its read, so it never sees half a batch.
   */
  async function compact (upTo: number): Promise<number> {
    for (;;) {
      let held: HeldConnection
      try {
        held = await checkout(pool)
      } catch (err) {
        throw translate(err)
      }
      const client = held.client
      try {
        await client.query('BEGIN')
        // FOR UPDATE serialises the compactors of several replicas.
        const { rows } = await client.query<{ compacted: number, current: number }>(
          'SELECT c.revision AS compacted, r.value AS current FROM compaction c, revision r FOR UPDATE OF c')
        const { compacted, current } = rows[0]
        const target = Math.min(upTo, current - minRetain)
        if (target <= compacted) {
          await client.query('COMMIT')
          return compacted
        }
        const hi = Math.min(target, compacted + COMPACT_BATCH_REVISIONS)
        await client.query('UPDATE compaction SET revision = $1', [hi])
        // Each event in (compacted, hi] supersedes every older event of its key; a DELETED one
        // goes too. Older superseded events were already dropped by earlier batches.
        await client.query(
          `DELETE FROM events e USING (
             SELECT revision, key, type FROM events WHERE revision > $1 AND revision <= $2
           ) n
           WHERE e.key = n.key AND (e.revision < n.revision OR (e.revision = n.revision AND n.type = 'DELETED'))`,
          [compacted, hi])
        await client.query('COMMIT')
        if (hi === target) return hi
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {})
        throw translate(err)
      } finally {
        held.release()
      }
    }
  }
}

interface HeldConnection { client: pg.PoolClient, release (err?: Error): void }

/**
 * A pool's connection held for several statements. The pool listens for a connection's errors
 * only while it is idle: one the server ends between two statements (a shutdown's "terminating
 * connection") would be an 'error' event with no listener, which ends the process. It is kept
 * here and the connection released as broken, so the pool does not hand it out again.
 */
async function checkout (p: pg.Pool): Promise<HeldConnection> {
  const client = await p.connect()
  let lost: Error | undefined
  const onError = (err: Error): void => { lost ??= err }
  client.on('error', onError)
  return {
    client,
    release (err) {
      client.removeListener('error', onError)
      client.release(err ?? lost)
    }
  }
}

/** How long close() waits for the database to acknowledge a connection's end. */
const END_TIMEOUT_MS = 2000

/**
 * Ends a pool once each of its connections is closed. pg's Pool.end() resolves as soon as it has
 * asked every idle connection to end, before the sockets close: a database stopped right after
 * (the embedded PostgreSQL, on a clean stop) then terminates connections still open, and the
 * pool reports each as a failed idle connection. Each connection's 'remove' comes once its
 * socket has closed.
 */
async function endPool (p: pg.Pool): Promise<void> {
  const open = p.totalCount
  let removed = 0
  let timer: NodeJS.Timeout | undefined
  const closed = new Promise<void>((resolve) => {
    if (open === 0) return resolve()
    p.on('remove', () => { if (++removed >= open) resolve() })
    timer = setTimeout(resolve, END_TIMEOUT_MS)
  })
  await p.end()
  await closed
  clearTimeout(timer)
}

interface PendingWrite { op: WriteOp, json: string }
interface ObjectRow { key: string | null, revision: number | null, value: string | null }
interface EventRow { key: string | null, revision: number | null, type: EventType | null, value: string | null, prev?: string | null }

/**
 * The stored bytes with the placeholder where the database writes the revision. The placeholder
 * is a raw control character, which JSON.stringify never emits, so it cannot be forged by a
 * value; JSON.stringify itself writes a sentinel in its place, which no value can hold either.
 */
function serialise (value: ApiObject): string {
  const meta = (value as { metadata?: unknown }).metadata as Record<string, unknown> | undefined
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return JSON.stringify(value)
  const had = Object.hasOwn(meta, 'resourceVersion')
  const previous = meta.resourceVersion
  meta.resourceVersion = RV_SENTINEL
  let json: string
  try {
    json = JSON.stringify(value)
  } finally {
    if (had) meta.resourceVersion = previous
    else delete meta.resourceVersion
  }
  const at = json.indexOf(RV_SENTINEL_JSON)
  return `${json.slice(0, at)}"${REVISION_PLACEHOLDER}"${json.slice(at + RV_SENTINEL_JSON.length)}`
}

function preconditionError (code: string, op: WriteOp, current: number): StorageError {
  switch (code) {
    case 'KeyExists':
      return new StorageError('KeyExists', op.key, `${op.key} already exists`, current)
    case 'NotFound':
      return new StorageError('NotFound', op.key, `${op.key} not found`)
    default:
      return new StorageError('Conflict', op.key,
        `${op.key}: expected revision ${op.type === 'create' ? 0 : op.expectRevision}, current is ${current}`, current)
  }
}

/** [lower bound, exclusive upper bound]: the prefix with its last character incremented. */
function keyRange (prefix: string): [string, string | undefined] {
  const chars = Array.from(prefix)
  if (chars.length === 0) return ['', undefined]
  let next = chars[chars.length - 1].codePointAt(0)! + 1
  if (next === 0xd800) next = 0xe000
  return [prefix, chars.slice(0, -1).join('') + String.fromCodePoint(next)]
}

function rangeParams (lo: string, after: string | undefined, limit: number | undefined, hi: string | undefined): unknown[] {
  // '' sorts first, so "after ''" excludes nothing; LIMIT NULL is no limit.
  return [lo, after ?? '', limit ?? null, hi ?? null]
}

/** `rows` hold up to limit + 1 objects: the one past the limit only says that more follow. */
function toPage (rows: ObjectRow[], revision: number, limit: number | undefined, total: number | null): ListPage {
  const items: StoredObject[] = []
  let more = false
  for (const r of rows) {
    // A row without a revision carries only the list's revision (and count), not an object.
    if (r.revision === null) continue
    if (limit !== undefined && items.length === limit) { more = true; break }
    items.push({ key: r.key!, revision: r.revision, json: r.value! })
  }
  const page: ListPage = { items, revision }
  if (total !== null) page.remaining = Math.max(0, total - items.length)
  if (more && items.length > 0) page.continueAfterKey = items[items.length - 1].key
  return page
}

function toEvents (rows: EventRow[]): LogEvent[] {
  const events: LogEvent[] = []
  for (const r of rows) {
    if (r.revision === null) continue
    const e: LogEvent = { type: r.type!, key: r.key!, revision: r.revision, json: r.value! }
    if (r.prev !== undefined && r.prev !== null) e.prevJson = r.prev
    events.push(e)
  }
  return events
}

const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])

/** Whether the failure is the connection's (the database unreachable, restarting, or gone). */
function isConnectionError (err: unknown): boolean {
  if (!(err instanceof Error)) return false
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string') {
    // 08: connection exception; 57P01-03: shutdown, crash, cannot connect now; 53300: too many connections.
    if (code.startsWith('08') || code.startsWith('57P') || code === '53300' || CONNECTION_ERRNOS.has(code)) return true
  }
  return /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed|Cannot use a pool after calling end/i.test(err.message)
}

function translate (err: unknown): unknown {
  if (err instanceof StorageError || !isConnectionError(err)) return err
  return new StorageError('Unavailable', '', `database unavailable: ${(err as Error).message}`)
}
