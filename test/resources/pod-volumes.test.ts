// Pod volume sources: one valid and one invalid example per rule, and the defaults of each source.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'

const url = '/api/v1/namespaces/default/pods'
let n = 0
const pod = (volumes: unknown[], mounts: unknown[] = []) => ({
  metadata: { name: `p${++n}` },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27', volumeMounts: mounts }], volumes }
})

interface Case { name: string, volumes: unknown[], field?: string, reason?: string, message?: string, mounts?: unknown[] }

const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }

const cases: Case[] = [
  { name: 'a claim volume', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'c' } }] },
  { name: 'a claim volume without claimName', volumes: [{ name: 'data', persistentVolumeClaim: {} }], field: 'spec.volumes[0].persistentVolumeClaim.claimName', reason: 'FieldValueRequired' },
  { name: 'two sources in one volume', volumes: [{ name: 'data', emptyDir: {}, hostPath: { path: '/tmp' } }], field: 'spec.volumes[0].emptyDir', reason: 'FieldValueForbidden', message: 'may not specify more than 1 volume type' },
  { name: 'a volume name that is no DNS label', volumes: [{ name: 'Data_1', emptyDir: {} }], field: 'spec.volumes[0].name', reason: 'FieldValueInvalid' },
  { name: 'duplicate volume names', volumes: [{ name: 'a', emptyDir: {} }, { name: 'a', emptyDir: {} }], field: 'spec.volumes[1].name', reason: 'FieldValueDuplicate' },
  { name: 'a volume without name', volumes: [{ emptyDir: {} }], field: 'spec.volumes[0].name', reason: 'FieldValueRequired' },
  { name: 'configMap items with relative paths', volumes: [{ name: 'cfg', configMap: { name: 'c', items: [{ key: 'k', path: 'dir/file', mode: 0o400 }] } }] },
  { name: 'configMap item with an absolute path', volumes: [{ name: 'cfg', configMap: { name: 'c', items: [{ key: 'k', path: '/etc/x' }] } }], field: 'spec.volumes[0].configMap.items[0].path', message: 'must be a relative path' },
  { name: 'configMap item with ..', volumes: [{ name: 'cfg', configMap: { name: 'c', items: [{ key: 'k', path: 'a/../b' }] } }], field: 'spec.volumes[0].configMap.items[0].path', message: "must not contain '..'" },
  { name: 'secret item starting with ..', volumes: [{ name: 's', secret: { secretName: 's', items: [{ key: 'k', path: '..data' }] } }], field: 'spec.volumes[0].secret.items[0].path', message: "must not start with '..'" },
  { name: 'an item without key', volumes: [{ name: 's', secret: { secretName: 's', items: [{ path: 'p' }] } }], field: 'spec.volumes[0].secret.items[0].key', reason: 'FieldValueRequired' },
  { name: 'defaultMode 0777', volumes: [{ name: 's', secret: { secretName: 's', defaultMode: 511 } }] },
  { name: 'defaultMode above 0777', volumes: [{ name: 's', secret: { secretName: 's', defaultMode: 512 } }], field: 'spec.volumes[0].secret.defaultMode', message: 'must be a number between 0 and 0777 (octal), both inclusive' },
  { name: 'negative item mode', volumes: [{ name: 'cfg', configMap: { name: 'c', items: [{ key: 'k', path: 'p', mode: -1 }] } }], field: 'spec.volumes[0].configMap.items[0].mode' },
  { name: 'a projected token of 10 minutes', volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 600 } }] } }] },
  { name: 'a projected token under 10 minutes', volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 599 } }] } }], field: 'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds', message: 'may not specify a duration less than 10 minutes' },
  { name: 'a projected token without path', volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: {} }] } }], field: 'spec.volumes[0].projected.sources[0].serviceAccountToken.path', reason: 'FieldValueRequired' },
  { name: 'a projected source with two kinds', volumes: [{ name: 't', projected: { sources: [{ configMap: { name: 'a' }, secret: { name: 'b' } }] } }], field: 'spec.volumes[0].projected.sources[0]', reason: 'FieldValueForbidden', message: 'may not specify more than 1 volume type per source' },
  { name: 'projected sources with one path twice', volumes: [{ name: 't', projected: { sources: [{ configMap: { name: 'a', items: [{ key: 'k', path: 'same' }] } }, { secret: { name: 'b', items: [{ key: 'k', path: 'same' }] } }] } }], field: 'spec.volumes[0].projected', message: 'conflicting duplicate paths' },
  { name: 'fc with wwids', volumes: [{ name: 'f', fc: { wwids: ['3600508b400105e210000900000490000'] } }] },
  { name: 'fc with targetWWNs and lun', volumes: [{ name: 'f', fc: { targetWWNs: ['500a0982991b8dc5'], lun: 2 } }] },
  { name: 'fc with wwids and targetWWNs', volumes: [{ name: 'f', fc: { targetWWNs: ['500a0982991b8dc5'], lun: 2, wwids: ['x'] } }], field: 'spec.volumes[0].fc.targetWWNs', message: 'targetWWNs and wwids can not be specified simultaneously' },
  { name: 'fc with targetWWNs but no lun', volumes: [{ name: 'f', fc: { targetWWNs: ['500a0982991b8dc5'] } }], field: 'spec.volumes[0].fc.lun', reason: 'FieldValueRequired' },
  { name: 'fc with neither', volumes: [{ name: 'f', fc: {} }], field: 'spec.volumes[0].fc.targetWWNs', reason: 'FieldValueRequired' },
  { name: 'flocker with datasetName', volumes: [{ name: 'f', flocker: { datasetName: 'ds' } }] },
  { name: 'flocker with both', volumes: [{ name: 'f', flocker: { datasetName: 'ds', datasetUUID: 'u' } }], field: 'spec.volumes[0].flocker', message: 'datasetName and datasetUUID can not be specified simultaneously' },
  { name: 'flocker with neither', volumes: [{ name: 'f', flocker: {} }], field: 'spec.volumes[0].flocker', reason: 'FieldValueRequired' },
  { name: 'hostPath with a type', volumes: [{ name: 'h', hostPath: { path: '/var/log', type: 'Directory' } }] },
  { name: 'hostPath with an unknown type', volumes: [{ name: 'h', hostPath: { path: '/var/log', type: 'Folder' } }], field: 'spec.volumes[0].hostPath.type', reason: 'FieldValueNotSupported' },
  { name: 'nfs with a relative path', volumes: [{ name: 'n', nfs: { server: 'nfs.local', path: 'export' } }], field: 'spec.volumes[0].nfs.path', message: 'must be an absolute path' },
  { name: 'nfs without server', volumes: [{ name: 'n', nfs: { path: '/export' } }], field: 'spec.volumes[0].nfs.server', reason: 'FieldValueRequired' },
  { name: 'iscsi', volumes: [{ name: 'i', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 } }] },
  { name: 'iscsi with a bad iqn', volumes: [{ name: 'i', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'storage', lun: 0 } }], field: 'spec.volumes[0].iscsi.iqn', message: 'must be valid format' },
  { name: 'iscsi with chap auth but no secret', volumes: [{ name: 'i', iscsi: { targetPortal: 't', iqn: 'iqn.2001-04.com.example:s', lun: 0, chapAuthSession: true } }], field: 'spec.volumes[0].iscsi.secretRef', reason: 'FieldValueRequired' },
  { name: 'rbd without monitors', volumes: [{ name: 'r', rbd: { image: 'img', monitors: [] } }], field: 'spec.volumes[0].rbd.monitors', reason: 'FieldValueRequired' },
  { name: 'cephfs without monitors', volumes: [{ name: 'c', cephfs: { monitors: [] } }], field: 'spec.volumes[0].cephfs.monitors', reason: 'FieldValueRequired' },
  { name: 'azureDisk with an unknown kind', volumes: [{ name: 'a', azureDisk: { diskName: 'd', diskURI: 'https://a.blob.core.windows.net/c/d.vhd', kind: 'Huge' } }], field: 'spec.volumes[0].azureDisk.kind', reason: 'FieldValueNotSupported' },
  { name: 'scaleIO without secretRef', volumes: [{ name: 's', scaleIO: { gateway: 'g', system: 's' } }], field: 'spec.volumes[0].scaleIO.secretRef', reason: 'FieldValueRequired' },
  { name: 'scaleIO with an unknown storage mode', volumes: [{ name: 's', scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'x' }, storageMode: 'Fat' } }], field: 'spec.volumes[0].scaleIO.storageMode', reason: 'FieldValueNotSupported' },
  { name: 'downwardAPI with pod labels', volumes: [{ name: 'd', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }] },
  { name: 'downwardAPI with an unsupported field', volumes: [{ name: 'd', downwardAPI: { items: [{ path: 'ip', fieldRef: { fieldPath: 'status.podIP' } }] } }], field: 'spec.volumes[0].downwardAPI.items[0].fieldRef.fieldPath', reason: 'FieldValueNotSupported' },
  { name: 'csi inline', volumes: [{ name: 'c', csi: { driver: 'inline.storage.example.com', volumeAttributes: { size: '1' } } }] },
  { name: 'csi with a bad driver name', volumes: [{ name: 'c', csi: { driver: '-bad-' } }], field: 'spec.volumes[0].csi.driver', reason: 'FieldValueInvalid' },
  { name: 'gitRepo directory with ..', volumes: [{ name: 'g', gitRepo: { repository: 'https://example.com/r.git', directory: '../x' } }], field: 'spec.volumes[0].gitRepo.directory', message: "must not contain '..'" },
  { name: 'an ephemeral volume', volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { metadata: { labels: { app: 'x' } }, spec: claimSpec } } }] },
  { name: 'an ephemeral volume without template', volumes: [{ name: 'scratch', ephemeral: {} }], field: 'spec.volumes[0].ephemeral.volumeClaimTemplate', reason: 'FieldValueRequired' },
  { name: 'an ephemeral template without access modes', volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { resources: { requests: { storage: '1Gi' } } } } } }], field: 'spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes', reason: 'FieldValueRequired' },
  { name: 'emptyDir with a size limit', volumes: [{ name: 'e', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } }] },
  { name: 'emptyDir with an unknown medium', volumes: [{ name: 'e', emptyDir: { medium: 'Disk' } }], field: 'spec.volumes[0].emptyDir.medium', reason: 'FieldValueNotSupported' },
  { name: 'a mount of a volume that exists', volumes: [{ name: 'e', emptyDir: {} }], mounts: [{ name: 'e', mountPath: '/data' }] },
  { name: 'a mount of a missing volume', volumes: [], mounts: [{ name: 'nope', mountPath: '/data' }], field: 'spec.containers[0].volumeMounts[0].name', reason: 'FieldValueNotFound' }
]

