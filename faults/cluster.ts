// The cluster under test: a dedicated embedded PostgreSQL (restartable fast or immediately),
// behind a proxy that can cut connections silently, and several server processes on it.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { Agent } from 'undici'
import { parse } from 'yaml'
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../storage/embedded.js'
import { PostgresProxy } from './proxy.js'

const ROOT = new URL('..', import.meta.url).pathname
const READY_LINE = /is ready on (https:\/\/\S+?);/
const START_TIMEOUT_MS = 120_000

export interface ServerProcess {
  index: number
  port: number
  url: string
  process: ChildProcess
  args: string[]
}

export interface Cluster {
  dir: string
  /** The database as the servers see it: through the proxy. */
  databaseUrl: string
  proxy: PostgresProxy
  servers: ServerProcess[]
  /** A TLS agent carrying the admin client certificate, good for every server (one CA). */
  agent: Agent
  restartPostgres (mode: 'fast' | 'immediate'): Promise<void>
  /** SIGKILLs a server and starts it again on the same port. */
  killServer (index: number): Promise<void>
  stop (): Promise<void>
}

/** The database's settings: the kernel outlives every fault here, so fsync buys nothing, but commits stay synchronous. */
const PG_SETTINGS = { fsync: 'off', full_page_writes: 'off', max_connections: '200' }

export async function startCluster (opts: { servers: number, log?: (line: string) => void }): Promise<Cluster> {
  const dir = await mkdtemp(join(tmpdir(), 'apiserver-faults-'))
  const pgDir = join(dir, 'pg')
  let database: EmbeddedPostgresHandle = await startEmbeddedPostgres(pgDir, { settings: PG_SETTINGS })
  const port = (url: string): number => Number(new URL(url).port)
  const proxy = await PostgresProxy.start(port(database.url))
  const direct = new URL(database.url)
  direct.port = String(proxy.port)
  const databaseUrl = direct.toString()
  const servers: ServerProcess[] = []
  const log = opts.log ?? (() => {})
  let stopping = false

  const launch = async (index: number, serverPort: number, args: string[]): Promise<ServerProcess> => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/server.ts', '--secure-port', String(serverPort), '--log-level', 'warn', ...args],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stderr!.on('data', (d: Buffer) => { err += d.toString(); if (err.length > 20_000) err = err.slice(-10_000) })
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server ${index} not ready: ${err}`)), START_TIMEOUT_MS)
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString()
        const m = READY_LINE.exec(out)
        if (m !== null) { clearTimeout(timer); resolve(m[1]!) }
      })
      child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`server ${index} exited (${code ?? signal}): ${err}`)) })
    })
    child.removeAllListeners('exit')
    child.on('exit', (code, signal) => { if (!stopping && signal !== 'SIGKILL') log(`server ${index} exited (${code ?? signal}): ${err.slice(-2000)}`) })
    return { index, port: serverPort, url, process: child, args }
  }

  const first = join(dir, 'server-0')
  const serverArgs = (i: number): string[] => ['--data-dir', join(dir, `server-${i}`), '--storage-url', databaseUrl,
    ...(i === 0 ? [] : ['--cert-dir', join(first, 'pki')])]
  // The first makes the cluster's CA; the others share its certificate directory.
  servers.push(await launch(0, await freePort(), serverArgs(0)))
  servers.push(...await Promise.all(Array.from({ length: opts.servers - 1 }, async (_, k) => launch(k + 1, await freePort(), serverArgs(k + 1)))))

  const kubeconfig = parse(await readFile(join(first, 'admin.kubeconfig'), 'utf8'))
  const pem = (b64: string): string => Buffer.from(b64, 'base64').toString()
  const agent = new Agent({
    connect: { ca: pem(kubeconfig.clusters[0].cluster['certificate-authority-data']), cert: pem(kubeconfig.users[0].user['client-certificate-data']), key: pem(kubeconfig.users[0].user['client-key-data']) },
    headersTimeout: 15_000,
    bodyTimeout: 0
  })

  return {
    dir,
    databaseUrl,
    proxy,
    servers,
    agent,
    async restartPostgres (mode) {
      if (mode === 'immediate') {
        // The postmaster's pid heads its pid file; SIGQUIT is an immediate shutdown (no checkpoint: recovery at start).
        const pid = Number((await readFile(join(pgDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0])
        process.kill(pid, 'SIGQUIT')
      }
      await database.stop()
      database = await startEmbeddedPostgres(pgDir, { settings: PG_SETTINGS })
      proxy.retarget(port(database.url))
    },
    async killServer (index) {
      const s = servers[index]!
      const exited = once(s.process, 'exit')
      s.process.kill('SIGKILL')
      await exited
      servers[index] = await launch(index, s.port, s.args)
    },
    async stop () {
      stopping = true
      await agent.close().catch(() => {})
      await Promise.all(servers.map(async (s) => {
        if (s.process.exitCode !== null || s.process.signalCode !== null) return
        const exited = once(s.process, 'exit')
        s.process.kill('SIGTERM')
        const timer = setTimeout(() => s.process.kill('SIGKILL'), 20_000)
        await exited
        clearTimeout(timer)
      }))
      await proxy.close()
      await database.stop()
      await rm(dir, { recursive: true, force: true })
    }
  }
}

/** A short-lived client to the database, for the harness's own statements. */
export async function withDatabase<T> (url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  client.on('error', () => {})
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end().catch(() => {})
  }
}

function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.on('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => { if (address !== null && typeof address === 'object') resolve(address.port); else reject(new Error('no free port')) })
    })
  })
}
