// kubectl against a real HTTPS server: a realistic manifest of every configuration and storage
// kind applies, `kubectl get` shows each kind's columns, and an invalid manifest is refused with
// its field paths; deprecated content is created with the server's warning printed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'

const KUBECTL = '1.31'
const MANIFEST = join(import.meta.dirname, 'storage-manifest.yaml')

const COLUMNS: Record<string, string[]> = {
  storageclasses: ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE'],
  csidrivers: ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE'],
  csinodes: ['NAME', 'DRIVERS', 'AGE'],
  nodes: ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'],
  persistentvolumes: ['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'REASON', 'AGE'],
  persistentvolumeclaims: ['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'AGE'],
  configmaps: ['NAME', 'DATA', 'AGE'],
  secrets: ['NAME', 'TYPE', 'DATA', 'AGE'],
  pods: ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'],
  volumeattachments: ['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED', 'AGE'],
  csistoragecapacities: ['NAME', 'STORAGECLASSNAME', 'CAPACITY', 'AGE'],
  priorityclasses: ['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']
}

/** The column titles of kubectl's header line (titles may hold one space, columns are two apart). */
const header = (out: string): string[] => out.split('\n')[0]!.trim().split(/\s{2,}/)

test('kubectl applies a manifest of every kind and gets their columns', { skip: !hasKubectl(KUBECTL) }, async (t) => {
  const server = await startServer(t)
  const dir = server.dataDir
  const kubectl = (...args: string[]) => kubectlFor({ kubeconfig: server.kubeconfig, version: KUBECTL, home: dir }).attempt(args)

  const applied = await kubectl('apply', '--validate=false', '-f', MANIFEST)
  assert.ok(applied.ok, applied.out)
  assert.equal(applied.out.trim().split('\n').filter(l => l.endsWith(' created')).length, 13, applied.out)

  for (const [plural, columns] of Object.entries(COLUMNS)) {
    const got = await kubectl('get', plural, '--namespace', 'default')
    assert.ok(got.ok, got.out)
    assert.deepEqual(header(got.out), columns, `${plural}:\n${got.out}`)
  }

  const pv = await kubectl('get', 'pv', 'pv-nfs-1', '--no-headers')
  assert.match(pv.out, /^pv-nfs-1\s+1536Mi\s+RWX\s+Retain\s+Pending\s/)
  const pvc = await kubectl('get', 'pvc', '--namespace', 'default', '-o', 'name')
  assert.ok(pvc.out.split('\n').includes('persistentvolumeclaim/data'), pvc.out)
  const wide = await kubectl('get', 'pods', '--namespace', 'default', '-o', 'wide')
  assert.deepEqual(header(wide.out), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'])
  const claim = await kubectl('get', 'pvc', 'data', '--namespace', 'default', '-o', 'jsonpath={.spec.storageClassName} {.metadata.finalizers[0]}')
  assert.equal(claim.out, 'fast svc.io/pvc-protection')

  const classes = await kubectl('get', 'storageclasses', '--no-headers')
  assert.match(classes.out, /^fast \(default\)\s+ebs\.csi\.example\.com\s+Delete\s+WaitForFirstConsumer\s+true\s/)

  const deleted = await kubectl('delete', 'storageclass', 'fast')
  assert.ok(deleted.ok, deleted.out)
  assert.match(deleted.out, /storageclass.storage.svc.io "fast" deleted/)

  const bad = join(dir, 'bad.yaml')
  writeFileSync(bad, [
    'apiVersion: v1', 'kind: Pod', 'metadata: {name: bad, namespace: default}', 'spec:',
    '  containers: [{name: c, image: busybox}]', '  volumes:',
    '  - name: v', '    secret: {secretName: s, defaultMode: 1000, items: [{key: k, path: ../etc}]}'
  ].join('\n'))
  const refused = await kubectl('apply', '--validate=false', '-f', bad)
  assert.equal(refused.ok, false)
  assert.match(refused.out, /spec\.volumes\[0\]\.secret\.defaultMode: Invalid value: 1000: must be a number between 0 and 0777 \(octal\), both inclusive/)
  assert.match(refused.out, /spec\.volumes\[0\]\.secret\.items\[0\]\.path: Invalid value: "\.\.\/etc": must not contain '\.\.'/)

  // Deprecated content is created, and kubectl prints the server's warning on stderr.
  const recycled = await kubectlFor({ kubeconfig: server.kubeconfig, version: KUBECTL, home: dir }).check(['create', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'recycled' },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Recycle', nfs: { server: 'nfs.example.com', path: '/r' } }
  }))
  assert.match(recycled.stdout, /persistentvolume\/recycled created/)
  assert.match(recycled.stderr, /^Warning: spec\.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated\. Instead, the recommended approach is to use dynamic provisioning\.$/m)
})
