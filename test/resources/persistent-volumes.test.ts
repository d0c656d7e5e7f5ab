// PersistentVolumeClaim and PersistentVolume: validation, defaults, immutability, status and delete answers.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'

const claims = '/api/v1/namespaces/default/persistentvolumeclaims'
const volumes = '/api/v1/persistentvolumes'
const claimSpec = () => ({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' })
const volumeSpec = () => ({ capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], nfs: { server: 'nfs.example.com', path: '/exports/a' } })

interface Case { name: string, spec: Record<string, unknown>, field?: string, reason?: string, message?: string }

describe('persistentvolumeclaims', () => {
  const app = suiteApp({ admission: { disable: ['StorageObjectInUseProtection'] } })
  let n = 0
  const create = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    app().request({ method: 'POST', url: claims, payload: { metadata: { name: `c${++n}`, ...extra }, spec } })

  const cases: Case[] = [
    { name: 'a claim', spec: claimSpec() },
    { name: 'a claim without access modes', spec: { ...claimSpec(), accessModes: [] }, field: 'spec.accessModes', reason: 'FieldValueRequired' },
    { name: 'an unknown access mode', spec: { ...claimSpec(), accessModes: ['ReadSometimes'] }, field: 'spec.accessModes', reason: 'FieldValueNotSupported' },
    { name: 'ReadWriteOncePod with others', spec: { ...claimSpec(), accessModes: ['ReadWriteOncePod', 'ReadOnlyMany'] }, field: 'spec.accessModes', reason: 'FieldValueForbidden' },
    { name: 'a claim without storage request', spec: { accessModes: ['ReadWriteOnce'] }, field: 'spec.resources[storage]', reason: 'FieldValueRequired' },
    { name: 'a zero storage request', spec: { ...claimSpec(), resources: { requests: { storage: '0' } } }, field: 'spec.resources.requests[storage]', message: 'must be greater than zero' },
    { name: 'an unknown volume mode', spec: { ...claimSpec(), volumeMode: 'Raw' }, field: 'spec.volumeMode', reason: 'FieldValueNotSupported' },
    { name: 'a bad storage class name', spec: { ...claimSpec(), storageClassName: 'Fast_SSD' }, field: 'spec.storageClassName' },
    { name: 'a claim as data source', spec: { ...claimSpec(), dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } } },
    { name: 'a snapshot as data source', spec: { ...claimSpec(), dataSource: { apiGroup: 'snapshot.storage.example.com', kind: 'VolumeSnapshot', name: 'snap' } } },
    { name: 'a core data source that is no claim', spec: { ...claimSpec(), dataSource: { kind: 'Pod', name: 'p' } }, field: 'spec.dataSource', message: "must be 'PersistentVolumeClaim' when referencing the default apiGroup" },
    { name: 'a data source without name', spec: { ...claimSpec(), dataSource: { kind: 'PersistentVolumeClaim', name: '' } }, field: 'spec.dataSource.name', reason: 'FieldValueRequired' },
    { name: 'dataSource and dataSourceRef that differ', spec: { ...claimSpec(), dataSource: { kind: 'PersistentVolumeClaim', name: 'a' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'b' } }, field: 'spec', message: 'must match dataSourceRef' },
    { name: 'a label selector with a bad operator', spec: { ...claimSpec(), selector: { matchExpressions: [{ key: 'tier', operator: 'Near' }] } }, field: 'spec.selector.matchExpressions[0].operator' }
  ]
  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await create(c.spec)
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  it('defaults volumeMode, phase Pending and canonical quantities', async () => {
    const res = await create({ ...claimSpec(), resources: { requests: { storage: '1.5Gi' } } })
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.equal(body.spec.volumeMode, 'Filesystem')
    assert.equal(body.spec.resources.requests.storage, '1536Mi')
    assert.deepEqual(body.status, { phase: 'Pending' })
  })

  it('copies dataSource into dataSourceRef and back', async () => {
    const a = await create({ ...claimSpec(), dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } })
    assert.deepEqual(a.json().spec.dataSourceRef, { kind: 'PersistentVolumeClaim', name: 'src' })
    const b = await create({ ...claimSpec(), dataSourceRef: { apiGroup: 'example.com', kind: 'Thing', name: 't' } })
    assert.deepEqual(b.json().spec.dataSource, { apiGroup: 'example.com', kind: 'Thing', name: 't' })
  })

  it('keeps the spec immutable except the binder\'s volumeName and a bound claim\'s requests', async () => {
    const name = `c${++n}`
    await app().request({ method: 'POST', url: claims, payload: { metadata: { name }, spec: claimSpec() } })
    const patch = (body: unknown, sub = '') => app().request({ method: 'PATCH', url: `${claims}/${name}${sub}`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify(body) })
    assertInvalid(await patch({ spec: { accessModes: ['ReadWriteMany'] } }), 'spec', 'FieldValueForbidden', 'spec is immutable after creation')
    assertInvalid(await patch({ spec: { resources: { requests: { storage: '2Gi' } } } }), 'spec', 'FieldValueForbidden')
    const bind = await patch({ spec: { volumeName: 'pv-1' } })
    assert.equal(bind.statusCode, 200, bind.body)
    assertInvalid(await patch({ spec: { volumeName: 'pv-2' } }), 'spec', 'FieldValueForbidden')
    const bound = await patch({ status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] } }, '/status')
    assert.equal(bound.statusCode, 200, bound.body)
    assertInvalid(await patch({ spec: { resources: { requests: { storage: '512Mi' } } } }), 'spec.resources.requests.storage', 'FieldValueForbidden', 'field can not be less than previous value')
  })

  it('ignores status on the main resource and changes only status through /status', async () => {
    const name = `c${++n}`
    await app().request({ method: 'POST', url: claims, payload: { metadata: { name }, spec: claimSpec(), status: { phase: 'Bound' } } })
    const main = await app().request({ method: 'PATCH', url: `${claims}/${name}`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ metadata: { labels: { a: 'b' } }, status: { phase: 'Lost' } }) })
    assert.equal(main.json().status.phase, 'Pending')
    const status = await app().request({ method: 'PATCH', url: `${claims}/${name}/status`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ spec: { storageClassName: 'other' }, status: { phase: 'Lost' } }) })
    assert.equal(status.statusCode, 200, status.body)
    assert.equal(status.json().status.phase, 'Lost')
    assert.equal(status.json().spec.storageClassName, '')
  })

  it('answers delete with the object', async () => {
    const name = `c${++n}`
    await app().request({ method: 'POST', url: claims, payload: { metadata: { name }, spec: claimSpec() } })
    const res = await app().request({ method: 'DELETE', url: `${claims}/${name}` })
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().kind, 'PersistentVolumeClaim')
  })

  it('answers delete with 200 and the object while a finalizer holds it', async () => {
    const name = `c${++n}`
    await app().request({ method: 'POST', url: claims, payload: { metadata: { name, finalizers: ['example.com/hold'] }, spec: claimSpec() } })
    const res = await app().request({ method: 'DELETE', url: `${claims}/${name}` })
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().kind, 'PersistentVolumeClaim')
    assert.ok(res.json().metadata.deletionTimestamp)
  })

  it('lists claims across namespaces and by the name field', async () => {
    const all = await app().request({ method: 'GET', url: '/api/v1/persistentvolumeclaims?fieldSelector=name%3Dc1' })
    assert.equal(all.statusCode, 200, all.body)
    assert.deepEqual(all.json().items.map((i: any) => i.metadata.name), ['c1'])
  })

  it('shows the columns kubectl shows', async () => {
    const res = await app().request({ method: 'GET', url: claims, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })
    assert.deepEqual(res.json().columnDefinitions.map((c: any) => c.name), ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode'])
  })
})

