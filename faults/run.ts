// `npm run faults`: the long tier of the fault harness. Several servers on one PostgreSQL, every
// fault in turn, round after round, for FAULTS_SECONDS (default 180); exits 1 on any violation.
// FAULTS_SERVERS (default 3) and FAULTS_WRITERS (writers per server, default 2) size it.
import { describe, runFaults } from './harness.js'

const num = (name: string, fallback: number): number => {
  const v = Number(process.env[name])
  return Number.isFinite(v) && v > 0 ? v : fallback
}

const seconds = num('FAULTS_SECONDS', 180)
const started = Date.now()
const result = await runFaults({
  servers: num('FAULTS_SERVERS', 3),
  writersPerServer: num('FAULTS_WRITERS', 2),
  rounds: Number.MAX_SAFE_INTEGER,
  durationMs: seconds * 1000,
  pauseMs: 2000,
  log: line => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`)
})
for (const line of describe(result)) console.log(line)
process.exit(result.report.violations.length === 0 ? 0 : 1)
