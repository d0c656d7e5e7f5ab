// CPU time of the processes sharing the machine during a throughput workload, read from /proc:
// what the server, the database (or etcd) and the load generator each spent per request, so a
// missed ratio shows whether the cores ran out and who used them.
import { readdirSync, readFileSync } from 'node:fs'

/** Linux reports process CPU time in clock ticks of 1/100 s (USER_HZ). */
const MS_PER_TICK = 10

/** utime + stime of one process and all its threads, in ms; 0 once it is gone or off Linux. */
export function processCpuMs (pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the parenthesised command name, which may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK
  } catch {
    return 0
  }
}

/**
 * Ms so far that one process's threads spent runnable but waiting for a core (the scheduler's
 * run-queue delay, /proc/<pid>/task/<tid>/schedstat); 0 once it is gone or off Linux. Beside
 * the CPU figures it tells a workload short of cores from one short of work.
 */
export function processWaitMs (pid: number | 'self'): number {
  let tasks: string[]
  try { tasks = readdirSync(`/proc/${pid}/task`) } catch { return 0 }
  let ns = 0
  for (const tid of tasks) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1])
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ns / 1e6
}

/** `read` of each process whose command name is `comm` (every postgres backend, say), by pid. */
function byCommand (comm: string, read: (pid: number) => number): Map<number, number> {
  const byPid = new Map<number, number>()
  let entries: string[]
  try { entries = readdirSync('/proc') } catch { return byPid }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === comm) byPid.set(Number(entry), read(Number(entry)))
    } catch {
      // exited between the listing and the read
    }
  }
  return byPid
}

/** CPU ms so far of each process whose command name is `comm`, by pid. */
export const commandCpuMs = (comm: string): Map<number, number> => byCommand(comm, processCpuMs)
/** Run-queue wait ms so far of each process whose command name is `comm`, by pid. */
export const commandWaitMs = (comm: string): Map<number, number> => byCommand(comm, processWaitMs)

/** Busy CPU ms of the whole machine, every core summed (/proc/stat: all but idle and iowait). */
export function machineCpuMs (): number {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).map(Number)
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks
    return (user + nice + system + irq + softirq + steal) * MS_PER_TICK
  } catch {
    return 0
  }
}

/** A reading: one figure, or one per process (a process that starts meanwhile counts from zero). */
export type CpuReaders = Record<string, () => number | Map<number, number>>

function elapsed (before: number | Map<number, number>, after: number | Map<number, number>): number {
  if (typeof before === 'number' || typeof after === 'number') return Number(after) - Number(before)
  // Processes gone by the second reading are left out: their last figures are unknown.
  let total = 0
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0)
  return total
}

/**
 * CPU ms each reader's processes spend from `afterMs` from now (the end of the workload's
 * warm-up) until `done` settles.
 */
export async function cpuDuring<T> (readers: CpuReaders, afterMs: number, done: Promise<T>): Promise<{ result: T, cpuMs: Record<string, number> }> {
  const read = (): Record<string, number | Map<number, number>> => Object.fromEntries(Object.entries(readers).map(([name, r]) => [name, r()]))
  let before: Record<string, number | Map<number, number>> | undefined
  const timer = setTimeout(() => { before = read() }, afterMs)
  try {
    const result = await done
    const after = read()
    const from = before ?? after
    return { result, cpuMs: Object.fromEntries(Object.keys(readers).map(name => [name, elapsed(from[name]!, after[name]!)])) }
  } finally {
    clearTimeout(timer)
  }
}

/** The prefix that marks a reading of run-queue wait among CPU readings (see `splitWaits`). */
const WAIT = 'wait:'

/** Readers of run-queue wait, named so that they can sit among CPU readers in one `cpuDuring`. */
export function waitReaders (readers: CpuReaders): CpuReaders {
  return Object.fromEntries(Object.entries(readers).map(([name, r]) => [`${WAIT}${name}`, r]))
}

/** Parts one `cpuDuring` result into its CPU readings and its wait readings (by their own names). */
export function splitWaits (readings: Record<string, number>): { cpuMs: Record<string, number>, waitMs: Record<string, number> } {
  const cpuMs: Record<string, number> = {}
  const waitMs: Record<string, number> = {}
  for (const [name, ms] of Object.entries(readings)) {
    if (name.startsWith(WAIT)) waitMs[name.slice(WAIT.length)] = ms
    else cpuMs[name] = ms
  }
  return { cpuMs, waitMs }
}

/** `server 280 µs, postgres 110 µs` per request, for the table's notes (CPU or waiting alike). */
export function perRequest (cpuMs: Record<string, number>, requests: number): string {
  return Object.entries(cpuMs).map(([name, ms]) => `${name} ${Math.round(ms * 1000 / Math.max(1, requests))} µs`).join(', ')
}
