// @kubernetes/client-node's typed APIs hard-code the upstream group names (storage.k8s.io,
// coordination.k8s.io): its StorageV1Api works against this server, and leader election built
// on its CoordinationV1Api elects one leader across two server replicas and fails over.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import * as k8s from '@kubernetes/client-node'
import { startServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'
import { upstreamGroup } from '../../resources/naming.js'

const clientFor = <T extends k8s.ApiType>(kubeconfig: string, api: k8s.ApiConstructor<T>): T => {
  const kc = new k8s.KubeConfig()
  kc.loadFromFile(kubeconfig)
  return kc.makeApiClient(api)
}

const statusOf = (err: unknown): number | undefined => (err as { code?: number }).code

/**
 * A leader-election candidate as client-go's resource lock runs one: create the Lease when there
 * is none, take it when its holder has not renewed within the lease duration (measured on this
 * candidate's own clock from when it last saw the record change), renew it while holding it;
 * every write is optimistic, so of two candidates racing, one gets 409.
 */
class Candidate {
  leading = false
  /** What a round failed with other than losing a race: the test fails on any. */
  readonly errors: unknown[] = []
  private observed: { record: string, at: number } | undefined
  private timer: NodeJS.Timeout | undefined
  constructor (readonly identity: string, private readonly api: k8s.CoordinationV1Api, private readonly namespace: string, private readonly name: string, private readonly durationSeconds = 2) {}

  start (): void {
    const tick = (): void => { void this.tryAcquireOrRenew().catch((err: unknown) => { if (this.timer !== undefined) this.errors.push(err) }).finally(() => { if (this.timer !== undefined) this.timer = setTimeout(tick, 200) }) }
    this.timer = setTimeout(tick, 0)
  }

  stop (): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.leading = false
  }

  private async tryAcquireOrRenew (): Promise<void> {
    const now = new k8s.V1MicroTime()
    const spec: k8s.V1LeaseSpec = { holderIdentity: this.identity, leaseDurationSeconds: this.durationSeconds, acquireTime: now, renewTime: now }
    let lease: k8s.V1Lease
    try {
      lease = await this.api.readNamespacedLease({ namespace: this.namespace, name: this.name })
    } catch (err) {
      if (statusOf(err) !== 404) throw err
      try {
        await this.api.createNamespacedLease({ namespace: this.namespace, body: { metadata: { name: this.name }, spec } })
        this.leading = true
      } catch (e) {
        if (statusOf(e) !== 409) throw e
      }
      return
    }
    const record = JSON.stringify([lease.spec?.holderIdentity, lease.spec?.renewTime])
    if (this.observed?.record !== record) this.observed = { record, at: Date.now() }
    const heldByOther = lease.spec?.holderIdentity !== undefined && lease.spec.holderIdentity !== this.identity
    if (heldByOther && this.observed.at + this.durationSeconds * 1000 > Date.now()) {
      this.leading = false
      return
    }
    const held = heldByOther ? spec : { ...spec, acquireTime: lease.spec?.acquireTime ?? now, leaseTransitions: lease.spec?.leaseTransitions }
    if (heldByOther) held.leaseTransitions = (lease.spec?.leaseTransitions ?? 0) + 1
    try {
      await this.api.replaceNamespacedLease({ namespace: this.namespace, name: this.name, body: { ...lease, spec: held } })
      this.leading = true
    } catch (err) {
      if (statusOf(err) !== 409) throw err
      this.leading = false
    }
  }
}

test('client-node: StorageV1Api and leader election through CoordinationV1Api on two replicas', async (t) => {
  const a = await startServer(t)
  const b = await startServer(t, ['--storage-url', a.databaseUrl, '--cert-dir', join(a.dataDir, 'pki')])

  await t.test('StorageV1Api', async () => {
    const storage = clientFor(a.kubeconfig, k8s.StorageV1Api)
    const created = await storage.createStorageClass({ body: { metadata: { name: 'typed-fast' }, provisioner: 'example.com/fast', reclaimPolicy: 'Retain' } })
    assert.equal(created.apiVersion, `${upstreamGroup('storage')}/v1`)
    assert.equal(created.volumeBindingMode, 'Immediate', 'defaults are filled as for our spelling')
    const listed = await storage.listStorageClass()
    assert.ok(listed.items.some(c => c.metadata?.name === 'typed-fast'))
    await storage.createCSIDriver({ body: { metadata: { name: 'typed.csi.example.com' }, spec: { attachRequired: true } } })
    const driver = await storage.readCSIDriver({ name: 'typed.csi.example.com' })
    assert.equal(driver.spec.attachRequired, true)
    const attachment = await storage.createVolumeAttachment({ body: { metadata: { name: 'typed-va' }, spec: { attacher: 'typed.csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } } } })
    const withStatus = await storage.replaceVolumeAttachmentStatus({ name: 'typed-va', body: { ...attachment, status: { attached: true } } })
    assert.equal(withStatus.status?.attached, true)
    await storage.deleteStorageClass({ name: 'typed-fast' })
    await assert.rejects(storage.readStorageClass({ name: 'typed-fast' }), (err: unknown) => statusOf(err) === 404)
  })

  await t.test('a PUT of a Lease that does not exist creates it', async () => {
    const coordination = clientFor(b.kubeconfig, k8s.CoordinationV1Api)
    const lease = await coordination.replaceNamespacedLease({ namespace: 'default', name: 'put-created', body: { metadata: { name: 'put-created' }, spec: { holderIdentity: 'x' } } })
    assert.equal(lease.spec?.holderIdentity, 'x')
    assert.equal(lease.apiVersion, `${upstreamGroup('coordination')}/v1`)
  })

  await t.test('one leader across the replicas, and failover when it stops', async () => {
    const one = new Candidate('one', clientFor(a.kubeconfig, k8s.CoordinationV1Api), 'default', 'typed-election')
    const two = new Candidate('two', clientFor(b.kubeconfig, k8s.CoordinationV1Api), 'default', 'typed-election')
    one.start()
    two.start()
    try {
      await electAndFailOver(a.kubeconfig, b.kubeconfig, one, two)
    } finally {
      one.stop()
      two.stop()
    }
    assert.deepEqual([...one.errors, ...two.errors], [])
  })
})

async function electAndFailOver (kubeconfigA: string, kubeconfigB: string, one: Candidate, two: Candidate): Promise<void> {
  const readHolder = async (kubeconfig: string): Promise<string | undefined> =>
    (await clientFor(kubeconfig, k8s.CoordinationV1Api).readNamespacedLease({ namespace: 'default', name: 'typed-election' })).spec?.holderIdentity
  const first = await eventually(async () => {
    const leaders = [one, two].filter(c => c.leading)
    assert.equal(leaders.length, 1, 'exactly one candidate leads')
    assert.equal(await readHolder(kubeconfigA), leaders[0]!.identity)
    assert.equal(await readHolder(kubeconfigB), leaders[0]!.identity, 'both replicas show the same holder')
    return leaders[0]!
  }, 20_000, 100)
  const other = first === one ? two : one
  first.stop()
  await eventually(async () => {
    assert.ok(other.leading, `${other.identity} takes over`)
    assert.equal(await readHolder(kubeconfigA), other.identity)
    assert.equal(await readHolder(kubeconfigB), other.identity)
  }, 20_000, 100)
  const lease = await clientFor(kubeconfigA, k8s.CoordinationV1Api).readNamespacedLease({ namespace: 'default', name: 'typed-election' })
  assert.equal(lease.spec?.leaseTransitions, 1)
}
