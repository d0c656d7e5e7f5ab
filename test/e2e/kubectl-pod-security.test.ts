// Pod security standards as a kubectl user meets them on the real server process: a namespace
// labelled to enforce restricted refuses `kubectl run` and a privileged manifest with the
// reference server's messages, a warn label prints kubectl warnings, tightening enforce warns
// about the pods already there, and a label value that does not parse is refused.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlBinary, kubectlFor } from '../helpers/kubectl.js'
import { POD_SECURITY } from '../../resources/naming.js'

const KUBECTL = '1.31'

const kubectl = (config: string, ...args: string[]) => kubectlFor({ kubeconfig: config, version: KUBECTL }).run(args)

const label = (name: string): string => `${POD_SECURITY.labelPrefix}${name}`

const PRIVILEGED_POD = stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'shell' },
  spec: { containers: [{ name: 'shell', image: 'busybox', command: ['sleep', '3600'], securityContext: { privileged: true } }] }
})

describe('pod security with kubectl', { skip: hasKubectl(KUBECTL) ? false : `${kubectlBinary(KUBECTL)} is not installed` }, () => {
  it('refuses what enforce forbids, warns at the warn level, and warns about existing pods when enforce tightens', async (t) => {
    const server = await startServer(t)
    const config = server.kubeconfig
    const manifest = join(server.dataDir, 'privileged.yaml')
    writeFileSync(manifest, PRIVILEGED_POD)

    assert.equal((await kubectl(config, 'create', 'namespace', 'secure')).code, 0)
    const labelled = await kubectl(config, 'label', 'namespace', 'secure', `${label('enforce')}=restricted`)
    assert.equal(labelled.code, 0, labelled.stderr)
    assert.match(labelled.stdout, /namespace\/secure labeled/)

    const run = await kubectl(config, 'run', 'nginx', '--image=nginx', '-n', 'secure')
    assert.notEqual(run.code, 0)
    assert.equal(run.stderr.trim(),
      'Error from server (Forbidden): pods "nginx" is forbidden: violates PodSecurity "restricted:latest": ' +
      'allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), ' +
      'unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), ' +
      'runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), ' +
      'seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")')

    const applied = await kubectl(config, 'apply', '-f', manifest, '-n', 'secure')
    assert.notEqual(applied.code, 0)
    assert.match(applied.stderr, /pods "shell" is forbidden: violates PodSecurity "restricted:latest": privileged \(container "shell" must not set securityContext\.privileged=true\), allowPrivilegeEscalation != false/)
    assert.equal((await kubectl(config, 'get', 'pods', '-n', 'secure', '-o', 'name')).stdout, '')

    assert.equal((await kubectl(config, 'create', 'namespace', 'watched')).code, 0)
    assert.equal((await kubectl(config, 'label', 'namespace', 'watched', `${label('warn')}=baseline`)).code, 0)
    const warned = await kubectl(config, 'apply', '-f', manifest, '-n', 'watched')
    assert.equal(warned.code, 0, warned.stderr)
    assert.match(warned.stdout, /pod\/shell created/)
    assert.equal(warned.stderr.trim(), 'Warning: would violate PodSecurity "baseline:latest": privileged (container "shell" must not set securityContext.privileged=true)')

    const tightened = await kubectl(config, 'label', 'namespace', 'watched', `${label('enforce')}=baseline`)
    assert.equal(tightened.code, 0, tightened.stderr)
    assert.equal(tightened.stderr.trim(), [
      'Warning: existing pods in namespace "watched" violate the new PodSecurity enforce level "baseline:latest"',
      'Warning: shell: privileged'
    ].join('\n'))

    const invalid = await kubectl(config, 'label', 'namespace', 'watched', `${label('enforce-version')}=v2.0`)
    assert.notEqual(invalid.code, 0)
    assert.match(invalid.stderr, new RegExp(`The Namespace "watched" is invalid: metadata\\.labels\\[${label('enforce-version').replace(/\./g, '\\.')}\\]: Invalid value: "v2\\.0": must be "latest" or "v1\\.x"`))
  })
})
