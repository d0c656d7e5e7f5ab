// One run of the fault harness: the cluster, the workload, the faults in turn, then the check
// of everything recorded against the database's log.
import { keyPrefix } from '../resources/define.js'
import { createPostgresStorage } from '../storage/postgres.js'
import { check, type Report } from './checker.js'
import { startCluster, withDatabase } from './cluster.js'
import { FAULTS, type FaultContext } from './faults.js'
import type { CompactionRecord, LogEntry } from './history.js'
import { NAMESPACE, Workload } from './workload.js'

export interface RunOptions {
  servers: number
  writersPerServer: number
  /** Passes over every fault; the last pass may be cut short by `durationMs` (counted from the workload's start). */
  rounds: number
  durationMs?: number
  /** Workload time between two faults. */
  pauseMs: number
  log: (line: string) => void
}

export interface RunResult { report: Report, injected: Array<{ fault: string, outcome: string }> }

const PREFIX = `${keyPrefix({ group: '', plural: 'configmaps' })}${NAMESPACE}/`
const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/**
 * The log as committed, compaction or not: a trigger copies each event row in the transaction
 * that writes it, into a table the server knows nothing of.
 */
const RECORD_LOG_SQL = `
CREATE TABLE IF NOT EXISTS faults_log (revision bigint PRIMARY KEY, key text NOT NULL, type text NOT NULL, value text NOT NULL);
CREATE OR REPLACE FUNCTION faults_log_copy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO faults_log (revision, key, type, value) VALUES (NEW.revision, NEW.key, NEW.type, NEW.value);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS faults_log_copy ON events;
CREATE TRIGGER faults_log_copy AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION faults_log_copy();
`

async function retry<T> (fn: () => Promise<T>, attempts = 50): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn()
    } catch (err) {
      if (i >= attempts) throw err
      await sleep(200)
    }
  }
}

export async function runFaults (opts: RunOptions): Promise<RunResult> {
  const cluster = await startCluster({ servers: opts.servers, log: opts.log })
  opts.log(`${opts.servers} servers on one PostgreSQL (through the proxy on port ${cluster.proxy.port})`)
  const storage = await createPostgresStorage({ url: cluster.databaseUrl, minRetain: 0, poolSize: 2 })
  const compactions: CompactionRecord[] = []
  const injected: RunResult['injected'] = []
  const workload = new Workload({ agent: cluster.agent, count: opts.servers, url: i => cluster.servers[i]!.url })
  const ctx: FaultContext = { storage, compactions, workload }
  try {
    await withDatabase(cluster.databaseUrl, c => c.query(RECORD_LOG_SQL))
    await workload.start({ writersPerServer: opts.writersPerServer })
    const started = Date.now()
    await sleep(opts.pauseMs)
    const out = (): boolean => opts.durationMs !== undefined && Date.now() - started > opts.durationMs
    for (let round = 0; round < opts.rounds && !out(); round++) {
      for (const fault of FAULTS) {
        if (out()) break
        const outcome = await fault.inject(cluster, ctx).catch((err: Error) => `the harness failed to inject it: ${err.message}`)
        opts.log(`fault: ${fault.name}: ${outcome}`)
        injected.push({ fault: fault.name, outcome })
        await sleep(opts.pauseMs)
      }
    }
    await workload.stopWriters()
    const head = (): Promise<number> => retry(() => withDatabase(cluster.databaseUrl, async c =>
      Number((await c.query('SELECT coalesce(max(revision), 0) AS head FROM faults_log WHERE key LIKE $1', [`${PREFIX}%`])).rows[0].head)))
    await workload.drain(head, 30_000)
    const log = await retry(() => withDatabase(cluster.databaseUrl, async c =>
      (await c.query<LogEntry>('SELECT revision::float8 AS revision, key, type, value FROM faults_log WHERE key LIKE $1 ORDER BY revision', [`${PREFIX}%`])).rows))
    const report = check({
      prefix: PREFIX,
      log,
      writes: workload.writes,
      watches: workload.watches,
      lists: workload.lists,
      compactions,
      reached: [...workload.reached].map(([watcher, revision]) => ({ watcher, revision }))
    })
    return { report, injected }
  } finally {
    await storage.close().catch(() => {})
    await cluster.stop()
  }
}

/** The figures a run prints. */
export function describe (r: RunResult): string[] {
  const f = r.report.figures
  return [
    `faults injected: ${r.injected.length} (${[...new Set(r.injected.map(i => i.fault))].join(', ')})`,
    `writes: ${f.acked} acknowledged, ${f.uncertain} uncertain (${f.uncertainPresent} in the log whole, ${f.uncertain - f.uncertainPresent} absent), ${f.failed} refused, ${f.lost} lost`,
    `watch events checked: ${f.eventsChecked}; gaps ${f.gaps}, duplicates ${f.duplicates}, out of order ${f.outOfOrder}`,
    `resumes: ${f.resumes} (${f.wrongResumes} wrong); 410s: ${f.expired}; paginated lists checked: ${f.listsChecked}; compactions: ${f.compactions}`,
    `violations: ${r.report.violations.length}`,
    ...r.report.violations.slice(0, 30).map(v => `  ${v.kind}: ${v.detail}`)
  ]
}
