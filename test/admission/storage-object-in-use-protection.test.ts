// StorageObjectInUseProtection: new claims and volumes carry their protection finalizer.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { FINALIZERS } from '../../resources/naming.js'

describe('StorageObjectInUseProtection', () => {
  const app = suiteApp()

  it('adds the claim finalizer on create, once', async () => {
    const res = await app().request({ method: 'POST', url: '/api/v1/namespaces/default/persistentvolumeclaims', payload: { metadata: { name: 'c', finalizers: ['example.com/keep'] }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } })
    assert.deepEqual(res.json().metadata.finalizers, ['example.com/keep', FINALIZERS.pvcProtection])
    const again = await app().request({ method: 'POST', url: '/api/v1/namespaces/default/persistentvolumeclaims', payload: { metadata: { name: 'd', finalizers: [FINALIZERS.pvcProtection] }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } })
    assert.deepEqual(again.json().metadata.finalizers, [FINALIZERS.pvcProtection])
  })

  it('adds the volume finalizer on create', async () => {
    const res = await app().request({ method: 'POST', url: '/api/v1/persistentvolumes', payload: { metadata: { name: 'v' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/v' } } } })
    assert.deepEqual(res.json().metadata.finalizers, [FINALIZERS.pvProtection])
  })

  it('leaves updates alone', async () => {
    const res = await app().request({ method: 'PATCH', url: '/api/v1/persistentvolumes/v', headers: { 'content-type': 'application/json-patch+json' }, payload: JSON.stringify([{ op: 'remove', path: '/metadata/finalizers' }]) })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().metadata.finalizers, undefined)
  })
})
