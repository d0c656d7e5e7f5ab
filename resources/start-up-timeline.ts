// Marks on the server's way to ready, each with the CPU time the process had used by then: the
// start-up timeline that `--log-level=debug` logs once the server is ready (bench/README.md
// reads it; on a busy machine the CPU figures say more than the clock). Marks are kept in
// Node's performance timeline until the timeline is taken; later ones are not recorded.
const PREFIX = 'start-up: '
let taken = false

export function markStartUp (what: string): void {
  if (!taken) performance.mark(PREFIX + what, { detail: process.cpuUsage() })
}

/** Each mark as `what: ms after the process started (CPU ms used by then)`, in order; clears them. */
export function takeStartUpTimeline (): string[] {
  taken = true
  const marks = (performance.getEntriesByType('mark') as PerformanceMark[]).filter(m => m.name.startsWith(PREFIX))
  for (const m of marks) performance.clearMarks(m.name)
  return marks.map((m) => {
    const cpu = m.detail as NodeJS.CpuUsage
    return `${m.name.slice(PREFIX.length)}: ${Math.round(m.startTime)} (${Math.round((cpu.user + cpu.system) / 1000)})`
  })
}
