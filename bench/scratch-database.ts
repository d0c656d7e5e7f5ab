// A database of its own for one profiling script, made on DATABASE_URL's server (default the
// local PostgreSQL) and dropped at the end, so runs never see each other's objects.
import pg from 'pg'

export interface ScratchDatabase {
  name: string
  url: string
  /** A connection to the server's default database, for statistics about this one. */
  admin: pg.Client
  drop (): Promise<void>
}

export async function scratchDatabase (prefix: string): Promise<ScratchDatabase> {
  const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const name = `${prefix}_${process.pid}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    name,
    url: url.toString(),
    admin,
    async drop () {
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`)
      await admin.end()
    }
  }
}
