// The rest and startup workloads: a server of its own, on a data directory of its own, filled
// with --objects ConfigMaps in 100 namespaces. rest: its RSS once quiet, beside the live JSON
// it holds. startup: a restart on that directory (its own embedded PostgreSQL, as `npm start`
// runs it) to the first /readyz 200, beside starting the same PostgreSQL and reading the same
// rows with a bare query.
import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startEmbeddedPostgres } from '../storage/embedded.js'
import { startServer, type RssParts, type RunningServer } from './apiserver.js'
import { configMapBytes, countConfigMaps, ensure } from './client.js'
import { fillConfigMaps } from './fill.js'
import type { BenchFlags } from './flags.js'
import { configMapBody } from './payload.js'
import { freePort } from './process.js'
import type { Row } from './table.js'

export interface ScaleContext {
  flags: BenchFlags
  workDir: string
  rows: Row[]
  /** Printed under the table. */
  notes: string[]
  raw: Record<string, unknown>
  log (msg: string): void
  profDir?: string
}

const NAMESPACES = 100
const NAMESPACE = 'bench-scale'
const SETTLE_S = 10
const mib = (n: number): string => `${Math.round(n / 1048576)} MiB`

/** Samples RSS once a second; the last, once V8 and the allocator have given back what a burst left. */
async function settledRss (server: RunningServer): Promise<{ rss: number, samples: number[], parts: RssParts }> {
  const samples: number[] = []
  for (let i = 0; i < SETTLE_S; i++) {
    await new Promise(resolve => setTimeout(resolve, 1000))
    samples.push(server.rssBytes())
  }
  return { rss: samples[samples.length - 1]!, samples, parts: server.rssParts() }
}

/** What the RSS is made of: the part mapped from files (the node binary) is the same for any Node process. */
const split = (p: RssParts): string => `${mib(p.anonymous)} anonymous + ${mib(p.file)} mapped from files`

/** Starts the embedded PostgreSQL on `dir` and reads every object: ms from spawn to the rows in hand. */
function bareRead (dir: string): Promise<{ ms: number, rows: number, bytes: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now()
    const child = spawn(process.execPath, ['bench/ceilings/pg-read.mjs', dir], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => { out += d.toString() })
    child.stderr.on('data', (d: Buffer) => { err += d.toString() })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`pg-read exited with ${code}: ${err.slice(-1000)}`))
      const r = JSON.parse(out.trim().split('\n').pop()!) as { rows: number, bytes: number, readAt: number }
      resolve({ ms: r.readAt - started, rows: r.rows, bytes: r.bytes })
    })
  })
}

export async function runAtScale (ctx: ScaleContext, workloads: { rest: boolean, startup: boolean }): Promise<void> {
  const { flags, log, rows, notes, raw } = ctx
  const dir = join(ctx.workDir, 'scale')
  mkdirSync(dir)
  const db = await startEmbeddedPostgres(dir)
  let server: RunningServer | undefined
  let live: { objects: number, bytes: number }
  try {
    server = await startServer({ dataDir: dir, port: await freePort(), storageUrl: db.url, nodeArgs: flags.serverNodeArgs })
    const t = server.target
    const emptyRss = server.rssBytes()
    const emptyParts = server.rssParts()
    for (let i = 0; i < NAMESPACES; i++) await ensure(t, 'POST', '/api/v1/namespaces', `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${NAMESPACE}-${i}"}}`)
    const template = await ensure(t, 'POST', `/api/v1/namespaces/${NAMESPACE}-0/configmaps`, configMapBody('template', flags.payloadBytes))
    const total = (await countConfigMaps(t, false)) + flags.objects - 1
    log(`rest: writing ${flags.objects} ConfigMaps in ${NAMESPACES} namespaces through the store`)
    await fillConfigMaps(db.url, template, n => `${NAMESPACE}-${n % NAMESPACES}`, 's', flags.objects - 1)
    const deadline = Date.now() + 300_000
    while (await countConfigMaps(t, false).catch(() => 0) < total) {
      if (Date.now() > deadline) throw new Error('the cache had not taken in the fill five minutes after it')
      await new Promise(resolve => setTimeout(resolve, 200))
    }
    const { rss, samples, parts } = await settledRss(server)
    live = await configMapBytes(t)
    if (workloads.rest) {
      raw.rest = { rssBytes: rss, rssSamples: samples, rssParts: parts, emptyRssBytes: emptyRss, emptyRssParts: emptyParts, ...live }
      rows.push({
        workload: `rest: ${live.objects} ConfigMaps`,
        figure: `RSS ${mib(rss)}`,
        ceiling: `JSON ${mib(live.bytes)}`,
        ratio: rss / live.bytes,
        target: '<= 1.5x',
        pass: rss <= 1.5 * live.bytes
      })
      notes.push(`rest: RSS ${split(parts)} (the anonymous part ${(parts.anonymous / live.bytes).toFixed(2)}x the JSON); the same server before the fill (at /readyz): ${mib(emptyRss)}, ${split(emptyParts)}`)
    }
  } finally {
    await server?.stop()
    await db.stop()
  }
  if (!workloads.startup) return

  log(`startup: a bare read of ${live.objects} objects, then npm start on the same directory`)
  const bare = await bareRead(dir)
  const restarted = await startServer({ dataDir: dir, port: await freePort(), cpuProfDir: ctx.profDir, nodeArgs: flags.serverNodeArgs })
  const rss = restarted.rssBytes()
  const readyParts = restarted.rssParts()
  // When ready, the heap still holds the fill's garbage: the idle collector gives it back once the server is quiet.
  let settled: Awaited<ReturnType<typeof settledRss>>
  try {
    settled = await settledRss(restarted)
  } finally {
    await restarted.stop()
  }
  raw.startup = { readyMs: restarted.readyMs, bare, rssBytes: rss, rssParts: readyParts, settledRssBytes: settled.rss, settledRssParts: settled.parts, liveBytes: live.bytes }
  const ratio = restarted.readyMs / bare.ms
  rows.push({
    workload: `startup: ${bare.rows} objects`,
    figure: `${Math.round(restarted.readyMs)} ms to /readyz`,
    ceiling: `${Math.round(bare.ms)} ms PostgreSQL + read`,
    ratio,
    target: '<= 1.5x',
    pass: ratio <= 1.5
  })
  rows.push({
    workload: `startup: RSS when ready, ${live.objects} ConfigMaps`,
    figure: `RSS ${mib(rss)}`,
    ceiling: `JSON ${mib(live.bytes)}`,
    ratio: rss / live.bytes,
    target: '<= 1.5x',
    pass: rss <= 1.5 * live.bytes
  })
  rows.push({
    workload: `startup: RSS settled after the restart, ${live.objects} ConfigMaps`,
    figure: `RSS ${mib(settled.rss)}`,
    ceiling: `JSON ${mib(live.bytes)}`,
    ratio: settled.rss / live.bytes,
    target: '<= 1.5x',
    pass: settled.rss <= 1.5 * live.bytes
  })
  notes.push(`startup: RSS when ready ${split(readyParts)}; settled ${split(settled.parts)}`)
}
