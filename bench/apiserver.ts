// Starts the real server (bin/server.ts: HTTPS, client certificates, the whole request path)
// in a process of its own, as `npm start` does, and waits for /readyz.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { request } from 'node:https'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { npmStartCommands, runToEnd, waitFor } from './process.js'
import type { Target } from './load.js'

export interface ServerOptions {
  dataDir: string
  port: number
  /** Absent: the server starts its embedded PostgreSQL in the data directory. */
  storageUrl?: string
  /** Write a V8 CPU profile of the server process into this directory when it stops. */
  cpuProfDir?: string
  /** More Node flags for the server process (not for the build before it). */
  nodeArgs?: string[]
  timeoutMs?: number
}

export interface RunningServer {
  pid: number
  target: Target
  /** Milliseconds from the start command (build included) to the first /readyz 200. */
  readyMs: number
  /** The serving certificate and key, for the bare Fastify ceiling. */
  tls: { cert: string, key: string, ca: string }
  rssBytes (): number
  /** RSS split as /proc/<pid>/smaps_rollup splits it: anonymous pages and pages mapped from files. */
  rssParts (): RssParts
  stop (): Promise<void>
}

export interface RssParts {
  rss: number
  /** The heap, V8's and the allocator's: what the process itself allocated. */
  anonymous: number
  /** Pages of mapped files, nearly all the node binary's code and read-only data (shared with every Node process, dropped by the kernel under pressure). */
  file: number
}

/** The process's RSS from /proc/<pid>/smaps_rollup, split into anonymous and file-backed pages. */
export function rssParts (pid: number): RssParts {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? NaN) * 1024
  const rss = kb('Rss')
  const anonymous = kb('Anonymous')
  return { rss, anonymous, file: rss - anonymous }
}

/** The admin credentials and CA the server writes into its data directory on first start. */
function credentials (dataDir: string): { target: Omit<Target, 'origin'>, tls: RunningServer['tls'] } | undefined {
  const pki = join(dataDir, 'pki')
  const files = ['ca.crt', 'admin.crt', 'admin.key', 'apiserver.crt', 'apiserver.key'].map(f => join(pki, f))
  if (!files.every(f => existsSync(f))) return undefined
  const [ca, cert, key, servingCert, servingKey] = files.map(f => readFileSync(f, 'utf8')) as [string, string, string, string, string]
  return { target: { ca, cert, key }, tls: { cert: servingCert, key: servingKey, ca } }
}

function readyz (origin: string, creds: Omit<Target, 'origin'>): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${origin}/readyz`, { ca: creds.ca, cert: creds.cert, key: creds.key, agent: false, timeout: 1000 }, (res) => {
      res.resume()
      resolve(res.statusCode === 200)
    })
    req.on('error', () => resolve(false))
    req.on('timeout', () => { req.destroy(); resolve(false) })
    req.end()
  })
}

export async function startServer (opts: ServerOptions): Promise<RunningServer> {
  const origin = `https://127.0.0.1:${opts.port}`
  const profArgs = opts.cpuProfDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir]
  const args = ['--data-dir', opts.dataDir, '--secure-port', String(opts.port), '--log-level', 'error']
  if (opts.storageUrl !== undefined) args.push('--storage-url', opts.storageUrl)
  // The server falls back to DATABASE_URL; the benchmark says which database it means.
  const { DATABASE_URL: _ignored, ...env } = process.env
  // `npm start`'s own steps (the build, then the server), each run by this Node directly: the
  // figure is the server's, not npm's. The server is a child of ours, so its RSS is its own.
  const commands = npmStartCommands()
  const server = commands.pop()!
  const started = performance.now()
  for (const step of commands) await runToEnd(step)
  const child: ChildProcess = spawn(process.execPath, [...server.nodeArgs, ...profArgs, ...(opts.nodeArgs ?? []), ...server.args, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...env, ...server.env } })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000)
    if (process.env.BENCH_TRACE !== undefined) process.stderr.write(d)
  })
  let creds: ReturnType<typeof credentials>
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${stderr}`)
    creds ??= credentials(opts.dataDir)
    return creds !== undefined && await readyz(origin, creds.target)
  }, opts.timeoutMs ?? 120_000, 20)
  const readyMs = performance.now() - started
  return {
    pid: child.pid!,
    target: { origin, ...creds!.target },
    readyMs,
    tls: creds!.tls,
    rssBytes () {
      const status = readFileSync(`/proc/${child.pid!}/status`, 'utf8')
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) * 1024
    },
    rssParts: () => rssParts(child.pid!),
    async stop () {
      if (child.exitCode !== null) return
      const exited = new Promise(resolve => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
  }
}
