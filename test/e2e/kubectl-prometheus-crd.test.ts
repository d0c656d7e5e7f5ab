// kubectl 1.33 with a large real-world definition: prometheus-operator's Prometheus CRD (800 KB,
// CEL rules, printer columns with filter paths, a scale subresource on spec.shards), from
// test/fixtures. Its rules are compiled and cost-checked when it is written, refuse what they
// refuse with the project's messages, and `kubectl scale` changes the shards.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { hasKubectl, kubectlFor, type Kubectl } from '../helpers/kubectl.js'
import { startServer, type RunningServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'

const MANIFEST = join(import.meta.dirname, '..', 'fixtures', 'prometheuses-crd.yaml')
const CRD = 'prometheuses.monitoring.coreos.com'

const prometheus = (name: string, spec: Record<string, unknown>): string =>
  JSON.stringify({ apiVersion: 'monitoring.coreos.com/v1', kind: 'Prometheus', metadata: { name, namespace: 'default' }, spec })

describe('kubectl with prometheus-operator\'s Prometheus CRD', { concurrency: 1, skip: hasKubectl('1.33') ? false : 'no kubectl 1.33 installed' }, () => {
  let server: RunningServer
  let kubectl: Kubectl
  const cleanups: Array<() => unknown> = []
  before(async () => {
    server = await startServer({ after: fn => { cleanups.push(fn) } }, ['--discovery-upstream-groups'])
    kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version: '1.33', home: server.dataDir })
  })
  after(async () => { for (const fn of cleanups.reverse()) await fn() })

  it('creates the definition (too large for a client-side apply\'s annotation) and establishes it', async () => {
    assert.match(await kubectl.ok(['create', '-f', MANIFEST]), /prometheuses\.monitoring\.coreos\.com created/)
    await kubectl.ok(['wait', '--for', 'condition=established', '--timeout', '30s', `crd/${CRD}`])
    await eventually(async () => { await kubectl.ok(['get', 'prometheuses']) })
  })

  it('refuses an object its CEL rules refuse, with the project\'s message', async () => {
    const res = await kubectl.run(['create', '-f', '-'], prometheus('zoned', { shardingStrategy: { topology: { values: ['a', 'b'] } } }))
    assert.notEqual(res.code, 0)
    assert.match(res.stderr, /spec\.shardingStrategy: Invalid value: "object": topology can only be defined when mode is set to 'Topology'/)
  })

  it('creates one, shows its printer columns, and scales its shards', async () => {
    await kubectl.ok(['create', '-f', '-'], prometheus('k8s', { version: 'v3.0.0', replicas: 2 }))
    assert.equal(await kubectl.ok(['get', 'prometheus', 'k8s', '-o', 'jsonpath={.spec.shards}']), '1')
    await kubectl.ok(['patch', 'prometheus', 'k8s', '--subresource', 'status', '--type', 'merge', '-p', JSON.stringify({ status: { availableReplicas: 2, shards: 1, conditions: [{ type: 'Reconciled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }, { type: 'Available', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }] } })])
    const table = (await kubectl.ok(['get', 'prometheus', 'k8s'])).trim().split('\n').map(l => l.trim().split(/\s+/))
    assert.deepEqual(table[0], ['NAME', 'VERSION', 'DESIRED', 'READY', 'RECONCILED', 'AVAILABLE', 'AGE'])
    assert.deepEqual(table[1]!.slice(0, 6), ['k8s', 'v3.0.0', '2', '2', 'True', 'False'])
    assert.match(await kubectl.ok(['scale', 'prometheus', 'k8s', '--replicas', '3']), /prometheus\.monitoring\.coreos\.com\/k8s scaled/)
    assert.equal(await kubectl.ok(['get', 'prometheus', 'k8s', '-o', 'jsonpath={.spec.shards}']), '3')
    assert.match(await kubectl.ok(['explain', 'prometheus.spec.shards']), /shards defines the number of shards/)
  })

  it('deletes the definition with its objects', async () => {
    await kubectl.ok(['delete', 'crd', CRD, '--timeout', '60s'])
    const gone = await kubectl.run(['get', 'prometheuses'])
    assert.notEqual(gone.code, 0)
  })
})
