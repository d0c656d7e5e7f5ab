// API Priority and Fairness through the built server and kubectl 1.33: the load-protection
// flags parse, `kubectl get flowschemas` lists the mandatory and suggested schemas with their
// Dangling condition as MISSINGPL, and the priority levels are listed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { eventually } from '../helpers/eventually.js'

const rows = (out: string): string[][] => out.trim().split('\n').map(l => l.trim().split(/\s{2,}/))

test('kubectl get flowschemas shows the bootstrap schemas and their status', { skip: !hasKubectl('1.33') }, async (t) => {
  const server = await startServer(t, ['--max-requests-inflight', '100', '--max-mutating-requests-inflight', '50', '--request-timeout', '30s', '--enable-priority-and-fairness=true'])
  const kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version: '1.33' })
  await eventually(async () => {
    const table = rows((await kubectl.check(['get', 'flowschemas'])).stdout)
    assert.deepEqual(table[0], ['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL'])
    const byName = new Map(table.slice(1).map(r => [r[0], r]))
    for (const name of ['exempt', 'probes', 'system-leader-election', 'workload-leader-election', 'endpoint-controller', 'system-node-high', 'system-nodes', 'svc-controller-manager', 'svc-scheduler', 'svc-system-service-accounts', 'service-accounts', 'global-default', 'catch-all']) {
      assert.ok(byName.has(name), `${name} listed`)
      assert.equal(byName.get(name)!.at(-1), 'False', `${name}'s level exists`)
    }
    assert.deepEqual(byName.get('global-default')!.slice(1, 4), ['global-default', '9900', 'ByUser'])
    assert.deepEqual(byName.get('exempt')!.slice(1, 4), ['exempt', '1', '<none>'])
  }, 30_000, 500)
  const levels = rows((await kubectl.check(['get', 'prioritylevelconfigurations'])).stdout)
  assert.deepEqual(levels.slice(1).map(r => r[0]).sort(), ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low'])
  const described = (await kubectl.check(['get', 'flowschema', 'global-default', '-o', 'jsonpath={.status.conditions[0].message}'])).stdout
  assert.equal(described, 'This FlowSchema references the PriorityLevelConfiguration object named "global-default" and it exists')
})