describe('pod volumes', () => {
  const app = suiteApp()

  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await app().request({ method: 'POST', url, payload: pod(c.volumes, c.mounts) })
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  const defaults: Array<{ name: string, volume: Record<string, unknown>, want: Record<string, unknown> }> = [
    { name: 'configMap defaultMode 0644', volume: { configMap: { name: 'c' } }, want: { configMap: { name: 'c', defaultMode: 420 } } },
    { name: 'secret defaultMode 0644', volume: { secret: { secretName: 's' } }, want: { secret: { secretName: 's', defaultMode: 420 } } },
    { name: 'downwardAPI defaultMode 0644', volume: { downwardAPI: {} }, want: { downwardAPI: { defaultMode: 420 } } },
    { name: 'projected token expiry 3600 and defaultMode 0644', volume: { projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }, want: { projected: { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }], defaultMode: 420 } } },
    { name: 'iscsi interface default', volume: { iscsi: { targetPortal: 't', iqn: 'iqn.2001-04.com.example:s', lun: 1 } }, want: { iscsi: { targetPortal: 't', iqn: 'iqn.2001-04.com.example:s', lun: 1, iscsiInterface: 'default' } } },
    { name: 'rbd pool, user and keyring', volume: { rbd: { monitors: ['m'], image: 'i' } }, want: { rbd: { monitors: ['m'], image: 'i', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' } } },
    { name: 'cephfs path and user', volume: { cephfs: { monitors: ['m'] } }, want: { cephfs: { monitors: ['m'], path: '/', user: 'admin' } } },
    { name: 'scaleIO fsType, storageMode and sslEnabled', volume: { scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'x' } } }, want: { scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'x' }, sslEnabled: false, storageMode: 'ThinProvisioned', fsType: 'xfs' } } },
    { name: 'azureDisk kind Shared, caching ReadWrite, fsType ext4', volume: { azureDisk: { diskName: 'd', diskURI: 'https://a.blob.core.windows.net/c/d.vhd' } }, want: { azureDisk: { diskName: 'd', diskURI: 'https://a.blob.core.windows.net/c/d.vhd', cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared' } } },
    { name: 'hostPath type empty', volume: { hostPath: { path: '/x' } }, want: { hostPath: { path: '/x', type: '' } } },
    { name: 'no source is an emptyDir', volume: {}, want: { emptyDir: {} } },
    { name: 'emptyDir sizeLimit in canonical form', volume: { emptyDir: { sizeLimit: '1.5Gi' } }, want: { emptyDir: { sizeLimit: '1536Mi' } } }
  ]
  for (const d of defaults) {
    it(`defaults ${d.name}`, async () => {
      const res = await app().request({ method: 'POST', url, payload: pod([{ name: 'v', ...d.volume }]) })
      assert.equal(res.statusCode, 201, res.body)
      assert.deepEqual(res.json().spec.volumes[0], { name: 'v', ...d.want })
    })
  }

  it('rejects an invalid quantity with the reference server\'s message', async () => {
    const res = await app().request({ method: 'POST', url, payload: pod([{ name: 'e', emptyDir: { sizeLimit: 'lots' } }]) })
    assertInvalid(res, 'spec.volumes[0].emptyDir.sizeLimit', 'FieldValueInvalid', 'quantities must match the regular expression')
  })
})
