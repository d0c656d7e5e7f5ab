// Two server processes on one database: a CustomResourceDefinition created through one replica
// is served by the other within moments (discovery, instances written on either seen on both),
// and its deletion through the other takes the kind away from both.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { startServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'

const MANIFEST = join(import.meta.dirname, '..', 'fixtures', 'servicemonitors-crd.yaml')
const CRD = 'servicemonitors.monitoring.coreos.com'

const serviceMonitor = (name: string): string => `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: ${name}
  namespace: default
spec:
  selector:
    matchLabels:
      app: ${name}
  endpoints:
  - port: http
`

test('a definition created through one replica is served by the other', { skip: hasKubectl('1.33') ? false : 'no kubectl 1.33 installed' }, async (t) => {
  const a = await startServer(t, ['--discovery-upstream-groups'])
  // The first one's database and certificate directory, a data directory of its own.
  const b = await startServer(t, ['--discovery-upstream-groups', '--storage-url', a.databaseUrl, '--cert-dir', join(a.dataDir, 'pki')])
  const onA = kubectlFor({ kubeconfig: a.kubeconfig, version: '1.33', home: join(a.dataDir, 'home') })
  const onB = kubectlFor({ kubeconfig: b.kubeconfig, version: '1.33', home: join(b.dataDir, 'home') })
  // kubectl's discovery cache of B is filled before the kind exists, as a user's would be.
  assert.equal(await onB.ok(['api-resources', '--api-group', 'monitoring.coreos.com', '--no-headers']), '')

  await onA.ok(['apply', '-f', MANIFEST])
  await onA.ok(['wait', '--for', 'condition=established', '--timeout', '30s', `crd/${CRD}`])
  const established = Date.now()
  // B serves the kind: kubectl on B finds it (refreshing its cache) and creates an instance.
  const created = await eventually(() => onB.ok(['create', '-f', '-'], serviceMonitor('from-b')), 5_000, 200)
  const servedAfterMs = Date.now() - established
  assert.equal(created, 'servicemonitor.monitoring.coreos.com/from-b created\n')
  assert.ok(servedAfterMs < 5_000, `served by the other replica after ${servedAfterMs} ms`)
  assert.match(await onB.ok(['api-resources', '--api-group', 'monitoring.coreos.com', '--no-headers']), /^servicemonitors\s+smon\s+monitoring\.coreos\.com\/v1\s+true\s+ServiceMonitor$/m)

  // Either replica's writes are the other's reads.
  await onA.ok(['create', '-f', '-'], serviceMonitor('from-a'))
  assert.equal(await onB.ok(['get', 'smon', '-o', 'name']), 'servicemonitor.monitoring.coreos.com/from-a\nservicemonitor.monitoring.coreos.com/from-b\n')
  assert.equal(await onA.ok(['get', 'smon', 'from-b', '-o', 'jsonpath={.spec.selector.matchLabels.app}']), 'from-b')
  await onB.ok(['patch', 'smon', 'from-a', '--type', 'merge', '-p', '{"spec":{"jobLabel":"b"}}'])
  await eventually(async () => assert.equal(await onA.ok(['get', 'smon', 'from-a', '-o', 'jsonpath={.spec.jobLabel}']), 'b'))

  // Deleted through B, the definition (and its instances) go from both.
  await onB.ok(['delete', 'crd', CRD, '--timeout', '30s'])
  await eventually(async () => {
    assert.equal(await onA.ok(['api-resources', '--api-group', 'monitoring.coreos.com', '--no-headers']), '')
    const gone = await onA.run(['get', 'smon'])
    assert.match(gone.stderr, /the server doesn't have a resource type "smon"/)
  }, 5_000, 200)
})
