// StorageClass, VolumeAttachment, CSIDriver, CSINode and CSIStorageCapacity: validation, defaults,
// immutability, status and delete answers, columns.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'

const base = '/apis/storage.svc.io/v1'
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }

interface Case { name: string, url: string, body: Record<string, unknown>, field?: string, reason?: string, message?: string }

const sc = (extra: Record<string, unknown> = {}) => ({ provisioner: 'ebs.csi.example.com', ...extra })
const va = (source: Record<string, unknown> = { persistentVolumeName: 'pv-1' }, extra: Record<string, unknown> = {}) => ({ spec: { attacher: 'ebs.csi.example.com', nodeName: 'node-1', source, ...extra } })
const driver = (spec: Record<string, unknown> = {}) => ({ spec })
const csinode = (drivers: unknown[]) => ({ spec: { drivers } })
const capacity = (extra: Record<string, unknown> = {}) => ({ storageClassName: 'fast', capacity: '100Gi', ...extra })

const cases: Case[] = [
  { name: 'a storage class', url: `${base}/storageclasses`, body: sc() },
  { name: 'a storage class without provisioner', url: `${base}/storageclasses`, body: { provisioner: '' }, field: 'provisioner', reason: 'FieldValueRequired' },
  { name: 'reclaim policy Recycle on a class', url: `${base}/storageclasses`, body: sc({ reclaimPolicy: 'Recycle' }), field: 'reclaimPolicy', reason: 'FieldValueNotSupported' },
  { name: 'an unknown binding mode', url: `${base}/storageclasses`, body: sc({ volumeBindingMode: 'Later' }), field: 'volumeBindingMode', reason: 'FieldValueNotSupported' },
  { name: 'allowed topologies', url: `${base}/storageclasses`, body: sc({ allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.example.com/zone', values: ['a', 'b'] }] }] }) },
  { name: 'a topology expression without values', url: `${base}/storageclasses`, body: sc({ allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: [] }] }] }), field: 'allowedTopologies[0].matchLabelExpressions[0].values', reason: 'FieldValueRequired' },
  { name: 'a volume attachment', url: `${base}/volumeattachments`, body: va() },
  { name: 'an attachment with no source', url: `${base}/volumeattachments`, body: va({}), field: 'spec.source', reason: 'FieldValueRequired', message: 'must specify exactly one of inlineVolumeSpec and persistentVolumeName' },
  { name: 'an attachment with both sources', url: `${base}/volumeattachments`, body: va({ persistentVolumeName: 'pv', inlineVolumeSpec: { csi: { driver: 'd.example.com', volumeHandle: 'h' } } }), field: 'spec.source', reason: 'FieldValueForbidden' },
  { name: 'an attachment of an inline csi volume', url: `${base}/volumeattachments`, body: va({ inlineVolumeSpec: { csi: { driver: 'd.example.com', volumeHandle: 'h' }, accessModes: ['ReadWriteOnce'] } }) },
  { name: 'an inline volume with capacity', url: `${base}/volumeattachments`, body: va({ inlineVolumeSpec: { csi: { driver: 'd.example.com', volumeHandle: 'h' }, accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } }), field: 'spec.source.inlineVolumeSpec.capacity', reason: 'FieldValueForbidden', message: 'may not be specified in the context of inline volumes' },
  { name: 'an inline volume that is not csi', url: `${base}/volumeattachments`, body: va({ inlineVolumeSpec: { nfs: { server: 's', path: '/p' }, accessModes: ['ReadWriteOnce'] } }), field: 'spec.source.inlineVolumeSpec.csi', reason: 'FieldValueRequired' },
  { name: 'an attachment without node', url: `${base}/volumeattachments`, body: va(undefined, { nodeName: '' }), field: 'spec.nodeName', reason: 'FieldValueRequired' },
  { name: 'a csi driver with token requests', url: `${base}/csidrivers`, body: driver({ tokenRequests: [{ audience: '' }, { audience: 'vault', expirationSeconds: 3600 }] }) },
  { name: 'a csi driver with duplicate audiences', url: `${base}/csidrivers`, body: driver({ tokenRequests: [{ audience: 'vault' }, { audience: 'vault' }] }), field: 'spec.tokenRequests[1].audience', reason: 'FieldValueDuplicate' },
  { name: 'a csi driver with two empty audiences', url: `${base}/csidrivers`, body: driver({ tokenRequests: [{ audience: '' }, { audience: '' }] }), field: 'spec.tokenRequests[1].audience', reason: 'FieldValueDuplicate' },
  { name: 'a token request under 10 minutes', url: `${base}/csidrivers`, body: driver({ tokenRequests: [{ audience: 'a', expirationSeconds: 60 }] }), field: 'spec.tokenRequests[0].expirationSeconds', message: 'may not specify a duration less than 10 minutes' },
  { name: 'an unknown fsGroupPolicy', url: `${base}/csidrivers`, body: driver({ fsGroupPolicy: 'Always' }), field: 'spec.fsGroupPolicy', reason: 'FieldValueNotSupported' },
  { name: 'an unknown lifecycle mode', url: `${base}/csidrivers`, body: driver({ volumeLifecycleModes: ['Forever'] }), field: 'spec.volumeLifecycleModes', reason: 'FieldValueNotSupported' },
  { name: 'a csi node', url: `${base}/csinodes`, body: csinode([{ name: 'ebs.csi.example.com', nodeID: 'i-123', topologyKeys: ['topology.example.com/zone'], allocatable: { count: 25 } }]) },
  { name: 'a csi node driver without nodeID', url: `${base}/csinodes`, body: csinode([{ name: 'd.example.com', nodeID: '' }]), field: 'spec.drivers[0].nodeID', reason: 'FieldValueRequired' },
  { name: 'duplicate drivers on a node', url: `${base}/csinodes`, body: csinode([{ name: 'd.example.com', nodeID: 'a' }, { name: 'd.example.com', nodeID: 'b' }]), field: 'spec.drivers[1].name', reason: 'FieldValueDuplicate' },
  { name: 'a negative allocatable count', url: `${base}/csinodes`, body: csinode([{ name: 'd.example.com', nodeID: 'a', allocatable: { count: -1 } }]), field: 'spec.drivers[0].allocatable.count' },
  { name: 'a storage capacity', url: `${base}/namespaces/default/csistoragecapacities`, body: capacity({ nodeTopology: { matchLabels: { 'topology.example.com/zone': 'a' } }, maximumVolumeSize: '1Ti' }) },
  { name: 'a capacity without class', url: `${base}/namespaces/default/csistoragecapacities`, body: capacity({ storageClassName: '' }), field: 'storageClassName', reason: 'FieldValueRequired' },
  { name: 'a capacity with a bad class name', url: `${base}/namespaces/default/csistoragecapacities`, body: capacity({ storageClassName: 'Fast SSD' }), field: 'storageClassName', reason: 'FieldValueInvalid' }
]

