// The fault harness's short tier (the long one is `npm run faults`): two servers on one
// PostgreSQL, every fault once under a running workload, then everything recorded checked
// against the database's log.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { FAULTS } from '../../faults/faults.js'
import { describe, runFaults } from '../../faults/harness.js'

test('every fault once: no acknowledged write lost, every watch whole and in order, every resume right', { timeout: 900_000 }, async () => {
  const lines: string[] = []
  const result = await runFaults({ servers: 2, writersPerServer: 1, rounds: 1, pauseMs: 1000, log: line => lines.push(line) })
  const report = describe(result)
  assert.deepEqual(result.report.violations, [], [...lines, ...report].join('\n'))
  assert.deepEqual(result.injected.map(i => i.fault), FAULTS.map(f => f.name))
  for (const i of result.injected) assert.doesNotMatch(i.outcome, /failed to inject/, i.fault)
  const f = result.report.figures
  assert.ok(f.acked > 0 && f.eventsChecked > 0 && f.resumes > 0 && f.listsChecked > 0, report.join('\n'))
})
