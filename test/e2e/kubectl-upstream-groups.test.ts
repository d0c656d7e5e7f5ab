// kubectl's commands that hard-code upstream group names or send bodies the way kubectl does:
// `auth reconcile` of an RBAC manifest (whose rules, naming upstream groups, then grant our
// kinds: `auth can-i`), `create -f` of a manifest in an upstream group (listed in discovery under
// --discovery-upstream-groups), `describe node` reading the node's Lease, `create --raw` with a charset, and
// `create --dry-run=server` of a name that exists.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { hasKubectl, kubectlFor, type Kubectl } from '../helpers/kubectl.js'
import { startServer, type RunningServer } from '../helpers/server.js'
import { upstreamGroup } from '../../resources/naming.js'

const RBAC = upstreamGroup('rbac.authorization')
/** Where kubectl looks for a node's Lease: upstream's node-lease namespace, a name kubectl hard-codes. */
const NODE_LEASE_NAMESPACE = 'kube-node-lease'
const MANIFEST = `apiVersion: ${RBAC}/v1
kind: ClusterRole
metadata:
  name: lease-reader
rules:
- apiGroups: ["${upstreamGroup('coordination')}"]
  resources: ["leases"]
  verbs: ["get", "list"]
---
apiVersion: ${RBAC}/v1
kind: RoleBinding
metadata:
  name: lease-reader
  namespace: default
roleRef:
  apiGroup: ${RBAC}
  kind: ClusterRole
  name: lease-reader
subjects:
- kind: User
  name: jane
  apiGroup: ${RBAC}
`

describe('kubectl with upstream group names', { skip: hasKubectl('1.33') ? false : 'no kubectl 1.33 installed' }, () => {
  let server: RunningServer
  let kubectl: Kubectl
  const cleanups: Array<() => unknown> = []
  before(async () => {
    // Discovery lists the upstream names too, so kubectl maps manifests written with them.
    server = await startServer({ after: fn => { cleanups.push(fn) } }, ['--authorization-mode', 'RBAC', '--discovery-upstream-groups'])
    kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version: '1.33' })
  })
  after(async () => { for (const fn of cleanups) await fn() })

  it('auth reconcile creates, then adds only what is missing, and the rules grant what they name', async () => {
    const first = await kubectl.ok(['auth', 'reconcile', '-f', '-'], MANIFEST)
    assert.match(first, new RegExp(`clusterrole.${RBAC.replaceAll('.', '\\.')}/lease-reader reconciled`))
    assert.match(first, /rolebinding\..*\/lease-reader reconciled/)
    const more = await kubectl.run(['auth', 'reconcile', '-f', '-'], MANIFEST.replace('verbs: ["get", "list"]', 'verbs: ["get", "list", "watch"]'))
    assert.equal(more.code, 0, more.stderr)
    assert.match(more.stderr, /missing rules added:[\s\S]*Verbs:\[watch\]/)
    const role = JSON.parse(await kubectl.ok(['get', 'clusterrole', 'lease-reader', '-o', 'json']))
    // Reconcile appends what is missing as rules of their own.
    assert.deepEqual(role.rules.flatMap((r: { verbs: string[] }) => r.verbs).sort(), ['get', 'list', 'watch'])
    const can = await kubectl.run(['auth', 'can-i', 'list', 'leases', '--as', 'jane', '-n', 'default'])
    assert.equal(can.stdout.trim(), 'yes', can.stderr)
    const cannot = await kubectl.run(['auth', 'can-i', 'delete', 'leases', '--as', 'jane', '-n', 'default'])
    assert.equal(cannot.stdout.trim(), 'no')
  })

  it('create --raw with kubectl\'s charset parameter, and --dry-run=server of an existing name', async () => {
    const manifest = await kubectl.ok(['create', 'configmap', 'raw-made', '--from-literal=k=v', '-o', 'json', '--dry-run=client'])
    const created = JSON.parse(await kubectl.ok(['create', '--raw', '/api/v1/namespaces/default/configmaps', '-f', '-'], manifest))
    assert.equal(created.metadata.name, 'raw-made')
    const again = await kubectl.run(['create', 'configmap', 'raw-made', '--from-literal=k=v', '--dry-run=server'])
    assert.notEqual(again.code, 0)
    assert.match(again.stderr, /configmaps "raw-made" already exists/)
  })

  it('create -f of an upstream manifest, and describe node reading the node\'s Lease through the upstream group', async () => {
    await kubectl.ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'leased-node' } }))
    const renewed = new Date().toISOString().replace(/\.\d+Z$/, '.000000Z')
    await kubectl.ok(['create', 'namespace', NODE_LEASE_NAMESPACE])
    await kubectl.ok(['create', '-f', '-'], JSON.stringify({
      apiVersion: `${upstreamGroup('coordination')}/v1`, kind: 'Lease',
      metadata: { name: 'leased-node', namespace: NODE_LEASE_NAMESPACE },
      spec: { holderIdentity: 'leased-node', leaseDurationSeconds: 40, renewTime: renewed }
    }))
    const text = await kubectl.ok(['describe', 'node', 'leased-node'])
    assert.match(text, /Lease:\s*\n\s*HolderIdentity:\s+leased-node/)
    assert.match(text, /RenewTime:/)
  })
})
