// The Python client (python3-kubernetes) on the disruption and scheduling paths and the
// networking kinds, as python-disruption.py prints them step by step.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startTestServer } from '../helpers/tls-app.js'

const PYTHON = '/usr/bin/python3'
const hasClient = spawnSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0

test('python client: budgets, evictions, bindings, endpoint slices and network policies', { skip: hasClient ? false : 'python3-kubernetes is not installed' }, async (t) => {
  const server = await startTestServer(t)
  const script = fileURLToPath(new URL('./python-disruption.py', import.meta.url))
  const { stdout } = await promisify(execFile)(PYTHON, [script, server.kubeconfig], { timeout: 90_000, env: { ...process.env, TMPDIR: server.dir } })
  const steps = Object.fromEntries(stdout.trim().split('\n').map(l => JSON.parse(l)).map(({ step, ...rest }) => [step, rest]))
  assert.deepEqual(steps, {
    'budget created': { minAvailable: 1, generation: 1 },
    'budget status': { currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 },
    'first evicted': { gone: true },
    'second refused': { status: 429, reason: 'TooManyRequests', message: 'Cannot evict pod as it would violate the pod\'s disruption budget.', retryAfter: null },
    bound: { status: 201, node: 'py-node' },
    'rebind refused': { status: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on pods/binding "py-pending": pod py-pending is already assigned to node "py-node"' },
    slices: { addresses: ['10.244.1.2'] },
    'netpol created': { policyTypes: ['Ingress'], protocol: 'TCP' }
  })
})
