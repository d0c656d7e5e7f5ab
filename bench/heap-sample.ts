// temporary
import { Session } from 'node:inspector/promises'
const s = new Session(); s.connect()
await s.post('HeapProfiler.enable')
await s.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as any)
await import('./inject.js')
const { profile } = await s.post('HeapProfiler.stopSampling') as any
const self = new Map<string, number>(); let total = 0
const visit = (n: any): void => { const sz = n.selfSize as number; total += sz; const f = n.callFrame; const k = `${f.functionName || '(anon)'} ${String(f.url).replace('file://' + process.cwd() + '/', '')}:${f.lineNumber + 1}`; self.set(k, (self.get(k) ?? 0) + sz); for (const c of n.children) visit(c) }
visit(profile.head)
const n = Number(process.argv[3] ?? 20000) + 2000
console.log(`total ${(total / n).toFixed(0)} bytes per request`)
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 45)) console.log(`${(v / n).toFixed(0).padStart(7)} B/req  ${k}`)
