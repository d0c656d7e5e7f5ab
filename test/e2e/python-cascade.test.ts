// The Python client (python3-kubernetes) deletes an owner with each propagationPolicy in
// V1DeleteOptions; the dependent goes (Background, Foreground) or stays without the reference (Orphan).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startTestServer } from '../helpers/tls-app.js'

const PYTHON = '/usr/bin/python3'
const hasClient = spawnSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0

test('python client: delete with each propagation policy', { skip: hasClient ? false : 'python3-kubernetes is not installed' }, async (t) => {
  const server = await startTestServer(t)
  const created = await server.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'pycascade' } } })
  assert.equal(created.statusCode, 201, created.body)
  const { stdout } = await promisify(execFile)(PYTHON, [fileURLToPath(new URL('./python-cascade.py', import.meta.url)), server.kubeconfig, 'pycascade'])
  const results = stdout.trim().split('\n').map(l => JSON.parse(l))
  assert.deepEqual(results, [
    { policy: 'Background', left: [], refs: null },
    { policy: 'Foreground', left: [], refs: null },
    { policy: 'Orphan', left: ['dep'], refs: null }
  ])
})
