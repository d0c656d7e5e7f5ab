// Where a watch cache's memory goes: fills a scratch database with N ConfigMaps of 1 KiB in 100
// namespaces, fills one watch cache from it in this process, and sums a heap snapshot's objects
// by what they are (strings by kind, objects by constructor), beside the stored JSON's size.
//   npx tsx --expose-gc bench/cache-memory.ts [objects] [top]
import { randomUUID } from 'node:crypto'
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeHeapSnapshot } from 'node:v8'
import configMaps from '../resources/configmaps.js'
import { storageKey } from '../resources/define.js'
import { createPostgresStorage } from '../storage/postgres.js'
import { createWatchCaches } from '../storage/watch-cache.js'
import { fillConfigMaps } from './fill.js'
import { configMapBody } from './payload.js'
import { scratchDatabase } from './scratch-database.js'

const objects = Number(process.argv[2] ?? 100_000)
const top = Number(process.argv[3] ?? 25)
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('run with --expose-gc')
const mib = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`

/** A ConfigMap as the server stores one: the bench's body with the metadata a create adds. */
function storedTemplate (): string {
  const body = JSON.parse(configMapBody('template', 1024)) as { metadata: Record<string, unknown> }
  Object.assign(body.metadata, {
    namespace: 'ns', uid: randomUUID(), resourceVersion: '1', creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    managedFields: [{ manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:payload': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } } }]
  })
  return JSON.stringify(body)
}

interface Snapshot { snapshot: { meta: { node_fields: string[], node_types: [string[]] } }, nodes: number[], strings: string[] }

/** Self sizes summed by node kind (strings by type, objects by constructor). */
function summarise (file: string): Array<[string, { count: number, bytes: number }]> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot
  const fields = snap.snapshot.meta.node_fields
  const types = snap.snapshot.meta.node_types[0]
  const width = fields.length
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map(f => fields.indexOf(f))
  const by = new Map<string, { count: number, bytes: number }>()
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!
    const what = type === 'object' || type === 'closure' || type === 'native' ? `${type} ${snap.strings[snap.nodes[i + nameAt]!]}` : type
    const s = by.get(what) ?? { count: 0, bytes: 0 }
    s.count++
    s.bytes += snap.nodes[i + sizeAt]!
    by.set(what, s)
  }
  return [...by].sort((a, b) => b[1].bytes - a[1].bytes)
}

const db = await scratchDatabase('cache_memory')
try {
  process.stderr.write(`filling ${objects} ConfigMaps\n`)
  await fillConfigMaps(db.url, storedTemplate(), n => `ns-${n % 100}`, 'm', objects)
  const storage = await createPostgresStorage({ url: db.url })
  gc(); gc()
  const before = process.memoryUsage()
  const caches = createWatchCaches(storage)
  const prefix = storageKey(configMaps, 'x', 'y').replace(/x\/y$/, '')
  const cache = caches.register(prefix, (obj: { metadata: { name: string, namespace: string, labels?: Record<string, string> } }) =>
    ({ labels: { ...obj.metadata.labels }, fields: { 'metadata.name': obj.metadata.name, 'metadata.namespace': obj.metadata.namespace } }))
  const started = performance.now()
  await caches.start()
  const fillMs = performance.now() - started
  let json = 0
  for (const o of cache.list(prefix)) json += o.json.length
  gc(); gc()
  const after = process.memoryUsage()
  process.stdout.write(`${cache.size} objects, ${mib(json)} of JSON; fill ${fillMs.toFixed(0)} ms\n`)
  for (const k of ['rss', 'heapUsed', 'external', 'arrayBuffers'] as const) {
    process.stdout.write(`${k.padEnd(12)} ${mib(after[k] - before[k]).padStart(10)}  (${((after[k] - before[k]) / json).toFixed(2)}x the JSON)\n`)
  }
  const file = join(tmpdir(), `cache-memory-${process.pid}.heapsnapshot`)
  writeHeapSnapshot(file)
  process.stdout.write(`heap snapshot, by kind (self sizes, the whole process):\n`)
  for (const [what, s] of summarise(file).slice(0, top)) process.stdout.write(`${mib(s.bytes).padStart(10)} ${String(s.count).padStart(9)}  ${what}\n`)
  rmSync(file)
  caches.stop()
  await storage.close()
} finally {
  await db.drop()
}
