// --runtime-config: a disabled group version or resource is gone from discovery and OpenAPI and
// answers 404, while the server keeps storing it; removed versions cannot come back; unknown
// keys stop start-up.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { parseRuntimeConfig } from '../../plugins/runtime-config.js'
import { parseFlags } from '../../bin/flags.js'
import { GROUPS } from '../../resources/naming.js'

const STORAGE = GROUPS.storage
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'

test('keys, values and precedence', () => {
  const served = (items: string[], group: string, version: string, plural = 'things') => parseRuntimeConfig(items).served(group, version, plural)
  assert.equal(served([], STORAGE, 'v1'), true)
  assert.equal(served([], 'x.io', 'v1beta1'), true)
  assert.equal(served([], 'x.io', 'v1alpha1'), false)
  assert.equal(served(['api/alpha=true'], 'x.io', 'v1alpha1'), true)
  assert.equal(served(['api/all=false'], STORAGE, 'v1'), false)
  assert.equal(served(['api/all=false', `${STORAGE}/v1`], STORAGE, 'v1'), true)
  assert.equal(served([`${STORAGE}/v1=false`, `${STORAGE}/v1/storageclasses=true`], STORAGE, 'v1', 'storageclasses'), true)
  assert.equal(served([`${STORAGE}/v1=false`, `${STORAGE}/v1/storageclasses=true`], STORAGE, 'v1', 'csidrivers'), false)
  assert.equal(served(['api/ga=false'], '', 'v1', 'pods'), true, 'the core group stays')
  assert.deepEqual(parseFlags(['--runtime-config', `api/beta=false,${STORAGE}/v1=false`], {}).runtimeConfig, ['api/beta=false', `${STORAGE}/v1=false`])
})

test('bad keys and values are refused with a clear message', () => {
  assert.throws(() => parseRuntimeConfig([`${STORAGE}/v1=maybe`]), /invalid value "maybe" for storage\.svc\.io\/v1: want true or false/)
  assert.throws(() => parseRuntimeConfig(['api/v1=false']), /api\/v1 cannot be disabled/)
  assert.throws(() => parseRuntimeConfig(['storage']), /invalid key "storage"/)
  // A removed version cannot be served again, and the message says what replaces it.
  assert.throws(() => parseRuntimeConfig([`${GROUPS.rbac}/v1beta1=true`]),
    /rbac\.authorization\.svc\.io\/v1beta1 cannot be enabled: rbac\.authorization\.svc\.io\/v1beta1 was removed in v1\.22; use rbac\.authorization\.svc\.io\/v1/)
  // The workload groups' removed versions: apps/v1beta2 and the extensions group's deployments.
  assert.throws(() => parseRuntimeConfig(['apps/v1beta2=true']), /apps\/v1beta2 cannot be enabled: apps\/v1beta2 was removed in v1\.16; use apps\/v1/)
  assert.throws(() => parseRuntimeConfig(['extensions/v1beta1/deployments=true']), /extensions\/v1beta1 deployments was removed in v1\.16; use apps\/v1/)
  assert.throws(() => parseRuntimeConfig(['autoscaling/v2beta2=true']), /was removed in v1\.26; use autoscaling\/v2/)
  // A removed version a kind still carries is off unless a key turns it on.
  assert.equal(parseRuntimeConfig([]).served(STORAGE, 'v1beta1', 'csistoragecapacities', true), false)
  assert.equal(parseRuntimeConfig([`${STORAGE}/v1beta1=true`]).served(STORAGE, 'v1beta1', 'csistoragecapacities', true), true)
  const kinds = [{ group: STORAGE, version: 'v1', plural: 'storageclasses' }]
  assert.throws(() => parseRuntimeConfig(['nosuch.io/v1=false']).check(kinds), /unknown group version nosuch\.io\/v1/)
  assert.throws(() => parseRuntimeConfig([`${STORAGE}/v1/widgets=false`]).check(kinds), /unknown resource widgets in storage\.svc\.io\/v1/)
  assert.throws(() => parseRuntimeConfig(['api/some=false']).check(kinds), /unknown key "api\/some"/)
  parseRuntimeConfig([`${GROUPS.rbac}/v1beta1=false`, 'api/beta=false']).check(kinds)
  // The ImageReview group version is a type the server knows (ImagePolicyWebhook sends it) and serves nothing.
  parseRuntimeConfig([`${GROUPS.imagepolicy}/v1alpha1=true`, 'imagepolicy.k8s.io/v1alpha1=true']).check(kinds)
  assert.throws(() => parseRuntimeConfig([`${GROUPS.imagepolicy}/v1alpha1/imagereviews=true`]).check(kinds), /unknown resource imagereviews/)
})

test('a server refuses an unknown --runtime-config key at start', async (t) => {
  await assert.rejects(buildTestApp(t, { runtimeConfig: ['nosuch.io/v1=false'] }), /--runtime-config: unknown group version nosuch\.io\/v1/)
})

test('a disabled group version is gone from discovery and OpenAPI and answers 404', async (t) => {
  const { request } = await buildTestApp(t, { runtimeConfig: [`${STORAGE}/v1=false`] })
  assert.equal((await request({ method: 'GET', url: `/apis/${STORAGE}/v1/storageclasses` })).statusCode, 404)
  assert.equal((await request({ method: 'GET', url: `/apis/${STORAGE}/v1` })).statusCode, 404)
  assert.equal((await request({ method: 'GET', url: `/apis/${STORAGE}` })).statusCode, 404)
  const groups = (await request({ method: 'GET', url: '/apis' })).json().groups.map((g: { name: string }) => g.name)
  assert.equal(groups.includes(STORAGE), false)
  assert.ok(groups.includes(GROUPS.rbac))
  const aggregated = (await request({ method: 'GET', url: '/apis', headers: { accept: AGGREGATED } })).json()
  assert.equal(aggregated.items.some((g: { metadata: { name: string } }) => g.metadata.name === STORAGE), false)
  const paths = Object.keys((await request({ method: 'GET', url: '/openapi/v3' })).json().paths)
  assert.equal(paths.includes(`apis/${STORAGE}/v1`), false)
  assert.ok(paths.includes('api/v1'))
  // Still stored and used inside: a claim is still created (admission looks classes up).
  const pvc = await request({
    method: 'POST',
    url: '/api/v1/namespaces/default/persistentvolumeclaims',
    payload: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }
  })
  assert.equal(pvc.statusCode, 201, pvc.body)
})

test('a single resource can be turned off; a removed version is not served', async (t) => {
  const { request } = await buildTestApp(t, { runtimeConfig: [`${STORAGE}/v1/csistoragecapacities=false`] })
  assert.equal((await request({ method: 'GET', url: `/apis/${STORAGE}/v1/namespaces/default/csistoragecapacities` })).statusCode, 404)
  assert.equal((await request({ method: 'GET', url: `/apis/${STORAGE}/v1/storageclasses` })).statusCode, 200)
  const names = (await request({ method: 'GET', url: `/apis/${STORAGE}/v1` })).json().resources.map((r: { name: string }) => r.name)
  assert.equal(names.includes('csistoragecapacities'), false)
  assert.ok(names.includes('storageclasses'))
  // storage.svc.io/v1beta1 CSIStorageCapacity was removed in 1.27: 404 unless turned on.
  const removed = await request({ method: 'GET', url: `/apis/${STORAGE}/v1beta1/namespaces/default/csistoragecapacities` })
  assert.equal(removed.statusCode, 404)
  assert.equal(removed.json().reason, 'NotFound')
})
