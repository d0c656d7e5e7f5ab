// Where the server's CPU goes under one workload, as Linux perf samples it: unlike V8's
// --cpu-prof it counts only time on a core (not time preempted inside a write) and it sees TLS,
// the kernel and the garbage collector (code is not compacted, so its addresses stay those
// perf's map names). Needs `perf` (Debian: linux-perf).
//   npx tsx bench/perf.ts [create|get|list] [seconds] [concurrency]   (DATABASE_URL or the local PostgreSQL)
// list: a namespace list of 1,001 ConfigMaps of 1 KiB (1.4 MB, streamed), as the paged workload's.
//   EXTRA_NODE_ARGS="--single-threaded-gc" npx tsx bench/perf.ts create 10   (Node flags to weigh)
//   PERF_KEEP=/tmp/list.perf npx tsx bench/perf.ts list 10 8   (keep the recording)
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from './apiserver.js'
import type { LoopResult } from './load.js'
import { freePort, runJson } from './process.js'
import { scratchDatabase } from './scratch-database.js'

const [workload = 'create', secondsArg = '20', concurrencyArg = '64'] = process.argv.slice(2)
if (workload !== 'create' && workload !== 'get' && workload !== 'list') throw new Error(`workload must be create, get or list, not ${workload}`)
if (spawnSync('perf', ['--version']).status !== 0) {
  process.stderr.write('perf is not installed (Debian: apt-get install linux-perf)\n')
  process.exit(2)
}
const seconds = Number(secondsArg)
const HZ = 999
const WARMUP_MS = 3000

const db = await scratchDatabase('perf')
const dir = mkdtempSync(join(tmpdir(), 'perf-bench-'))
const data = join(dir, 'perf.data')

const server = await startServer({ dataDir: join(dir, 'server'), port: await freePort(), storageUrl: db.url, nodeArgs: ['--perf-basic-prof', '--no-compact-code-space', ...(process.env.EXTRA_NODE_ARGS ?? '').split(' ').filter(Boolean)] })
let result: LoopResult
try {
  const path = `/api/v1/namespaces/default/configmaps`
  if (workload !== 'create') {
    const count = workload === 'get' ? 1 : 1001
    await runJson('bench/load.ts', { mode: 'loop', target: server.target, request: { kind: 'create', namespace: 'default', prefix: 'object', payloadBytes: 1024 }, concurrency: Math.min(count, 32), count })
  }
  const request = workload === 'get' ? { kind: 'get', path: `${path}/object-0-0` } : workload === 'list' ? { kind: 'get', path } : { kind: 'create', namespace: 'default', prefix: 'c', payloadBytes: 1024 }
  const recorded = new Promise<void>((resolve, reject) => {
    setTimeout(() => {
      const perf = spawn('perf', ['record', '-q', '-F', String(HZ), '-e', 'cpu-clock', '-g', '-o', data, '-p', String(server.pid), '--', 'sleep', String(seconds)], { stdio: 'ignore' })
      perf.on('error', reject)
      perf.on('exit', () => resolve())
    }, WARMUP_MS)
  })
  result = await runJson<LoopResult>('bench/load.ts', { mode: 'loop', target: server.target, request, concurrency: Number(concurrencyArg), warmupMs: WARMUP_MS, durationMs: seconds * 1000 })
  await recorded
} finally {
  await server.stop()
  await db.drop()
}

/** One sample: its thread and its frames' symbols, innermost first. */
interface Sample { tid: number, frames: string[] }
const script = spawnSync('perf', ['script', '-i', data, '-F', 'tid,ip,sym'], { encoding: 'utf8', maxBuffer: 1 << 30 })
if (script.status !== 0) throw new Error(`perf script failed: ${script.stderr}`)
// PERF_KEEP=<file> keeps the recording, for `perf report -i <file> --children`.
if (process.env.PERF_KEEP !== undefined) copyFileSync(data, process.env.PERF_KEEP)
rmSync(dir, { recursive: true, force: true })
const samples: Sample[] = []
for (const line of script.stdout.split('\n')) {
  if (line.trim() === '') continue
  // perf pads the thread id with spaces, so a header is told from a frame by its shape.
  if (/^\s*\d+\s*$/.test(line)) {
    samples.push({ tid: Number(line.trim()), frames: [] })
    continue
  }
  const symbol = line.trim().split(' ').slice(1).join(' ')
  samples.at(-1)?.frames.push(symbol)
}
const main = samples.filter(s => s.tid === server.pid)
const share = (n: number, of: number): string => `${(100 * n / of).toFixed(1).padStart(5)}%`

const project = process.cwd() + '/'
/** Where a JS frame's code lives: a project file, a package, or Node's own library. */
function place (frame: string): string | undefined {
  const m = /^JS:\S*\s+(?:\S*\s+)?(?:file:\/\/)?(\S+?):\d+:\d+$/.exec(frame)
  if (m === null) return undefined
  return m[1]!.replace(project, '').replace(/^dist\//, '').replace(/node_modules\/((@[^/]+\/)?[^/]+)\/.*/, '$1')
}
/** The area a sample's time belongs to: the garbage collector, TLS, or the innermost JS code's place. */
function area (frames: string[]): string {
  if (frames.slice(0, 15).some(f => f.includes('Heap::') || f.includes('Scaveng') || f.includes('MarkCompact'))) return 'garbage collector'
  for (let i = 0; i < frames.length; i++) {
    const where = place(frames[i]!)
    if (where === undefined) continue
    return frames.slice(0, i).some(f => f.includes('TLSWrap')) ? `TLS (below ${where})` : where
  }
  return frames.some(f => f.includes('TLSWrap')) ? 'TLS and HTTP parsing (no JS above)' : 'native, no JS above'
}
function tally (keys: Array<string | undefined>): Array<[string, number]> {
  const counts = new Map<string, number>()
  for (const k of keys) if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1])
}

const mainCpu = main.length / HZ
const otherCpu = (samples.length - main.length) / HZ
process.stdout.write(`${workload}: ${Math.round(result.perSecond)}/s with ${concurrencyArg} clients; the server's main thread on a core ${share(mainCpu, seconds).trim()} of the time, ` +
  `${Math.round(mainCpu * 1e6 / seconds / result.perSecond)} µs per request; its other threads (GC, compiler, libuv) ${share(otherCpu, seconds).trim()}\n`)
process.stdout.write('\nthe main thread by area (innermost JS code, with what it calls natively):\n')
for (const [k, n] of tally(main.map(s => area(s.frames))).slice(0, 25)) process.stdout.write(`${share(n, main.length)}  ${k}\n`)
process.stdout.write('\nthe project\'s hottest functions (with what V8 inlined into them):\n')
const own = main.map(s => s.frames.find(f => f.startsWith('JS:'))).map(f => f !== undefined && f.includes(project) && !f.includes('node_modules') ? f.slice(3).replace(`file://${project}`, '').replace(project, '') : undefined)
for (const [k, n] of tally(own).slice(0, 20)) process.stdout.write(`${share(n, main.length)}  ${k}\n`)
