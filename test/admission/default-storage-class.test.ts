// DefaultStorageClass: the default class on create, refusal with several defaults, updates untouched.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'
import { ANNOTATIONS } from '../../resources/naming.js'

const classes = '/apis/storage.svc.io/v1/storageclasses'
const claims = '/api/v1/namespaces/default/persistentvolumeclaims'
const spec = (extra: Record<string, unknown> = {}) => ({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...extra })

describe('DefaultStorageClass', () => {
  const app = suiteApp()
  const claim = (name: string, extra: Record<string, unknown> = {}) => app().request({ method: 'POST', url: claims, payload: { metadata: { name }, spec: spec(extra) } })
  const storageClass = (name: string, isDefault: boolean) => app().request({ method: 'POST', url: classes, payload: { metadata: { name, annotations: { [ANNOTATIONS.defaultStorageClass]: String(isDefault) } }, provisioner: 'ebs.csi.example.com' } })

  it('leaves a claim without class alone while no default exists', async () => {
    await storageClass('slow', false)
    const res = await claim('none')
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().spec.storageClassName, undefined)
  })

  it('gives a claim without class the default class', async () => {
    await storageClass('standard', true)
    const res = await claim('gets-default')
    assert.equal(res.json().spec.storageClassName, 'standard')
  })

  it('keeps a class the claim names, even the empty one', async () => {
    assert.equal((await claim('named', { storageClassName: 'slow' })).json().spec.storageClassName, 'slow')
    assert.equal((await claim('empty', { storageClassName: '' })).json().spec.storageClassName, '')
  })

  it('ignores updates', async () => {
    const res = await app().request({ method: 'PUT', url: `${claims}/none`, payload: { metadata: { name: 'none', labels: { a: 'b' } }, spec: spec() } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().spec.storageClassName, undefined)
  })

  it('refuses a claim without class while several defaults exist', async () => {
    await storageClass('premium', true)
    const res = await claim('ambiguous')
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().reason, 'Forbidden')
    assert.equal(res.json().message, 'persistentvolumeclaims "ambiguous" is forbidden: Internal error occurred: 2 default StorageClasses were found')
    assert.equal((await claim('explicit', { storageClassName: 'premium' })).statusCode, 201)
  })

  it('is off when disabled', async (t) => {
    const { buildTestApp } = await import('../helpers/app.js')
    const other = await buildTestApp(t, { admission: { disable: ['DefaultStorageClass'] } })
    await other.request({ method: 'POST', url: classes, payload: { metadata: { name: 'standard', annotations: { [ANNOTATIONS.defaultStorageClass]: 'true' } }, provisioner: 'p.example.com' } })
    const res = await other.request({ method: 'POST', url: claims, payload: { metadata: { name: 'c' }, spec: spec() } })
    assert.equal(res.json().spec.storageClassName, undefined)
  })
})
