// A fresh PostgreSQL database per test, on the server `test/run.ts` provides.
import { randomBytes } from 'node:crypto'
import pg from 'pg'

const OBJECT_IN_USE = '55006'

/**
 * Creates `t_<random>` on the server at DATABASE_URL and returns its URL; drops it (forcing
 * out any connection left open) after the test. Throws when DATABASE_URL is unset.
 */
export async function freshDatabase (t: { after (fn: () => unknown): void }): Promise<string> {
  const base = process.env.DATABASE_URL
  if (base === undefined || base === '') {
    throw new Error('DATABASE_URL is not set: run the tests through `npm test` (tsx test/run.ts), ' +
      'which starts an embedded PostgreSQL, or point DATABASE_URL at a server')
  }
  const name = `t_${randomBytes(6).toString('hex')}`
  await admin(base, async (client) => {
    // Concurrent CREATE DATABASE from another test process can find the template busy.
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${name}`)
        return
      } catch (err) {
        if ((err as { code?: string }).code !== OBJECT_IN_USE || attempt === 5) throw err
        await new Promise(resolve => setTimeout(resolve, 50 * attempt))
      }
    }
  })
  t.after(() => admin(base, client => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)))
  const url = new URL(base)
  url.pathname = `/${name}`
  return url.toString()
}

async function admin (url: string, fn: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await fn(client)
  } finally {
    await client.end()
  }
}
