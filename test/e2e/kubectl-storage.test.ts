// kubectl against a real HTTPS server: a realistic manifest of every configuration and storage
// kind applies, `kubectl get` shows each kind's columns, and an invalid manifest is refused with
// its field paths.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { buildApp } from '../../server/app.js'
import { ensureCertificates, writeKubeconfig } from '../../auth/pki.js'
import { freshDatabase } from '../helpers/postgres.js'

const execFileP = promisify(execFile)
const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.31'
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

test('kubectl applies a manifest of every kind and gets their columns', { skip: !existsSync(KUBECTL) }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kinds-e2e-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const pki = await ensureCertificates(dir, {})
  const app = await buildApp({
    databaseUrl: await freshDatabase(t),
    compactionIntervalMs: 0,
    tls: { cert: pki.servingCertPem, key: pki.servingKeyPem, clientCA: pki.caCertPem }
  })
  t.after(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  writeKubeconfig(pki.paths.kubeconfig, { server: `https://127.0.0.1:${port}`, caCertPem: pki.caCertPem, clientCertPem: pki.adminCertPem, clientKeyPem: pki.adminKeyPem })
  const kubectl = async (...args: string[]) => {
    try {
      const { stdout } = await execFileP(KUBECTL, ['--kubeconfig', pki.paths.kubeconfig, ...args], { env: { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'cache') } })
      return { ok: true, out: stdout }
    } catch (err) {
      const e = err as { stdout?: string, stderr?: string }
      return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }
    }
  }

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
})
