// The audit and metrics flags as the reference server names them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parseFlags } from '../../bin/flags.js'

test('--audit-* and --show-hidden-metrics-for-version flags', () => {
  const f = parseFlags(['--audit-policy-file', 'policy.yaml', '--audit-log-path=-', '--audit-log-maxage=7', '--audit-log-maxbackup', '3',
    '--audit-log-maxsize=100', '--show-hidden-metrics-for-version=1.32'], {})
  assert.equal(f.auditPolicyFile, 'policy.yaml')
  assert.equal(f.auditLogPath, '-')
  assert.deepEqual([f.auditLogMaxAge, f.auditLogMaxBackup, f.auditLogMaxSize], [7, 3, 100])
  assert.equal(f.showHiddenMetricsForVersion, '1.32')
  assert.throws(() => parseFlags(['--audit-log-maxsize=-1'], {}), /invalid --audit-log-maxsize "-1"/)
  assert.throws(() => parseFlags(['--audit-log-maxage=a'], {}), /invalid --audit-log-maxage "a"/)
})
