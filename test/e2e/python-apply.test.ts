// The Python client's dynamic server_side_apply (python3-kubernetes) against a started server.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startTestServer } from '../helpers/tls-app.js'

const PYTHON = '/usr/bin/python3'
const hasClient = spawnSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0

test('python client: dynamic server_side_apply creates, merges, conflicts and forces', { skip: hasClient ? false : 'python3-kubernetes is not installed' }, async (t) => {
  const server = await startTestServer(t)
  const script = fileURLToPath(new URL('./python-apply.py', import.meta.url))
  const { stdout } = await promisify(execFile)(PYTHON, [script, server.kubeconfig], { timeout: 60_000 })
  const steps = stdout.trim().split('\n').map(l => JSON.parse(l))
  assert.deepEqual(steps, [
    { step: 'created', data: { a: '1' }, managers: [['python', 'Apply']] },
    { step: 'merged', data: { a: '1', b: '2' }, managers: [['python', 'Apply']] },
    { step: 'conflict', status: 409, message: 'Apply failed with 1 conflict: conflict with "python": .data.a' },
    { step: 'forced', data: { a: 'x', b: '2' }, managers: steps[3].managers }
  ])
  assert.deepEqual([...steps[3].managers].sort(), [['other', 'Apply'], ['python', 'Apply']])
})
