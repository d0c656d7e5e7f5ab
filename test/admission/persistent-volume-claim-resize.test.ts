// PersistentVolumeClaimResize: bound claims grow only when their class allows expansion.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'

const classes = '/apis/storage.svc.io/v1/storageclasses'
const claims = '/api/v1/namespaces/default/persistentvolumeclaims'
const mergePatch = { 'content-type': 'application/merge-patch+json' }
const RESIZE_DENIED = 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize'

describe('PersistentVolumeClaimResize', () => {
  const app = suiteApp()
  const patch = (name: string, body: unknown, sub = '') => app().request({ method: 'PATCH', url: `${claims}/${name}${sub}`, headers: mergePatch, payload: JSON.stringify(body) })

  async function boundClaim (name: string, storageClassName: string): Promise<void> {
    const res = await app().request({ method: 'POST', url: claims, payload: { metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName, volumeName: `pv-${name}` } } })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal((await patch(name, { status: { phase: 'Bound', capacity: { storage: '1Gi' } } }, '/status')).statusCode, 200)
  }

  it('lets a bound claim of an expandable class grow', async () => {
    await app().request({ method: 'POST', url: classes, payload: { metadata: { name: 'expandable' }, provisioner: 'p.example.com', allowVolumeExpansion: true } })
    await boundClaim('grows', 'expandable')
    const res = await patch('grows', { spec: { resources: { requests: { storage: '2Gi' } } } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().spec.resources.requests.storage, '2Gi')
  })

  it('refuses growth when the class does not allow expansion', async () => {
    await app().request({ method: 'POST', url: classes, payload: { metadata: { name: 'fixed' }, provisioner: 'p.example.com' } })
    await boundClaim('stuck', 'fixed')
    const res = await patch('stuck', { spec: { resources: { requests: { storage: '2Gi' } } } })
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().message, `persistentvolumeclaims "stuck" is forbidden: ${RESIZE_DENIED}`)
  })

  it('refuses growth when the class does not exist', async () => {
    await boundClaim('orphan', 'missing')
    assert.equal((await patch('orphan', { spec: { resources: { requests: { storage: '5Gi' } } } })).statusCode, 403)
  })

  it('lets other updates of such a claim through', async () => {
    assert.equal((await patch('stuck', { metadata: { labels: { a: 'b' } } })).statusCode, 200)
  })
})
