// kubectl apply --server-side on every installed kubectl (1.27 to 1.33): a ConfigMap, a Pod
// with containers and ports, a StorageClass; conflicts and --force-conflicts; --dry-run=server;
// the migration from client-side apply. Versions run a few at a time, each in its own namespace.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer, type RunningServer } from '../helpers/server.js'
import { kubectlFor, selectedKubectlMinors } from '../helpers/kubectl.js'

const SELECTED = selectedKubectlMinors()

let server: RunningServer
const homes = new Map<number, string>()

/** kubectl 1.`minor`, with a home of its own (its discovery cache) per version. */
const kubectlOf = (minor: number) => kubectlFor({ kubeconfig: server.kubeconfig, version: `1.${minor}`, home: homes.get(minor) })
const kubectl = (minor: number, args: string[], input?: string) => kubectlOf(minor).run(args, input)

async function ok (minor: number, args: string[], input?: string): Promise<string> {
  const r = await kubectl(minor, args, input)
  assert.equal(r.code, 0, `kubectl.1.${minor} ${args.join(' ')} exited ${r.code}\n${r.stderr}${r.stdout}`)
  return r.stdout
}

const managers = (obj: any): Array<[string, string]> => (obj.metadata.managedFields ?? []).map((e: any) => [e.manager, e.operation])

const cleanups: Array<() => unknown> = []
after(async () => { for (const fn of cleanups.reverse()) await fn() })

before(async () => {
  server = await startServer({ after: (fn) => { cleanups.push(fn) } })
  for (const v of SELECTED) homes.set(v, mkdtempSync(join(tmpdir(), `kubectl-apply-home-${v}-`)))
})

