// The one table the benchmark prints (also the README's Benchmarks section, as Markdown).

export interface Row {
  workload: string
  figure: string
  ceiling?: string
  /** figure / ceiling. */
  ratio?: number
  target: string
  /** undefined: a figure without a target. */
  pass?: boolean
  note?: string
}

/** The item whose key is the median (the lower of the middle two for an even count). */
export function medianOf<T> (items: T[], key: (item: T) => number): T {
  if (items.length === 0) throw new Error('no items')
  const sorted = [...items].sort((a, b) => key(a) - key(b))
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

export interface Machine { cpus: number, cpuModel: string, memoryGiB: number, node: string }

const cells = (r: Row): string[] => [
  r.workload,
  r.figure,
  r.ceiling ?? '-',
  r.ratio === undefined || !Number.isFinite(r.ratio) ? '-' : `${r.ratio.toFixed(2)}x`,
  r.target,
  r.pass === undefined ? (r.note ?? '-') : r.pass ? 'pass' : 'MISS'
]

const HEADER = ['workload', 'figure', 'ceiling (same run)', 'ratio', 'target', 'result']

/** Markdown, readable as plain text in a terminal too. */
export function formatTable (rows: Row[]): string {
  const all = [HEADER, ...rows.map(cells)]
  const widths = HEADER.map((_, i) => Math.max(...all.map(r => r[i]!.length)))
  const line = (r: string[]): string => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`
  return [line(HEADER), `|${widths.map(w => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(r => line(cells(r)))].join('\n')
}

export function printTable (rows: Row[], notes: string[], machine: Machine): void {
  process.stdout.write(`\n${formatTable(rows)}\n\n`)
  for (const n of notes) process.stdout.write(`note: ${n}\n`)
  process.stdout.write(`machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB, Node ${machine.node}\n`)
}
