// Where the request path allocates: runs bench/inject.ts under V8's sampling heap profiler,
// counting collected objects too, and lists bytes allocated per request by function. Garbage is
// what the young-generation collector pays for, so this is the list to shorten when the
// collector shows in a profile.
//   npx tsx bench/allocations.ts [create|get|update] [requests] [concurrency]   (as bench/inject.ts)
import { Session } from 'node:inspector/promises'

/** One node of V8's sampled allocation tree. */
interface AllocationNode { callFrame: { functionName: string, url: string, lineNumber: number }, selfSize: number, children: AllocationNode[] }

const session = new Session()
session.connect()
await session.post('HeapProfiler.enable')
// Sampling every KiB on average; without the two flags only objects still alive at the end count.
await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never)
await import('./inject.js')
const { profile } = await session.post('HeapProfiler.stopSampling') as unknown as { profile: { head: AllocationNode } }
session.disconnect()

const project = `file://${process.cwd()}/`
const bytesBy = new Map<string, number>()
let total = 0
const visit = (node: AllocationNode): void => {
  const { functionName, url, lineNumber } = node.callFrame
  const where = `${functionName === '' ? '(anonymous)' : functionName} ${url.replace(project, '')}:${lineNumber + 1}`
  bytesBy.set(where, (bytesBy.get(where) ?? 0) + node.selfSize)
  total += node.selfSize
  for (const child of node.children) visit(child)
}
visit(profile.head)

// inject.ts's warm-up requests are sampled too.
const requests = Number(process.argv[3] ?? 20000) + 2000
process.stdout.write(`${Math.round(total / requests)} bytes allocated per request (inject's own share included)\n`)
for (const [where, bytes] of [...bytesBy].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
  process.stdout.write(`${String(Math.round(bytes / requests)).padStart(7)} B  ${where}\n`)
}
