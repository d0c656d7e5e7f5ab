// The Python client (python3-kubernetes) with a real project's CustomResourceDefinition
// (prometheus-operator's ServiceMonitor, in test/fixtures): created and waited on through
// ApiextensionsV1Api, then instances driven through the dynamic client (which finds the kind by
// discovery) and through CustomObjectsApi, as python-custom-resources.py prints them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startTestServer } from '../helpers/tls-app.js'

const PYTHON = '/usr/bin/python3'
const hasClient = spawnSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0
const MANIFEST = join(import.meta.dirname, '..', 'fixtures', 'servicemonitors-crd.yaml')

test('python client: a ServiceMonitor through the dynamic client and CustomObjectsApi', { skip: hasClient ? false : 'python3-kubernetes is not installed' }, async (t) => {
  const server = await startTestServer(t)
  const script = fileURLToPath(new URL('./python-custom-resources.py', import.meta.url))
  // The dynamic client caches discovery in a file of its own: kept in this server's directory.
  const { stdout } = await promisify(execFile)(PYTHON, [script, server.kubeconfig, MANIFEST], { timeout: 90_000, env: { ...process.env, TMPDIR: server.dir } })
  const steps = Object.fromEntries(stdout.trim().split('\n').map(l => JSON.parse(l)).map(({ step, ...rest }) => [step, rest]))
  const status = { bindings: [{ group: 'monitoring.coreos.com', resource: 'prometheuses', name: 'k8s', namespace: 'monitoring' }] }
  assert.deepEqual(steps, {
    established: { name: 'servicemonitors.monitoring.coreos.com', kind: 'ServiceMonitor', shortNames: ['smon'] },
    discovered: { name: 'servicemonitors', namespaced: true, shortNames: ['smon'], categories: ['prometheus-operator'], subresources: ['status'] },
    'dynamic created': { name: 'dyn', generation: 1, spec: { selector: { matchLabels: { app: 'web' } }, endpoints: [{ port: 'http' }] } },
    'dynamic got': { kind: 'ServiceMonitor', apiVersion: 'monitoring.coreos.com/v1', port: 'http' },
    'dynamic listed': { kind: 'ServiceMonitorList', names: ['dyn'] },
    'dynamic patched': { jobLabel: 'app', generation: 2 },
    'dynamic status patched': { status, generation: 2 },
    // The dynamic client's default patch is a strategic merge patch, which custom resources refuse.
    'dynamic strategic patch': {
      status: 415,
      reason: 'UnsupportedMediaType',
      message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml'
    },
    'dynamic deleted': { kind: 'Status', status: 'Success' },
    'custom created': { name: 'typed', spec: { selector: { matchLabels: { app: 'api' } }, endpoints: [{ port: 'http' }] } },
    'custom got': { kind: 'ServiceMonitor', uid: true },
    'custom listed': { kind: 'ServiceMonitorList', names: ['typed'] },
    'custom patched': { labels: { client: 'python', patched: 'yes' }, targetLabels: ['team'] },
    'custom status patched': { status },
    'custom invalid': steps['custom invalid'],
    'custom deleted': { kind: 'Status', status: 'Success' },
    'custom gone': { status: 404, reason: 'NotFound', message: 'servicemonitors.monitoring.coreos.com "typed" not found' }
  })
  // The schema's enum and required fields, each reported with its path (in no fixed order, as the reference's).
  const invalid = steps['custom invalid']
  assert.equal(invalid.status, 422)
  assert.equal(invalid.reason, 'Invalid')
  assert.match(invalid.message, /^ServiceMonitor\.monitoring\.coreos\.com "invalid" is invalid: \[/)
  assert.match(invalid.message, /spec\.endpoints\[0\]\.scheme: Unsupported value: "ftp": supported values: "http", "https", "HTTP", "HTTPS"/)
  assert.match(invalid.message, /spec\.selector: Required value/)
})
