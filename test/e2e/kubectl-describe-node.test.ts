// kubectl describe node shows what the node lifecycle controller made of a node that went silent:
// Ready Unknown and the unreachable taints; a cordon adds the unschedulable taint.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { eventually } from '../helpers/eventually.js'
import { NODE_TAINTS } from '../../resources/naming.js'

test('kubectl describe node shows the lifecycle controller\'s conditions and taints', { skip: hasKubectl('1.33') ? false : 'no kubectl 1.33 installed' }, async (t) => {
  const server = await startServer(t, ['--node-monitor-period=1s', '--node-monitor-grace-period=2s', '--node-startup-grace-period=2s'])
  const kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version: '1.33', home: join(server.dataDir, 'home'), timeoutMs: 60_000 })
  await kubectl.ok(['apply', '-f', '-'], 'apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n')
  const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z')
  await kubectl.ok(['patch', 'node', 'node-1', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready', lastHeartbeatTime: at, lastTransitionTime: at }] } })])
  await kubectl.ok(['cordon', 'node-1'])
  let described = ''
  await eventually(async () => {
    described = await kubectl.ok(['describe', 'node', 'node-1'])
    assert.match(described, new RegExp(`Taints:\\s+${NODE_TAINTS.unreachable}:NoExecute\\n\\s+${NODE_TAINTS.unreachable}:NoSchedule\\n\\s+${NODE_TAINTS.unschedulable}:NoSchedule`))
  }, 30_000)
  assert.match(described, /Unschedulable:\s+true/)
  assert.match(described, /Ready\s+Unknown\s+.*NodeStatusUnknown\s+Kubelet stopped posting node status\./)
})