describe('persistentvolumes', () => {
  const app = suiteApp({ admission: { disable: ['StorageObjectInUseProtection'] } })
  let n = 0
  const create = (spec: Record<string, unknown>) => app().request({ method: 'POST', url: volumes, payload: { metadata: { name: `v${++n}` }, spec } })

  const cases: Case[] = [
    { name: 'an nfs volume', spec: volumeSpec() },
    { name: 'a volume without source', spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] }, field: 'spec', reason: 'FieldValueRequired', message: 'must specify a volume type' },
    { name: 'a volume with two sources', spec: { ...volumeSpec(), hostPath: { path: '/x' } }, field: 'spec.nfs', reason: 'FieldValueForbidden', message: 'may not specify more than 1 volume type' },
    { name: 'a volume without capacity', spec: { accessModes: ['ReadWriteOnce'], nfs: { server: 's', path: '/p' } }, field: 'spec.capacity', reason: 'FieldValueRequired' },
    { name: 'a capacity other than storage', spec: { ...volumeSpec(), capacity: { storage: '1Gi', cpu: '1' } }, field: 'spec.capacity', reason: 'FieldValueNotSupported' },
    { name: 'a volume without access modes', spec: { ...volumeSpec(), accessModes: [] }, field: 'spec.accessModes', reason: 'FieldValueRequired' },
    { name: 'an unknown reclaim policy', spec: { ...volumeSpec(), persistentVolumeReclaimPolicy: 'Keep' }, field: 'spec.persistentVolumeReclaimPolicy', reason: 'FieldValueNotSupported' },
    { name: 'a csi volume', spec: { ...volumeSpec(), nfs: undefined, csi: { driver: 'ebs.csi.example.com', volumeHandle: 'vol-1', nodeStageSecretRef: { name: 's', namespace: 'default' } } } },
    { name: 'a csi volume without handle', spec: { ...volumeSpec(), nfs: undefined, csi: { driver: 'ebs.csi.example.com' } }, field: 'spec.csi.volumeHandle', reason: 'FieldValueRequired' },
    { name: 'a csi secret reference without namespace', spec: { ...volumeSpec(), nfs: undefined, csi: { driver: 'd.example.com', volumeHandle: 'h', nodeStageSecretRef: { name: 's' } } }, field: 'spec.csi.nodeStageSecretRef.namespace', reason: 'FieldValueRequired' },
    { name: 'a csi secret reference with a bad namespace', spec: { ...volumeSpec(), nfs: undefined, csi: { driver: 'd.example.com', volumeHandle: 'h', nodePublishSecretRef: { name: 's', namespace: 'Bad_NS' } } }, field: 'spec.csi.nodePublishSecretRef.namespace', reason: 'FieldValueInvalid' },
    { name: 'a local volume with node affinity', spec: { ...volumeSpec(), nfs: undefined, local: { path: '/mnt/disks/ssd1' }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } } } },
    { name: 'a local volume without node affinity', spec: { ...volumeSpec(), nfs: undefined, local: { path: '/mnt/disks/ssd1' } }, field: 'spec.nodeAffinity', reason: 'FieldValueRequired' },
    { name: 'node affinity without terms', spec: { ...volumeSpec(), nodeAffinity: { required: { nodeSelectorTerms: [] } } }, field: 'spec.nodeAffinity.required.nodeSelectorTerms', reason: 'FieldValueRequired' },
    { name: 'an iscsi volume with a namespaced secret', spec: { ...volumeSpec(), nfs: undefined, iscsi: { targetPortal: 't', iqn: 'iqn.2001-04.com.example:s', lun: 0, chapAuthSession: true, secretRef: { name: 's', namespace: 'default' } } } },
    { name: 'glusterfs with a bad endpoints namespace', spec: { ...volumeSpec(), nfs: undefined, glusterfs: { endpoints: 'e', path: 'p', endpointsNamespace: 'Bad_NS' } }, field: 'spec.glusterfs.endpointsNamespace' }
  ]
  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await create(JSON.parse(JSON.stringify(c.spec)))
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  for (const source of ['emptyDir', 'configMap', 'secret', 'downwardAPI', 'projected', 'ephemeral', 'gitRepo']) {
    it(`has no ${source} source`, async () => {
      const res = await app().request({ method: 'POST', url: `${volumes}?fieldValidation=Strict`, payload: { metadata: { name: `v${++n}` }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], [source]: {} } } })
      assert.equal(res.statusCode, 400)
      assert.equal(res.json().message, `PersistentVolume in version "v1" cannot be handled as a PersistentVolume: strict decoding error: unknown field "spec.${source}"`)
      const lax = await app().request({ method: 'POST', url: volumes, payload: { metadata: { name: `v${++n}` }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], [source]: {} } } })
      assertInvalid(lax, 'spec', 'FieldValueRequired', 'must specify a volume type')
    })
  }

  it('defaults the reclaim policy to Retain, volumeMode Filesystem and phase Pending', async () => {
    const res = await create(volumeSpec())
    assert.equal(res.statusCode, 201, res.body)
    const body = res.json()
    assert.equal(body.spec.persistentVolumeReclaimPolicy, 'Retain')
    assert.equal(body.spec.volumeMode, 'Filesystem')
    assert.equal(body.status.phase, 'Pending')
  })

  it('keeps the source immutable and lets claimRef bind', async () => {
    const name = `v${++n}`
    await app().request({ method: 'POST', url: volumes, payload: { metadata: { name }, spec: volumeSpec() } })
    const patch = (body: unknown) => app().request({ method: 'PATCH', url: `${volumes}/${name}`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify(body) })
    assertInvalid(await patch({ spec: { nfs: { path: '/exports/b' } } }), 'spec.persistentvolumesource', 'FieldValueForbidden')
    assertInvalid(await patch({ spec: { volumeMode: 'Block' } }), 'volumeMode', 'FieldValueInvalid', 'field is immutable')
    const bound = await patch({ spec: { claimRef: { namespace: 'default', name: 'data' } } })
    assert.equal(bound.statusCode, 200, bound.body)
    const table = await app().request({ method: 'GET', url: `${volumes}/${name}`, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })
    assert.deepEqual(table.json().columnDefinitions.map((c: any) => c.name), ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode'])
    assert.deepEqual(table.json().rows[0].cells.slice(0, 9), [name, '10Gi', 'RWO', 'Retain', 'Pending', 'default/data', '', '<unset>', ''])
    assert.equal(table.json().rows[0].cells[10], 'Filesystem')
  })

  it('changes status only through /status and answers delete with the object', async () => {
    const name = `v${++n}`
    await app().request({ method: 'POST', url: volumes, payload: { metadata: { name }, spec: volumeSpec() } })
    const res = await app().request({ method: 'PUT', url: `${volumes}/${name}/status`, payload: { metadata: { name }, spec: { ...volumeSpec(), capacity: { storage: '1Ti' } }, status: { phase: 'Available' } } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().status.phase, 'Available')
    assert.equal(res.json().spec.capacity.storage, '10Gi')
    const bad = await app().request({ method: 'PUT', url: `${volumes}/${name}/status`, payload: { metadata: { name }, spec: volumeSpec(), status: { phase: 'Happy' } } })
    assertInvalid(bad, 'status.phase', 'FieldValueNotSupported')
    const del = await app().request({ method: 'DELETE', url: `${volumes}/${name}` })
    assert.equal(del.statusCode, 200)
    assert.equal(del.json().kind, 'PersistentVolume')
  })
})
