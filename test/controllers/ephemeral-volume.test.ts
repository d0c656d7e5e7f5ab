// The ephemeral-volume controller: each ephemeral volume of a pod gets its claim, owned by the pod.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { suiteApp } from '../resources/suite.js'

const claims = '/api/v1/namespaces/default/persistentvolumeclaims'
const pods = '/api/v1/namespaces/default/pods'

describe('ephemeral volume controller', () => {
  const app = suiteApp()

  async function waitFor (url: string, ms = 8000) {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
      const res = await app().request({ method: 'GET', url })
      if (res.statusCode === 200) return res.json()
    }
    return undefined
  }

  it('creates <pod>-<volume> from the template, owned by the pod', async () => {
    const template = { metadata: { labels: { type: 'scratch' }, annotations: { note: 'x' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, storageClassName: 'fast' } }
    const pod = await app().request({ method: 'POST', url: pods, payload: { metadata: { name: 'worker' }, spec: { containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] }], volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: template } }, { name: 'tmp', emptyDir: {} }] } } })
    assert.equal(pod.statusCode, 201, pod.body)
    const claim = await waitFor(`${claims}/worker-scratch`)
    assert.ok(claim, 'claim not created')
    assert.deepEqual(claim.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'worker', uid: pod.json().metadata.uid, controller: true, blockOwnerDeletion: true }])
    assert.deepEqual(claim.metadata.labels, { type: 'scratch' })
    assert.deepEqual(claim.metadata.annotations, { note: 'x' })
    assert.equal(claim.spec.storageClassName, 'fast')
    assert.equal(claim.spec.resources.requests.storage, '2Gi')
    const list = await app().request({ method: 'GET', url: claims })
    assert.deepEqual(list.json().items.map((c: any) => c.metadata.name), ['worker-scratch'])
  })

  it('creates no claim for a pod without ephemeral volumes', async () => {
    await app().request({ method: 'POST', url: pods, payload: { metadata: { name: 'plain' }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'tmp', emptyDir: {} }] } } })
    await sleep(500)
    const list = await app().request({ method: 'GET', url: claims })
    assert.deepEqual(list.json().items.map((c: any) => c.metadata.name), ['worker-scratch'])
  })
})