describe('kubectl apply --server-side', { concurrency: 3, skip: SELECTED.length === 0 ? 'no kubectl binaries installed' : false }, () => {
  for (const v of SELECTED) {
    const ns = `ssa-1-${v}`
    const cm = (name: string, data: Record<string, string>) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data })
    const get = async (...args: string[]) => JSON.parse(await ok(v, ['get', ...args, '-o', 'json', '--show-managed-fields']))

    describe(`kubectl 1.${v}`, { concurrency: 1 }, () => {
      it('creates its namespace by apply', async () => {
        const out = await ok(v, ['apply', '--server-side', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }))
        assert.match(out, new RegExp(`namespace/${ns} serverside-applied`))
      })

      it('applies a ConfigMap, then merges a change', async () => {
        assert.match(await ok(v, ['apply', '--server-side', '-f', '-'], cm('settings', { a: '1', b: '2' })), /configmap\/settings serverside-applied/)
        assert.match(await ok(v, ['apply', '--server-side', '-f', '-'], cm('settings', { a: '1', b: '3' })), /configmap\/settings serverside-applied/)
        const obj = await get('cm', 'settings', '-n', ns)
        assert.deepEqual(obj.data, { a: '1', b: '3' })
        assert.deepEqual(managers(obj), [['kubectl', 'Apply']])
        assert.deepEqual(obj.metadata.managedFields[0].fieldsV1, { 'f:data': { 'f:a': {}, 'f:b': {} } })
      })

      it('reports a conflict with another manager, and --force-conflicts takes the field', async () => {
        await ok(v, ['patch', 'cm', 'settings', '-n', ns, '--type', 'merge', '-p', '{"data":{"b":"patched"}}'])
        const clash = await kubectl(v, ['apply', '--server-side', '-f', '-'], cm('settings', { a: '1', b: '4' }))
        assert.notEqual(clash.code, 0)
        assert.match(clash.stderr, /Apply failed with 1 conflict: conflict with "kubectl-patch" using v1: \.data\.b/)
        assert.match(await ok(v, ['apply', '--server-side', '--force-conflicts', '-f', '-'], cm('settings', { a: '1', b: '4' })), /serverside-applied/)
        const obj = await get('cm', 'settings', '-n', ns)
        assert.equal(obj.data.b, '4')
        assert.deepEqual(managers(obj), [['kubectl', 'Apply']])
      })

      it('--dry-run=server changes nothing', async () => {
        const before = await get('cm', 'settings', '-n', ns)
        assert.match(await ok(v, ['apply', '--server-side', '--dry-run=server', '-f', '-'], cm('settings', { a: 'dry' })), /serverside-applied \(server dry run\)/)
        const after = await get('cm', 'settings', '-n', ns)
        assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion)
        assert.equal(after.data.a, '1')
      })

      it('applies a Pod with containers and ports, then changes an image', async () => {
        const pod = (image: string) => JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'web', namespace: ns, labels: { app: 'web' } },
          spec: {
            automountServiceAccountToken: false,
            containers: [
              { name: 'web', image, ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }] },
              { name: 'side', image: 'busybox', command: ['sleep', '3600'] }
            ]
          }
        })
        assert.match(await ok(v, ['apply', '--server-side', '-f', '-'], pod('nginx:1')), /pod\/web serverside-applied/)
        assert.match(await ok(v, ['apply', '--server-side', '-f', '-'], pod('nginx:2')), /pod\/web serverside-applied/)
        const obj = await get('pod', 'web', '-n', ns)
        assert.equal(obj.spec.containers[0].image, 'nginx:2')
        assert.equal(obj.spec.containers[0].ports[0].protocol, 'TCP')
        const containers = obj.metadata.managedFields.find((e: any) => e.manager === 'kubectl').fieldsV1['f:spec']['f:containers']
        assert.deepEqual(Object.keys(containers['k:{"name":"web"}']['f:ports']), ['k:{"containerPort":53,"protocol":"UDP"}', 'k:{"containerPort":80,"protocol":"TCP"}'])
        assert.ok(containers['k:{"name":"side"}'] !== undefined)
      })

      it('applies a StorageClass', async () => {
        const sc = (tier: string) => JSON.stringify({ apiVersion: 'storage.svc.io/v1', kind: 'StorageClass', metadata: { name: `${ns}-fast`, labels: { tier } }, provisioner: 'example.io/disk', reclaimPolicy: 'Retain', parameters: { type: 'ssd' } })
        assert.match(await ok(v, ['apply', '--server-side', '-f', '-'], sc('gold')), /storageclass\.storage\.svc\.io\/ssa-1-\d+-fast serverside-applied/)
        assert.match(await ok(v, ['apply', '--server-side', '-f', '-'], sc('silver')), /serverside-applied/)
        const obj = await get('storageclass', `${ns}-fast`)
        assert.equal(obj.metadata.labels.tier, 'silver')
        assert.equal(obj.volumeBindingMode, 'Immediate', 'defaults fill what the configuration leaves out')
        assert.deepEqual(managers(obj), [['kubectl', 'Apply']])
        await ok(v, ['delete', 'storageclass', `${ns}-fast`])
      })

      it('migrates a client-side applied object to server-side apply', async () => {
        await ok(v, ['apply', '-f', '-'], cm('migrated', { a: '1' }))
        const csa = await get('cm', 'migrated', '-n', ns)
        assert.deepEqual(managers(csa), [['kubectl-client-side-apply', 'Update']])
        await ok(v, ['apply', '--server-side', '-f', '-'], cm('migrated', { a: '1', b: '2' }))
        const ssa = await get('cm', 'migrated', '-n', ns)
        // kubectl keeps its last-applied annotation under a manager of its own.
        assert.deepEqual(managers(ssa).filter(([m]) => m !== 'kubectl-last-applied'), [['kubectl', 'Apply']])
        const owned = ssa.metadata.managedFields.find((e: any) => e.manager === 'kubectl').fieldsV1
        assert.deepEqual(owned['f:data'], { 'f:a': {}, 'f:b': {} })
        const lastApplied = JSON.parse(ssa.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'])
        assert.deepEqual(lastApplied.data, { a: '1', b: '2' }, 'the server keeps the client-side annotation current')
        // The fields kubectl applied client-side are kubectl's now: leaving one out removes it.
        await ok(v, ['apply', '--server-side', '-f', '-'], cm('migrated', { b: '2' }))
        assert.deepEqual((await get('cm', 'migrated', '-n', ns)).data, { b: '2' })
      })

      it('deletes its namespace', async () => {
        await ok(v, ['delete', 'namespace', ns, '--wait=false'])
      })
    })
  }
})
