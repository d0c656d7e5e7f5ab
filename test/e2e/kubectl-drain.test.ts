// kubectl drain of a node whose pods a PodDisruptionBudget guards, as a user runs it: the node is
// cordoned, one pod is evicted (the budget, kept by the disruption controller, allows one
// disruption), the other refused until the budget goes, then the drain completes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { eventually } from '../helpers/eventually.js'

const MANIFEST = ['node-1', 'web-1', 'web-2'].map((name, i) => i === 0
  ? 'apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n'
  : `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, labels: {app: web}}\nspec: {nodeName: node-1, containers: [{name: c, image: nginx}]}\n`).join('---\n')

for (const version of ['1.27', '1.33']) {
  test(`kubectl ${version} drain evicts what the disruption budget allows, then the rest once it goes`, { skip: hasKubectl(version) ? false : `no kubectl ${version} installed` }, async (t) => {
    const server = await startServer(t)
    const kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version, home: join(server.dataDir, 'home'), timeoutMs: 60_000 })
    await kubectl.ok(['apply', '-f', '-'], MANIFEST)
    for (const pod of ['web-1', 'web-2']) {
      await kubectl.ok(['patch', 'pod', pod, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}'])
    }
    assert.equal(await kubectl.ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=1']), 'poddisruptionbudget.policy/web created\n')
    await eventually(async () => assert.equal(await kubectl.ok(['get', 'pdb', 'web', '-o', 'jsonpath={.status.disruptionsAllowed}']), '1'))

    const blocked = await kubectl.run(['drain', 'node-1', '--force', '--timeout=8s'])
    assert.notEqual(blocked.code, 0)
    assert.match(blocked.stdout + blocked.stderr, /node\/node-1 cordoned/)
    assert.match(blocked.stdout + blocked.stderr, /pod\/web-[12] evicted/)
    assert.match(blocked.stderr, /Cannot evict pod as it would violate the pod's disruption budget\./)
    assert.equal((await kubectl.ok(['get', 'pods', '-o', 'name'])).trim().split('\n').length, 1)
    assert.equal(await kubectl.ok(['get', 'node', 'node-1', '-o', 'jsonpath={.spec.unschedulable}']), 'true')

    await kubectl.ok(['delete', 'pdb', 'web'])
    const drained = await kubectl.ok(['drain', 'node-1', '--force', '--timeout=20s'])
    assert.match(drained, /node\/node-1 drained/)
    assert.equal((await kubectl.ok(['get', 'pods', '-o', 'name'])).trim(), '')
  })
}
