// An older version served beside the main one over the same stored objects:
// storage.svc.io/v1beta1 CSIStorageCapacity, removed in 1.27, turned on with --runtime-config.
// Objects written in either version read back without loss in both; every request to it gets
// the deprecation warning, the audit annotation and apiserver_requested_deprecated_apis.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { parsePolicy } from '../../plugins/audit/policy.js'
import { ANNOTATIONS, GROUPS } from '../../resources/naming.js'
import { samples, value } from '../metrics/exposition.js'

const STORAGE = GROUPS.storage
const V1 = `/apis/${STORAGE}/v1/namespaces/default/csistoragecapacities`
const BETA = `/apis/${STORAGE}/v1beta1/namespaces/default/csistoragecapacities`
const WARNING = `299 - "${STORAGE}/v1beta1 CSIStorageCapacity is deprecated in v1.24+, unavailable in v1.27+; use ${STORAGE}/v1 CSIStorageCapacity"`
const capacity = (apiVersion: string, name: string) => ({
  apiVersion, kind: 'CSIStorageCapacity', metadata: { name, labels: { a: 'b' } },
  storageClassName: 'fast', capacity: '10Gi', maximumVolumeSize: '1Gi', nodeTopology: { matchLabels: { zone: 'z1' } }
})
const fields = (o: Record<string, any>) => ({ storageClassName: o.storageClassName, capacity: o.capacity, maximumVolumeSize: o.maximumVolumeSize, nodeTopology: o.nodeTopology, labels: o.metadata.labels, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion })

test('v1beta1 CSIStorageCapacity is off by default', async (t) => {
  const { request } = await buildTestApp(t)
  assert.equal((await request({ method: 'GET', url: BETA })).statusCode, 404)
  const versions = (await request({ method: 'GET', url: `/apis/${STORAGE}` })).json().versions.map((v: { version: string }) => v.version)
  assert.deepEqual(versions, ['v1'])
})

test('turned on, it serves the same objects in its own apiVersion, with the deprecation warning', async (t) => {
  const path = join(mkdtempSync(join(tmpdir(), 'deprecated-')), 'audit.log')
  const policy = parsePolicy({ apiVersion: `${GROUPS.audit}/v1`, kind: 'Policy', rules: [{ level: 'Metadata', resources: [{ group: STORAGE }] }] })
  const { request } = await buildTestApp(t, { runtimeConfig: [`${STORAGE}/v1beta1=true`], audit: { policy, path } })

  const group = (await request({ method: 'GET', url: `/apis/${STORAGE}` })).json()
  assert.deepEqual(group.versions.map((v: { version: string }) => v.version), ['v1', 'v1beta1'])
  assert.equal(group.preferredVersion.version, 'v1')
  const betaResources = (await request({ method: 'GET', url: `/apis/${STORAGE}/v1beta1` })).json().resources.map((r: { name: string }) => r.name)
  assert.deepEqual(betaResources, ['csistoragecapacities'])

  const created = await request({ method: 'POST', url: BETA, payload: capacity(`${STORAGE}/v1beta1`, 'beta') })
  assert.equal(created.statusCode, 201, created.body)
  assert.equal(created.json().apiVersion, `${STORAGE}/v1beta1`)
  assert.equal(created.headers.warning, WARNING)
  // Stored once: the v1 path reads the same object, field for field, in its own apiVersion.
  const asV1 = (await request({ method: 'GET', url: `${V1}/beta` })).json()
  assert.equal(asV1.apiVersion, `${STORAGE}/v1`)
  assert.deepEqual(fields(asV1), fields(created.json()))
  assert.equal((await request({ method: 'GET', url: `${V1}/beta` })).headers.warning, undefined)

  // And back: written in v1, read in v1beta1 without loss.
  const v1Made = (await request({ method: 'POST', url: V1, payload: capacity(`${STORAGE}/v1`, 'main') })).json()
  const asBeta = await request({ method: 'GET', url: `${BETA}/main` })
  assert.equal(asBeta.json().apiVersion, `${STORAGE}/v1beta1`)
  assert.deepEqual(fields(asBeta.json()), fields(v1Made))
  assert.equal(asBeta.headers.warning, WARNING)

  const list = await request({ method: 'GET', url: BETA })
  assert.equal(list.json().apiVersion, `${STORAGE}/v1beta1`)
  assert.deepEqual(list.json().items.map((i: { apiVersion: string }) => i.apiVersion), [`${STORAGE}/v1beta1`, `${STORAGE}/v1beta1`])
  const patched = await request({ method: 'PATCH', url: `${BETA}/main`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ capacity: '20Gi' }) })
  assert.equal(patched.statusCode, 200, patched.body)
  assert.equal(patched.json().apiVersion, `${STORAGE}/v1beta1`)
  assert.equal((await request({ method: 'GET', url: `${V1}/main` })).json().capacity, '20Gi')
  const watch = await request({ method: 'GET', url: `${BETA}?watch=true&timeoutSeconds=1` })
  const events = watch.body.split('\n').filter(l => l !== '').map(l => JSON.parse(l))
  assert.deepEqual(events.map(e => [e.type, e.object.apiVersion]), [['ADDED', `${STORAGE}/v1beta1`], ['ADDED', `${STORAGE}/v1beta1`]])
  assert.equal(watch.headers.warning, WARNING)

  const metrics = samples((await request({ method: 'GET', url: '/metrics' })).body)
  assert.equal(value(metrics, 'apiserver_requested_deprecated_apis', { group: STORAGE, version: 'v1beta1', resource: 'csistoragecapacities', subresource: '', removed_release: '1.27' }), 1)
  assert.equal(metrics.some(s => s.name === 'apiserver_requested_deprecated_apis' && s.labels.version === 'v1'), false)

  await eventually(() => {
    const lines = readFileSync(path, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l))
    const beta = lines.filter(e => e.objectRef.apiVersion === 'v1beta1' && e.stage === 'ResponseComplete')
    assert.equal(beta.length, 5)
    for (const e of beta) assert.deepEqual(e.annotations, { [ANNOTATIONS.deprecated]: 'true', [ANNOTATIONS.removedRelease]: '1.27' })
    assert.equal(lines.filter(e => e.objectRef.apiVersion === 'v1').some(e => e.annotations !== undefined), false)
  })
})
