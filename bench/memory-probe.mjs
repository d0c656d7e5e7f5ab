// Where a server's memory goes, read from inside it: preload this into the server with
//   npm run bench -- --only rest --server-node-args "--import ./bench/memory-probe.mjs"
// (or `node --import ./bench/memory-probe.mjs dist/bundle/server.js ...`), then `kill -USR2 <pid>`.
// Each signal writes memory-probe-<pid>-<n>.json into $MEMORY_PROBE_DIR (default: the working
// directory): process.memoryUsage(), V8's heap, space and code statistics, and
// /proc/self/smaps_rollup (anonymous pages against pages mapped from files); with
// MEMORY_PROBE_SNAPSHOT=1 also a heap snapshot beside it (large: seconds to write, and about
// twice the heap while it is written). Plain JavaScript: the server runs without tsx.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import v8 from 'node:v8'

const dir = process.env.MEMORY_PROBE_DIR ?? process.cwd()
let n = 0

process.on('SIGUSR2', () => {
  const base = join(dir, `memory-probe-${process.pid}-${n++}`)
  const report = {
    at: new Date().toISOString(),
    memoryUsage: process.memoryUsage(),
    heap: v8.getHeapStatistics(),
    spaces: v8.getHeapSpaceStatistics().filter(s => s.space_size > 0),
    code: v8.getHeapCodeStatistics(),
    smapsRollup: readFileSync('/proc/self/smaps_rollup', 'utf8')
  }
  writeFileSync(`${base}.json`, JSON.stringify(report, null, 1))
  if (process.env.MEMORY_PROBE_SNAPSHOT === '1') v8.writeHeapSnapshot(`${base}.heapsnapshot`)
})
