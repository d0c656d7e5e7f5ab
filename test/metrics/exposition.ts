// Reads a text exposition into samples, and checks it with the Python Prometheus client's parser
// (the reference implementation's) when that is installed.
import { spawnSync } from 'node:child_process'

export interface Sample { name: string, labels: Record<string, string>, value: number }

export function samples (text: string): Sample[] {
  const out: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (m === null) throw new Error(`not an exposition line: ${line}`)
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = JSON.parse(`"${l[2]!}"`) as string
    out.push({ name: m[1]!, labels, value: Number(m[3]) })
  }
  return out
}

/** The one sample of `name` whose labels include `labels`; throws when there is none or several. */
export function value (all: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = all.filter(s => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}: ${JSON.stringify(all.filter(s => s.name === name).slice(0, 5))}`)
  return found[0]!.value
}

export function helpOf (text: string, name: string): string | undefined {
  return new RegExp(`^# HELP ${name} (.*)$`, 'm').exec(text)?.[1]
}

const PARSE = `
import sys
from prometheus_client.parser import text_string_to_metric_families
n = 0
for family in text_string_to_metric_families(sys.stdin.read()):
    n += len(family.samples)
print(n)
`

/** The number of samples Prometheus's Python parser reads, or undefined when it is not installed. */
export function parsedByPrometheus (text: string): number | undefined {
  // The python3 on PATH may be another installation than the system one Debian's package fills.
  const python = ['python3', '/usr/bin/python3'].find(p => spawnSync(p, ['-c', 'import prometheus_client'], { encoding: 'utf8' }).status === 0)
  if (python === undefined) return undefined
  const run = spawnSync(python, ['-c', PARSE], { input: text, encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`the Prometheus parser refused the exposition: ${run.stderr}`)
  return Number(run.stdout.trim())
}
