// A pod as a kubectl user makes it, against the real server process: the admission plugins of
// the default set fill in the account, its token volume and mounts, and the priority; unknown plugin names stop
// start-up in a sentence.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { hasKubectl, kubectlBinary, kubectlFor } from '../helpers/kubectl.js'
import { runServer, startServer } from '../helpers/server.js'
import { POD_SERVICE_ACCOUNT, ROOT_CA_CONFIGMAP } from '../../resources/naming.js'

const KUBECTL = '1.31'

const kubectl = (config: string, ...args: string[]) => kubectlFor({ kubeconfig: config, version: KUBECTL }).run(args)

describe('pod admission with kubectl', { skip: hasKubectl(KUBECTL) ? false : `${kubectlBinary(KUBECTL)} is not installed` }, () => {
  it('kubectl run gets a pod with the default account, its projected token volume and priority 0; a system class gives its priority', async (t) => {
    const server = await startServer(t)
    const run = await kubectl(server.kubeconfig, 'run', 'web', '--image=nginx:1.27', '--restart=Never')
    assert.equal(run.code, 0, run.stderr)
    const got = await kubectl(server.kubeconfig, 'get', 'pod', 'web', '-o', 'yaml')
    assert.equal(got.code, 0, got.stderr)
    const pod = parse(got.stdout)
    assert.equal(pod.spec.serviceAccountName, 'default')
    const volume = pod.spec.volumes.find((v: { name: string }) => v.name.startsWith(POD_SERVICE_ACCOUNT.volumePrefix))
    assert.ok(volume, got.stdout)
    assert.deepEqual(volume.projected.sources.map((s: Record<string, unknown>) => Object.keys(s)[0]), ['serviceAccountToken', 'configMap', 'downwardAPI'])
    assert.equal(volume.projected.sources[0].serviceAccountToken.expirationSeconds, 3607)
    assert.equal(volume.projected.sources[1].configMap.name, ROOT_CA_CONFIGMAP)
    assert.deepEqual(pod.spec.containers[0].volumeMounts, [{ name: volume.name, mountPath: POD_SERVICE_ACCOUNT.mountPath, readOnly: true }])
    assert.equal(pod.spec.priority, 0)
    assert.equal(pod.spec.preemptionPolicy, 'PreemptLowerPriority')

    const classes = await kubectl(server.kubeconfig, 'get', 'priorityclasses')
    assert.equal(classes.code, 0, classes.stderr)
    assert.match(classes.stdout, /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\n/)
    assert.match(classes.stdout, /system-node-critical\s+2000001000\s+false\s+\S+\s+PreemptLowerPriority/)
    const critical = await kubectl(server.kubeconfig, 'run', 'critical', '--image=nginx:1.27', '--restart=Never', '--overrides={"spec":{"priorityClassName":"system-cluster-critical"}}')
    assert.equal(critical.code, 0, critical.stderr)
    const criticalPod = parse((await kubectl(server.kubeconfig, 'get', 'pod', 'critical', '-o', 'yaml')).stdout)
    assert.equal(criticalPod.spec.priority, 2000000000)

    const missing = await kubectl(server.kubeconfig, 'run', 'lost', '--image=nginx:1.27', '--overrides={"spec":{"serviceAccountName":"nobody"}}')
    assert.notEqual(missing.code, 0)
    assert.match(missing.stderr, /pods "lost" is forbidden: error looking up service account default\/nobody: serviceaccount "nobody" not found/)
  })

  it('an unknown admission plugin name stops start-up with a sentence naming it', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'admission-flags-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const child = runServer(['--data-dir', dir, '--storage-url', 'postgres://127.0.0.1:1/none', '--enable-admission-plugins', 'NamespaceLifecycle,PodSecurityPolicy'])
    let stderr = ''
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString() })
    const code = await new Promise(resolve => child.once('exit', resolve))
    assert.equal(code, 2)
    assert.match(stderr, /^error: enable-admission-plugins plugin "PodSecurityPolicy" is unknown; the known plugins are /)
  })
})