describe('storage kinds', () => {
  const app = suiteApp()
  let n = 0

  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await app().request({ method: 'POST', url: c.url, payload: { metadata: { name: `o${++n}` }, ...c.body } })
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  it('names csi drivers as the spec says: up to 63 characters, letters, digits, - and .', async () => {
    const ok = await app().request({ method: 'POST', url: `${base}/csidrivers`, payload: { metadata: { name: 'EBS.csi.example.com' }, spec: {} } })
    assert.equal(ok.statusCode, 201, ok.body)
    const long = await app().request({ method: 'POST', url: `${base}/csidrivers`, payload: { metadata: { name: `${'a'.repeat(64)}` }, spec: {} } })
    assertInvalid(long, 'metadata.name', 'FieldValueTooLong')
    const bad = await app().request({ method: 'POST', url: `${base}/csidrivers`, payload: { metadata: { name: 'driver_1' }, spec: {} } })
    assertInvalid(bad, 'metadata.name', 'FieldValueInvalid')
  })

  it('names storage capacities as DNS subdomains of at most 253 characters', async () => {
    const url = `${base}/namespaces/default/csistoragecapacities`
    const ok = await app().request({ method: 'POST', url, payload: { metadata: { name: `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.ebs.csi.example.com` }, ...capacity() } })
    assert.equal(ok.statusCode, 201, ok.body)
    const long = await app().request({ method: 'POST', url, payload: { metadata: { name: `${'a'.repeat(63)}.`.repeat(4) + 'x' }, ...capacity() } })
    assertInvalid(long, 'metadata.name', 'FieldValueInvalid', 'must be no more than 253 characters')
  })

  it('leaves a migrated inline volume spec undefaulted, as only PersistentVolume objects are', async () => {
    const res = await app().request({ method: 'POST', url: `${base}/volumeattachments`, payload: { metadata: { name: 'inline' }, ...va({ inlineVolumeSpec: { csi: { driver: 'd.example.com', volumeHandle: 'h' }, accessModes: ['ReadWriteOnce'] } }) } })
    assert.deepEqual(res.json().spec.source.inlineVolumeSpec, { csi: { driver: 'd.example.com', volumeHandle: 'h' }, accessModes: ['ReadWriteOnce'] })
  })

  it('defaults a storage class: reclaim Delete, binding Immediate', async () => {
    const res = await app().request({ method: 'POST', url: `${base}/storageclasses`, payload: { metadata: { name: 'standard' }, ...sc() } })
    assert.equal(res.json().reclaimPolicy, 'Delete')
    assert.equal(res.json().volumeBindingMode, 'Immediate')
  })

  it('defaults a csi driver', async () => {
    const res = await app().request({ method: 'POST', url: `${base}/csidrivers`, payload: { metadata: { name: 'defaults.example.com' }, spec: { volumeLifecycleModes: [] } } })
    assert.deepEqual(res.json().spec, { volumeLifecycleModes: ['Persistent'], attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', requiresRepublish: false, seLinuxMount: false })
  })

  it('keeps storage class parameters, provisioner, reclaim policy and binding mode immutable', async () => {
    await app().request({ method: 'POST', url: `${base}/storageclasses`, payload: { metadata: { name: 'frozen' }, ...sc({ parameters: { type: 'gp3' } }) } })
    const patch = (body: unknown) => app().request({ method: 'PATCH', url: `${base}/storageclasses/frozen`, headers: mergePatch, payload: JSON.stringify(body) })
    assertInvalid(await patch({ parameters: { type: 'io2' } }), 'parameters', 'FieldValueForbidden', 'updates to parameters are forbidden.')
    assertInvalid(await patch({ provisioner: 'other.example.com' }), 'provisioner', 'FieldValueForbidden')
    assertInvalid(await patch({ reclaimPolicy: 'Retain' }), 'reclaimPolicy', 'FieldValueForbidden')
    assertInvalid(await patch({ volumeBindingMode: 'WaitForFirstConsumer' }), 'volumeBindingMode', 'FieldValueInvalid', 'field is immutable')
    const ok = await patch({ allowVolumeExpansion: true, metadata: { labels: { tier: 'gold' } } })
    assert.equal(ok.statusCode, 200, ok.body)
  })

  it('keeps csi driver fields immutable except storageCapacity', async () => {
    await app().request({ method: 'POST', url: `${base}/csidrivers`, payload: { metadata: { name: 'frozen.example.com' }, spec: {} } })
    const patch = (spec: unknown) => app().request({ method: 'PATCH', url: `${base}/csidrivers/frozen.example.com`, headers: mergePatch, payload: JSON.stringify({ spec }) })
    for (const [field, value] of [['attachRequired', false], ['fsGroupPolicy', 'File'], ['podInfoOnMount', true], ['volumeLifecycleModes', ['Ephemeral']]] as const) {
      assertInvalid(await patch({ [field]: value }), `spec.${field}`, 'FieldValueInvalid', 'field is immutable')
    }
    const ok = await patch({ storageCapacity: true, requiresRepublish: true })
    assert.equal(ok.statusCode, 200, ok.body)
  })

  it('keeps a storage capacity\'s class and topology immutable', async () => {
    const url = `${base}/namespaces/default/csistoragecapacities`
    await app().request({ method: 'POST', url, payload: { metadata: { name: 'cap' }, ...capacity({ nodeTopology: { matchLabels: { zone: 'a' } } }) } })
    const patch = (body: unknown) => app().request({ method: 'PATCH', url: `${url}/cap`, headers: mergePatch, payload: JSON.stringify(body) })
    assertInvalid(await patch({ storageClassName: 'slow' }), 'storageClassName', 'FieldValueInvalid', 'field is immutable')
    assertInvalid(await patch({ nodeTopology: { matchLabels: { zone: 'b' } } }), 'nodeTopology', 'FieldValueInvalid', 'field is immutable')
    const ok = await patch({ capacity: '1.5Ti' })
    assert.equal(ok.json().capacity, '1536Gi')
  })

  it('keeps a csi node driver\'s nodeID immutable', async () => {
    await app().request({ method: 'POST', url: `${base}/csinodes`, payload: { metadata: { name: 'node-x' }, ...csinode([{ name: 'd.example.com', nodeID: 'a' }]) } })
    const res = await app().request({ method: 'PUT', url: `${base}/csinodes/node-x`, payload: { metadata: { name: 'node-x' }, ...csinode([{ name: 'd.example.com', nodeID: 'b' }]) } })
    assertInvalid(res, 'spec.drivers[0].nodeID', 'FieldValueInvalid', 'field is immutable')
  })

  it('changes a volume attachment\'s status only through /status and its spec never', async () => {
    await app().request({ method: 'POST', url: `${base}/volumeattachments`, payload: { metadata: { name: 'att' }, ...va(), status: { attached: true } } })
    const got = await app().request({ method: 'GET', url: `${base}/volumeattachments/att` })
    assert.equal(got.json().status, undefined)
    const status = await app().request({ method: 'PATCH', url: `${base}/volumeattachments/att/status`, headers: mergePatch, payload: JSON.stringify({ status: { attached: true, attachmentMetadata: { devicePath: '/dev/xvdba' } } }) })
    assert.equal(status.statusCode, 200, status.body)
    assert.equal(status.json().status.attached, true)
    const spec = await app().request({ method: 'PATCH', url: `${base}/volumeattachments/att`, headers: mergePatch, payload: JSON.stringify({ spec: { nodeName: 'node-2' } }) })
    assertInvalid(spec, 'spec', 'FieldValueInvalid', 'field is immutable')
    const table = await app().request({ method: 'GET', url: `${base}/volumeattachments/att`, headers: TABLE })
    assert.deepEqual(table.json().rows[0].cells.slice(0, 5), ['att', 'ebs.csi.example.com', 'pv-1', 'node-1', true])
  })

  const deletes: Array<{ plural: string, ns?: string, body: Record<string, unknown>, answer: string }> = [
    { plural: 'storageclasses', body: sc(), answer: 'StorageClass' },
    { plural: 'volumeattachments', body: va(), answer: 'VolumeAttachment' },
    { plural: 'csidrivers', body: driver(), answer: 'CSIDriver' },
    { plural: 'csinodes', body: csinode([]), answer: 'CSINode' },
    { plural: 'csistoragecapacities', ns: 'default', body: capacity(), answer: 'Status' }
  ]
  for (const d of deletes) {
    it(`answers delete of ${d.plural} with ${d.answer}`, async () => {
      const coll = d.ns === undefined ? `${base}/${d.plural}` : `${base}/namespaces/${d.ns}/${d.plural}`
      const created = await app().request({ method: 'POST', url: coll, payload: { metadata: { name: 'to-delete' }, ...d.body } })
      assert.equal(created.statusCode, 201, created.body)
      const res = await app().request({ method: 'DELETE', url: `${coll}/to-delete` })
      assert.equal(res.statusCode, 200)
      assert.equal(res.json().kind, d.answer)
    })
  }

  it('lists storage capacities across namespaces', async () => {
    await app().request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'other' } } })
    await app().request({ method: 'POST', url: `${base}/namespaces/other/csistoragecapacities`, payload: { metadata: { name: 'cap2' }, ...capacity() } })
    const res = await app().request({ method: 'GET', url: `${base}/csistoragecapacities` })
    const names = res.json().items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`)
    assert.ok(names.includes('other/cap2') && names.includes('default/cap'), names.join(','))
  })

  const columns: Array<{ plural: string, ns?: string, want: string[] }> = [
    { plural: 'storageclasses', want: ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age'] },
    { plural: 'csidrivers', want: ['Name', 'AttachRequired', 'PodInfoOnMount', 'StorageCapacity', 'TokenRequests', 'RequiresRepublish', 'Modes', 'Age'] },
    { plural: 'csinodes', want: ['Name', 'Drivers', 'Age'] },
    { plural: 'volumeattachments', want: ['Name', 'Attacher', 'PV', 'Node', 'Attached', 'Age'] },
    { plural: 'csistoragecapacities', ns: 'default', want: ['Name', 'StorageClassName', 'Capacity', 'Age'] }
  ]
  for (const c of columns) {
    it(`shows the ${c.plural} columns kubectl shows`, async () => {
      const url = c.ns === undefined ? `${base}/${c.plural}` : `${base}/namespaces/${c.ns}/${c.plural}`
      const res = await app().request({ method: 'GET', url, headers: TABLE })
      assert.deepEqual(res.json().columnDefinitions.map((d: any) => d.name), c.want)
    })
  }
})
