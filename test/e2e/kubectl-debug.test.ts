// kubectl debug, as a user runs it against a running pod: the non-interactive form adds an
// ephemeral container through pods/ephemeralcontainers; PodSecurity sees that update and refuses a
// privileged debugger in a namespace enforcing baseline.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'

const POD = 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {nodeName: node-1, containers: [{name: app, image: nginx}]}\n'

test('kubectl debug adds an ephemeral container; PodSecurity judges it', { skip: hasKubectl('1.33') ? false : 'no kubectl 1.33 installed' }, async (t) => {
  const server = await startServer(t)
  const kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version: '1.33', home: join(server.dataDir, 'home'), timeoutMs: 60_000 })
  await kubectl.ok(['apply', '-f', '-'], POD)

  await kubectl.ok(['debug', 'web', '--image=busybox:1.36', '-c', 'dbg', '--target=app'])
  assert.equal(await kubectl.ok(['get', 'pod', 'web', '-o', 'jsonpath={.spec.ephemeralContainers[*].name}']), 'dbg')
  assert.equal(await kubectl.ok(['get', 'pod', 'web', '-o', 'jsonpath={.spec.ephemeralContainers[0].targetContainerName}']), 'app')

  // A second debugger keeps the first.
  await kubectl.ok(['debug', 'web', '--image=busybox:1.36', '-c', 'dbg2'])
  assert.deepEqual((await kubectl.ok(['get', 'pod', 'web', '-o', 'jsonpath={.spec.ephemeralContainers[*].name}'])).split(' ').sort(), ['dbg', 'dbg2'])

  await kubectl.ok(['label', 'namespace', 'default', 'pod-security.svc.io/enforce=baseline'])
  const privileged = await kubectl.run(['debug', 'web', '--image=busybox:1.36', '-c', 'root', '--profile=sysadmin'])
  assert.notEqual(privileged.code, 0)
  assert.match(privileged.stderr, /violates PodSecurity "baseline:latest": privileged \(container "root" must not set securityContext.privileged=true\)/)
  await kubectl.ok(['debug', 'web', '--image=busybox:1.36', '-c', 'plain', '--profile=baseline'])
  assert.equal((await kubectl.ok(['get', 'pod', 'web', '-o', 'jsonpath={.spec.ephemeralContainers[*].name}'])).split(' ').length, 3)
})
