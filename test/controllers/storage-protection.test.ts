// The protection controller: a deleted claim stays while a running pod uses it, a deleted volume
// while a claim is bound to it; then both go.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { suiteApp } from '../resources/suite.js'
import { FINALIZERS } from '../../resources/naming.js'

const claims = '/api/v1/namespaces/default/persistentvolumeclaims'
const pods = '/api/v1/namespaces/default/pods'
const volumes = '/api/v1/persistentvolumes'
const mergePatch = { 'content-type': 'application/merge-patch+json' }
const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' }

describe('storage protection controller', () => {
  const app = suiteApp()

  /** Polls until `get` answers 404 (true) or the time is up (false). */
  async function gone (url: string, ms = 8000): Promise<boolean> {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
      if ((await app().request({ method: 'GET', url })).statusCode === 404) return true
    }
    return false
  }

  it('keeps a claim a running pod uses, and removes it once the pod has finished', async () => {
    await app().request({ method: 'POST', url: claims, payload: { metadata: { name: 'data' }, spec: claimSpec } })
    const pod = await app().request({ method: 'POST', url: pods, payload: { metadata: { name: 'user' }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] } } })
    assert.equal(pod.statusCode, 201, pod.body)
    const del = await app().request({ method: 'DELETE', url: `${claims}/data` })
    assert.equal(del.statusCode, 200)
    assert.deepEqual(del.json().metadata.finalizers, [FINALIZERS.pvcProtection])
    await sleep(600)
    const held = await app().request({ method: 'GET', url: `${claims}/data` })
    assert.equal(held.statusCode, 200)
    assert.ok(held.json().metadata.deletionTimestamp)
    await app().request({ method: 'PATCH', url: `${pods}/user/status`, headers: mergePatch, payload: JSON.stringify({ status: { phase: 'Succeeded' } }) })
    assert.ok(await gone(`${claims}/data`), 'claim still there after its pod finished')
  })

  it('removes an unused claim at once', async () => {
    await app().request({ method: 'POST', url: claims, payload: { metadata: { name: 'unused' }, spec: claimSpec } })
    assert.equal((await app().request({ method: 'DELETE', url: `${claims}/unused` })).statusCode, 200)
    assert.ok(await gone(`${claims}/unused`))
  })

  it('keeps a claim an ephemeral volume of a pod stands for until the pod goes', async () => {
    await app().request({ method: 'POST', url: claims, payload: { metadata: { name: 'eph-scratch' }, spec: claimSpec } })
    await app().request({ method: 'POST', url: pods, payload: { metadata: { name: 'eph' }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: claimSpec } } }] } } })
    await app().request({ method: 'DELETE', url: `${claims}/eph-scratch` })
    await sleep(600)
    assert.equal((await app().request({ method: 'GET', url: `${claims}/eph-scratch` })).statusCode, 200)
    await app().request({ method: 'DELETE', url: `${pods}/eph` })
    assert.ok(await gone(`${claims}/eph-scratch`))
  })

  it('keeps a volume while a claim is bound to it', async () => {
    await app().request({ method: 'POST', url: volumes, payload: { metadata: { name: 'pv-1' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv-1' } } } })
    await app().request({ method: 'POST', url: claims, payload: { metadata: { name: 'bound' }, spec: { ...claimSpec, volumeName: 'pv-1' } } })
    const del = await app().request({ method: 'DELETE', url: `${volumes}/pv-1` })
    assert.equal(del.statusCode, 200)
    await sleep(600)
    assert.equal((await app().request({ method: 'GET', url: `${volumes}/pv-1` })).statusCode, 200)
    await app().request({ method: 'DELETE', url: `${claims}/bound` })
    assert.ok(await gone(`${claims}/bound`))
    assert.ok(await gone(`${volumes}/pv-1`), 'volume still there after its claim went')
  })

  it('lets a namespace with an unused claim finish terminating', async () => {
    await app().request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'scratch' } } })
    const claim = await app().request({ method: 'POST', url: '/api/v1/namespaces/scratch/persistentvolumeclaims', payload: { metadata: { name: 'c' }, spec: claimSpec } })
    assert.equal(claim.statusCode, 201, claim.body)
    await app().request({ method: 'DELETE', url: '/api/v1/namespaces/scratch' })
    assert.ok(await gone('/api/v1/namespaces/scratch', 15000), 'namespace still terminating')
  })
})
