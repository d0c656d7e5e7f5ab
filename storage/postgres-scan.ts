// A whole range at the newest revision, read a page at a time inside one read-only snapshot:
// what a watch cache fills from. One statement for 100,000 objects would hold every row's
// wire bytes and every decoded row at once (twice the collection) before the first is used;
// pages of a few MiB keep that bounded, and the cache takes each page in while the database
// reads the next.
import type pg from 'pg'
import type { StoredObject } from './interface.js'
import type { StorageObserver } from './postgres.js'

/** Rows per page: some 5 MiB of 1 KiB objects. */
const SCAN_PAGE = 5000

/** [lower bound, exclusive upper bound]: the prefix with its last character incremented. */
export function keyRange (prefix: string): [string, string | undefined] {
  const chars = Array.from(prefix)
  if (chars.length === 0) return ['', undefined]
  let next = chars[chars.length - 1].codePointAt(0)! + 1
  if (next === 0xd800) next = 0xe000
  return [prefix, chars.slice(0, -1).join('') + String.fromCodePoint(next)]
}

/** Hands the objects under `prefix` to `onItems` page by page, in key order; resolves with the snapshot's revision. */
export async function scanNewest (pool: pg.Pool, prefix: string, onItems: (items: StoredObject[]) => void, observer?: StorageObserver): Promise<number> {
  const [lo, hi] = keyRange(prefix)
  const client = await pool.connect()
  const start = performance.now()
  let failed = false
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    const revision = (await client.query<{ value: number }>({ name: 'scan-revision', text: 'SELECT value FROM revision' })).rows[0]!.value
    const page = (after: string): Promise<pg.QueryResult<{ key: string, revision: number, value: string }>> => client.query({
      text: 'SELECT key, revision, value FROM objects WHERE key >= $1 AND key > $2 AND ($3::text IS NULL OR key < $3) ORDER BY key LIMIT $4',
      values: [lo, after, hi ?? null, SCAN_PAGE]
    })
    let next: ReturnType<typeof page> | undefined = page('')
    while (next !== undefined) {
      const { rows }: pg.QueryResult<{ key: string, revision: number, value: string }> = await next
      // The next page is asked for before this one is taken in: the database reads it meanwhile.
      next = rows.length < SCAN_PAGE ? undefined : page(rows[rows.length - 1]!.key)
      // A failed page would otherwise be an unhandled rejection while this one is taken in.
      next?.catch(() => {})
      const items: StoredObject[] = new Array(rows.length)
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!
        items[i] = { key: r.key, revision: r.revision, json: r.value }
      }
      if (items.length > 0) onItems(items)
    }
    await client.query('COMMIT')
    return revision
  } catch (err) {
    failed = true
    throw err
  } finally {
    // A connection that failed mid-transaction is not handed to the next reader.
    client.release(failed)
    observer?.query('scan', (performance.now() - start) / 1000)
  }
}
