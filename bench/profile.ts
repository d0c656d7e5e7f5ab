// Summarises a V8 CPU profile (node --cpu-prof): the functions with the most self time, and
// the files with the most, so the next thing to speed up is plain to see.
import { readFileSync } from 'node:fs'

interface Node { id: number, callFrame: { functionName: string, url: string, lineNumber: number }, children?: number[] }
interface Profile { nodes: Node[], samples: number[], timeDeltas: number[] }

const file = process.argv[2]
if (file === undefined) {
  process.stderr.write('usage: npx tsx bench/profile.ts <file.cpuprofile> [top]\n')
  process.exit(2)
}
const top = Number(process.argv[3] ?? 30)
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const byId = new Map(profile.nodes.map(n => [n.id, n]))
const self = new Map<number, number>()
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
let total = 0
for (const v of self.values()) total += v

const fnTime = new Map<string, number>()
const fileTime = new Map<string, number>()
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame
  const where = url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '')
  const fn = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`
  fnTime.set(fn, (fnTime.get(fn) ?? 0) + us)
  const f = where === '' ? `(${functionName})` : where.replace(/node_modules\/([^/]+(\/[^/]+)?)\/.*/, 'node_modules/$1')
  fileTime.set(f, (fileTime.get(f) ?? 0) + us)
}
const show = (title: string, m: Map<string, number>): void => {
  process.stdout.write(`\n${title}\n`)
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${(100 * us / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}\n`)
  }
}
process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s sampled\n`)
show('self time by function', fnTime)
show('self time by file or package', fileTime)
