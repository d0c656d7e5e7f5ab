// The real server process for end-to-end tests: the built server (`npm start`'s) on a fresh database.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { freshDatabase } from './postgres.js'
import { serverCommand } from './built-server.js'

type T = { after (fn: () => unknown): void }

/** Spawns the built server with these flags (a free port, quiet logs), not waiting for it. */
export function runServer (args: string[]): ChildProcess {
  const { command, args: argv, cwd } = serverCommand(['--secure-port', '0', '--log-level', 'warn', ...args])
  return spawn(command, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
}

/** Runs the built server with exactly these flags (and environment additions) to its exit (--help, refused flags, failed starts). */
export function runServerSync (args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  const { command, args: argv, cwd } = serverCommand(args)
  return spawnSync(command, argv, { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } })
}

/** When `path` was last written, or undefined while it does not exist. */
function writtenAt (path: string): number | undefined {
  try {
    return statSync(path).mtimeMs
  } catch {
    return undefined
  }
}

export interface RunningServer {
  dataDir: string
  /** The database it was started on (a replica started with `--storage-url` shares it). */
  databaseUrl: string
  kubeconfig: string
  /** The https:// URL the kubeconfig names. */
  server: string
  caPem: string
  clientCertPem: string
  clientKeyPem: string
  process: ChildProcess
  stop (): Promise<void>
}

/**
 * Starts the built server on a fresh database (in `dataDir`, else a temp dir removed afterwards)
 * and waits for its kubeconfig; stopped, then its database dropped, after the test.
 */
export async function startServer (t: T, args: string[] = [], dataDir?: string): Promise<RunningServer> {
  const cleanups: Array<() => unknown> = []
  t.after(async () => { for (const fn of cleanups.reverse()) await fn() })
  const databaseUrl = await freshDatabase({ after: (fn) => { cleanups.push(fn) } })
  if (dataDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'apiserver-e2e-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    dataDir = dir
  }
  // The server writes its kubeconfig once it listens; one left in a reused data dir is older.
  const kubeconfig = join(dataDir, 'admin.kubeconfig')
  const previous = writtenAt(kubeconfig)
  const child = runServer(['--data-dir', dataDir, '--storage-url', databaseUrl, ...args])
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString() })
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise(resolve => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  cleanups.push(stop)
  const deadline = Date.now() + 60_000
  while (writtenAt(kubeconfig) === undefined || writtenAt(kubeconfig) === previous) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start: ${stderr}`)
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  const cfg = parse(readFileSync(kubeconfig, 'utf8'))
  const pem = (b64: string): string => Buffer.from(b64, 'base64').toString()
  const storageFlag = args.lastIndexOf('--storage-url')
  return {
    dataDir,
    databaseUrl: storageFlag === -1 ? databaseUrl : args[storageFlag + 1]!,
    kubeconfig,
    server: cfg.clusters[0].cluster.server,
    caPem: pem(cfg.clusters[0].cluster['certificate-authority-data']),
    clientCertPem: pem(cfg.users[0].user['client-certificate-data']),
    clientKeyPem: pem(cfg.users[0].user['client-key-data']),
    process: child,
    stop
  }
}
