// kubectl 1.33 against the started server: a CustomResourceDefinition from a real project's
// manifest (cert-manager's Certificate, in test/fixtures) applies under its upstream apiVersion,
// becomes Established (`kubectl wait`), shows in `kubectl get crd`, refuses an invalid change with
// the reference's field path, and goes on `kubectl delete`.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { hasKubectl, kubectlFor, type Kubectl } from '../helpers/kubectl.js'
import { startServer, type RunningServer } from '../helpers/server.js'

const MANIFEST = join(import.meta.dirname, '..', 'fixtures', 'certificates-crd.yaml')
const NAME = 'certificates.cert-manager.io'

describe('kubectl with CustomResourceDefinitions', { skip: hasKubectl('1.33') ? false : 'no kubectl 1.33 installed' }, () => {
  let server: RunningServer
  let kubectl: Kubectl
  const cleanups: Array<() => unknown> = []
  before(async () => {
    // Discovery lists the upstream names too, so kubectl maps apiextensions.k8s.io manifests.
    server = await startServer({ after: fn => { cleanups.push(fn) } }, ['--discovery-upstream-groups'])
    kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version: '1.33', home: server.dataDir })
  })
  after(async () => { for (const fn of cleanups) await fn() })

  it('applies a cert-manager CRD and waits for it to be established', async () => {
    const applied = await kubectl.ok(['apply', '-f', MANIFEST])
    assert.match(applied, new RegExp(`customresourcedefinition\\..*/${NAME.replaceAll('.', '\\.')} created`))
    const waited = await kubectl.ok(['wait', '--for', 'condition=established', '--timeout', '30s', `crd/${NAME}`])
    assert.match(waited, /condition met/)
    const crd = JSON.parse(await kubectl.ok(['get', 'crd', NAME, '-o', 'json']))
    assert.deepEqual(crd.status.acceptedNames.shortNames, ['cert', 'certs'])
    assert.deepEqual(crd.status.storedVersions, ['v1'])
    assert.ok(crd.metadata.finalizers.some((f: string) => f.startsWith('customresourcecleanup.')))
    const listed = await kubectl.ok(['get', 'crds', '--no-headers'])
    assert.match(listed, new RegExp(`^${NAME.replaceAll('.', '\\.')}\\s+\\d{4}-\\d\\d-\\d\\dT`, 'm'))
  })

  it('refuses a change of scope of an established definition with the reference message', async () => {
    const res = await kubectl.run(['patch', 'crd', NAME, '--type', 'merge', '-p', '{"spec":{"scope":"Cluster"}}'])
    assert.notEqual(res.code, 0)
    assert.match(res.stderr, /spec\.scope: Invalid value: "Cluster": field is immutable/)
  })

  it('deletes the definition', async () => {
    const deleted = await kubectl.ok(['delete', 'crd', NAME, '--timeout', '30s'])
    assert.match(deleted, /deleted/)
    const gone = await kubectl.run(['get', 'crd', NAME])
    assert.notEqual(gone.code, 0)
    assert.match(gone.stderr, /NotFound|not found/)
  })
})
