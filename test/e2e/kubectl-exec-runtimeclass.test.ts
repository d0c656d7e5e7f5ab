// kubectl exec and kubectl get runtimeclass against the real server process: exec into a
// privileged pod with DenyExecOnPrivileged enabled shows the plugin's refusal; into a normal pod
// it shows the answer of a server that cannot reach the node agent (nothing listens at its
// port), over WebSocket (1.33) and SPDY (1.27) alike.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { GROUPS } from '../../resources/naming.js'
import { closedPort } from '../helpers/fake-node-agent.js'

const VERSIONS = ['1.33', '1.27'].filter(v => hasKubectl(v))

const kubectl = (version: string, config: string, ...args: string[]) => kubectlFor({ kubeconfig: config, version }).run(args)

describe('kubectl exec and runtime classes', { skip: VERSIONS.length > 0 ? false : 'no kubectl is installed' }, () => {
  it('exec shows the DenyExecOnPrivileged refusal, or the node agent that cannot be reached; get runtimeclass shows Name, Handler, Age', async (t) => {
    const server = await startServer(t, ['--enable-admission-plugins', 'DenyExecOnPrivileged'])
    const dir = mkdtempSync(join(tmpdir(), 'kubectl-exec-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const manifest = join(dir, 'objects.yaml')
    const agentPort = await closedPort()
    writeFileSync(manifest, [
      `apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  addresses:\n  - type: InternalIP\n    address: 127.0.0.1\n  daemonEndpoints:\n    kubeletEndpoint:\n      Port: ${agentPort}\n`,
      `apiVersion: ${GROUPS.node}/v1\nkind: RuntimeClass\nmetadata:\n  name: sandboxed\nhandler: runsc\noverhead:\n  podFixed:\n    cpu: 250m\n`,
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: privileged\nspec:\n  nodeName: n1\n  containers:\n  - name: main\n    image: nginx:1.27\n    securityContext:\n      privileged: true\n',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  nodeName: n1\n  runtimeClassName: sandboxed\n  containers:\n  - name: main\n    image: nginx:1.27\n',
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: pending\nspec:\n  containers:\n  - name: main\n    image: nginx:1.27\n'
    ].join('---\n'))
    const version = VERSIONS[0]!
    const applied = await kubectl(version, server.kubeconfig, 'apply', '-f', manifest)
    assert.equal(applied.code, 0, applied.stderr)

    const classes = await kubectl(version, server.kubeconfig, 'get', 'runtimeclass')
    assert.equal(classes.code, 0, classes.stderr)
    assert.match(classes.stdout, /^NAME\s+HANDLER\s+AGE\n/)
    assert.match(classes.stdout, /\nsandboxed\s+runsc\s+\S+\n/)
    const web = await kubectl(version, server.kubeconfig, 'get', 'pod', 'web', '-o', 'jsonpath={.spec.overhead.cpu}')
    assert.equal(web.stdout, '250m', web.stderr)

    for (const v of VERSIONS) {
      const refused = await kubectl(v, server.kubeconfig, 'exec', 'privileged', '--', 'ls')
      assert.notEqual(refused.code, 0)
      assert.match(refused.stderr, /Error from server \(Forbidden\): pods "privileged" is forbidden: cannot exec into or attach to a privileged container/, `kubectl ${v}: ${refused.stderr}`)
      const unreachable = await kubectl(v, server.kubeconfig, 'exec', 'web', '--', 'ls')
      assert.notEqual(unreachable.code, 0)
      assert.ok(unreachable.stderr.includes(`error dialing backend: dial tcp 127.0.0.1:${agentPort}: connect: connection refused`), `kubectl ${v}: ${unreachable.stderr}`)
      const pending = await kubectl(v, server.kubeconfig, 'exec', 'pending', '--', 'ls')
      assert.notEqual(pending.code, 0)
      assert.match(pending.stderr, /pod pending does not have a host assigned/, `kubectl ${v}: ${pending.stderr}`)
    }
  })
})
