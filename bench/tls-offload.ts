// Issue 32 part 5's first question, on the get ceiling's bare route: does moving TLS off the
// main thread buy the request path a second core? Node 20 cannot hand an accepted socket to a
// worker thread, so the only split that keeps one process (and one watch cache) is a worker
// that terminates TLS and pipes the plaintext to the main thread's HTTP server over a Unix
// socket. Three servers answer the same route with the same 1 KiB object, each under the load
// generator's 64 keep-alive HTTPS clients (bench/load.ts), interleaved round by round:
//   in-thread  the get ceiling as `npm run bench` runs it (TLS and HTTP on the main thread)
//   worker     TLS in `--workers` worker threads, HTTP on the main thread behind a Unix socket
//   plain      HTTP without TLS on the main thread (what the main thread would cost at best)
// It reports requests/s, the server's CPU per request, and the main thread's own CPU per
// request (the figure the split exists to lower).
//   npx tsx bench/tls-offload.ts [rounds] [seconds] [workers]
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker, isMainThread } from 'node:worker_threads'
import Fastify, { type FastifyInstance } from 'fastify'
import { ensureCertificates } from '../auth/pki.js'
import { processCpuMs } from './cpu.js'
import { configMapBody } from './payload.js'

type Variant = 'in-thread' | 'worker' | 'plain'
const VARIANTS: Variant[] = ['in-thread', 'worker', 'plain']

/** The worker's code: a TLS server whose every connection is piped to the main thread's socket. */
const TLS_WORKER = `
const { workerData } = require('node:worker_threads')
const tls = require('node:tls')
const net = require('node:net')
const { cert, key, socketPath, port } = workerData
const server = tls.createServer({ cert, key, minVersion: 'TLSv1.2' }, (client) => {
  const upstream = net.connect(socketPath)
  client.pipe(upstream).pipe(client)
  client.on('error', () => upstream.destroy())
  upstream.on('error', () => client.destroy())
})
server.listen({ port, host: '127.0.0.1', exclusive: false })
`

/** The server side: argv is ['serve', variant, port, workers, dir]. */
async function serve (variant: Variant, port: number, workers: number, dir: string): Promise<void> {
  // ensureCertificates's file names for the serving pair.
  const cert = readFileSync(join(dir, 'pki', 'apiserver.crt'), 'utf8')
  const key = readFileSync(join(dir, 'pki', 'apiserver.key'), 'utf8')
  const body = readFileSync(join(dir, 'body.json'), 'utf8')
  const app: FastifyInstance = variant === 'in-thread'
    ? Fastify({ logger: false, https: { cert, key, minVersion: 'TLSv1.2' } }) as unknown as FastifyInstance
    : Fastify({ logger: false })
  app.get('/object', async (_request, reply) => reply.type('application/json').send(body))
  if (variant === 'worker') {
    const socketPath = join(dir, 'http.sock')
    rmSync(socketPath, { force: true })
    await app.listen({ path: socketPath })
    // Several workers may listen on one port: the cluster module's round robin is not involved,
    // each thread's listen shares the same listening handle through the process.
    for (let i = 0; i < workers; i++) new Worker(TLS_WORKER, { eval: true, workerData: { cert, key, socketPath, port } })
    await new Promise(resolve => setTimeout(resolve, 300))
  } else {
    await app.listen({ port, host: '127.0.0.1' })
  }
  process.stdout.write('ready\n')
  process.on('SIGTERM', () => process.exit(0))
}

/** The main thread's CPU ms (its task id is the process id). */
function mainThreadCpuMs (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

interface Measured { perSecond: number, serverUs: number, mainUs: number, generatorUs: number, p99: number }

async function measure (variant: Variant, port: number, workers: number, dir: string, seconds: number, ca: string): Promise<Measured> {
  const server: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/tls-offload.ts', 'serve', variant, String(port), String(workers), dir], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    await new Promise<void>((resolve, reject) => {
      server.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve() })
      server.once('exit', code => reject(new Error(`the ${variant} server exited with ${code}`)))
    })
    const warmupMs = 2000
    const origin = `${variant === 'plain' ? 'http' : 'https'}://127.0.0.1:${port}`
    const job = { mode: 'loop', target: variant === 'plain' ? { origin } : { origin, ca }, request: { kind: 'get', path: '/object' }, concurrency: 64, warmupMs, durationMs: seconds * 1000 }
    const before = { server: 0, main: 0 }
    const snapshot = setTimeout(() => { before.server = processCpuMs(server.pid!); before.main = mainThreadCpuMs(server.pid!) }, warmupMs)
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'bench/load.ts', JSON.stringify(job)], { encoding: 'utf8' })
    clearTimeout(snapshot)
    const serverMs = processCpuMs(server.pid!) - before.server
    const mainMs = mainThreadCpuMs(server.pid!) - before.main
    const result = JSON.parse(out.trim().split('\n').pop()!) as { requests: number, perSecond: number, cpuMs: number, failures: number, latency: { p99: number } }
    if (result.failures > 0) throw new Error(`${variant}: ${result.failures} requests failed`)
    const us = (ms: number): number => Math.round(ms * 1000 / result.requests)
    return { perSecond: Math.round(result.perSecond), serverUs: us(serverMs), mainUs: us(mainMs), generatorUs: us(result.cpuMs), p99: result.latency.p99 }
  } finally {
    const exited = new Promise(resolve => server.once('exit', resolve))
    server.kill('SIGTERM')
    await exited
  }
}

async function main (): Promise<void> {
  const [rounds = '3', seconds = '8', workers = '1'] = process.argv.slice(2)
  const dir = mkdtempSync(join(tmpdir(), 'tls-offload-'))
  try {
    const pki = await ensureCertificates(dir, { certDir: join(dir, 'pki'), hosts: ['127.0.0.1'] })
    writeFileSync(join(dir, 'body.json'), configMapBody('hot', 1024))
    const results = new Map<Variant, Measured[]>(VARIANTS.map(v => [v, []]))
    for (let r = 0; r < Number(rounds); r++) {
      for (const [i, variant] of VARIANTS.entries()) {
        const m = await measure(variant, 18400 + i, Number(workers), dir, Number(seconds), pki.caCertPem)
        results.get(variant)!.push(m)
        process.stdout.write(`round ${r + 1} ${variant.padEnd(9)} ${m.perSecond}/s p99 ${m.p99.toFixed(1)} ms; server ${m.serverUs} µs/request, main thread ${m.mainUs}, load generator ${m.generatorUs}\n`)
      }
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const base = median(results.get('in-thread')!.map(m => m.perSecond))
    for (const [variant, ms] of results) {
      process.stdout.write(`median ${variant.padEnd(9)} ${median(ms.map(m => m.perSecond))}/s (${(median(ms.map(m => m.perSecond)) / base).toFixed(2)}x in-thread); server ${median(ms.map(m => m.serverUs))} µs/request, main thread ${median(ms.map(m => m.mainUs))}\n`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (!isMainThread) throw new Error('tls-offload runs its workers from source text')
if (process.argv[2] === 'serve') {
  await serve(process.argv[3] as Variant, Number(process.argv[4]), Number(process.argv[5]), process.argv[6]!)
} else {
  await main()
}
