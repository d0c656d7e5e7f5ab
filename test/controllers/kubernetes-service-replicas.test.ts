// The `kubernetes` Service's endpoints with several replicas on one database: each names every
// live replica's advertised address; a replica that stops takes its own away; with
// --endpoint-reconciler-type=none nothing is written; a claim of its address left by a stopped
// start does not keep it from being created.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { freshDatabase } from '../helpers/postgres.js'
import { GROUPS } from '../../resources/naming.js'
import { ENDPOINT_LEASES_PREFIX } from '../../storage/endpoint-leases.js'
import { eventually } from '../helpers/eventually.js'
import { SERVICE_POOLS } from '../../resources/service-allocation.js'

// Reconciles only at start and stop here: the periodic ones are the unit tests' (endpoint-reconciler.test.ts).
const OPTS = { securePort: 7443, endpointReconciler: { intervalMs: 3_600_000 } }
const PORTS = [{ name: 'https', port: 7443, protocol: 'TCP' }]

async function named (app: TestApp): Promise<{ endpoints: string[], slice: string[] }> {
  const ep = await app.request({ method: 'GET', url: '/api/v1/namespaces/default/endpoints/kubernetes' })
  assert.equal(ep.statusCode, 200, ep.body)
  assert.deepEqual(ep.json().subsets.map((s: any) => s.ports), [PORTS])
  const slice = await app.request({ method: 'GET', url: `/apis/${GROUPS.discovery}/v1/namespaces/default/endpointslices/kubernetes` })
  assert.equal(slice.statusCode, 200, slice.body)
  assert.deepEqual(slice.json().ports, PORTS)
  assert.ok(slice.json().endpoints.every((e: any) => e.conditions.ready === true))
  return {
    endpoints: ep.json().subsets.flatMap((s: any) => s.addresses.map((a: any) => a.ip)),
    slice: slice.json().endpoints.flatMap((e: any) => e.addresses)
  }
}

test('two replicas are both named, sorted; one that stops is named no more', async (t) => {
  const databaseUrl = await freshDatabase(t)
  const a = await buildTestApp(t, { databaseUrl, advertiseAddress: '192.0.2.11', ...OPTS })
  assert.deepEqual(await named(a), { endpoints: ['192.0.2.11'], slice: ['192.0.2.11'] })
  const b = await buildTestApp(t, { databaseUrl, advertiseAddress: '192.0.2.10', ...OPTS })
  const both = { endpoints: ['192.0.2.10', '192.0.2.11'], slice: ['192.0.2.10', '192.0.2.11'] }
  assert.deepEqual(await named(b), both)
  assert.deepEqual(await named(a), both, 'one object, whichever replica is asked')

  await b.app.close()
  assert.deepEqual(await named(a), { endpoints: ['192.0.2.11'], slice: ['192.0.2.11'] })
})

test('a replica that begins to shut down is named no more while it still serves', async (t) => {
  const databaseUrl = await freshDatabase(t)
  const a = await buildTestApp(t, { databaseUrl, advertiseAddress: '192.0.2.21', ...OPTS })
  const b = await buildTestApp(t, { databaseUrl, advertiseAddress: '192.0.2.20', ...OPTS })
  assert.deepEqual((await named(a)).endpoints, ['192.0.2.20', '192.0.2.21'])
  // What SIGTERM does first; the shutdown delay would follow, the server still answering.
  b.app.health.beginShutdown()
  await eventually(async () => { assert.deepEqual((await named(a)).endpoints, ['192.0.2.21']) }, 10_000, 20)
  assert.deepEqual((await named(b)).endpoints, ['192.0.2.21'], 'the stopping replica still serves')
})

test('with the none reconciler the kubernetes Service has no endpoints written', async (t) => {
  const app = await buildTestApp(t, { advertiseAddress: '192.0.2.12', endpointReconciler: { type: 'none' } })
  assert.equal((await app.request({ method: 'GET', url: '/api/v1/namespaces/default/services/kubernetes' })).statusCode, 200)
  assert.equal((await app.request({ method: 'GET', url: '/api/v1/namespaces/default/endpoints/kubernetes' })).statusCode, 404)
  assert.equal((await app.request({ method: 'GET', url: `/apis/${GROUPS.discovery}/v1/namespaces/default/endpointslices/kubernetes` })).statusCode, 404)
})

test('a reconcile that finds the endpoints right renews the lease and writes nothing else', async (t) => {
  const app = await buildTestApp(t, { advertiseAddress: '192.0.2.13', endpointReconciler: { intervalMs: 20 } })
  const versions = async (): Promise<string[]> => Promise.all(['/api/v1/namespaces/default/endpoints/kubernetes', `/apis/${GROUPS.discovery}/v1/namespaces/default/endpointslices/kubernetes`]
    .map(async url => (await app.request({ method: 'GET', url })).json().metadata.resourceVersion as string))
  const leaseRevision = async (): Promise<number | undefined> => (await app.app.storage.get(`${ENDPOINT_LEASES_PREFIX}192.0.2.13`))?.revision
  const before = await versions()
  const renewed = await leaseRevision()
  assert.ok(renewed !== undefined)
  await eventually(async () => { assert.ok((await leaseRevision())! > renewed + 1, 'renewed twice more') }, 10_000, 20)
  assert.deepEqual(await versions(), before)
})

test('a start after one stopped between the address claim and the Service write creates the Service', async (t) => {
  const databaseUrl = await freshDatabase(t)
  const first = await buildTestApp(t, { databaseUrl, ...OPTS })
  const services = first.app.resources.find({ group: '', resource: 'services' })!
  assert.equal((await first.request({ method: 'DELETE', url: '/api/v1/namespaces/default/services/kubernetes' })).statusCode, 200)
  // What a process stopped after the claim of 10.96.0.1 and before the Service's write leaves.
  const pool = first.app.pools.get(SERVICE_POOLS.clusterIPs('IPv4'))!
  await pool.claim('10.96.0.1', services.key('default', 'kubernetes'), false)
  await first.app.close()

  const warnings: string[] = []
  const second = await buildTestApp(t, { databaseUrl, ...OPTS, logger: { level: 'warn', stream: { write: (line: string) => { warnings.push(line) } } } })
  const svc = await second.request({ method: 'GET', url: '/api/v1/namespaces/default/services/kubernetes' })
  assert.equal(svc.statusCode, 200, svc.body)
  assert.deepEqual(svc.json().spec.clusterIPs, ['10.96.0.1'])
  assert.deepEqual(warnings.filter(l => l.includes('kubernetes Service')), [])
  const claims = await second.app.pools.get(SERVICE_POOLS.clusterIPs('IPv4'))!.claims()
  assert.deepEqual(claims.filter(c => c.value === '10.96.0.1').map(c => c.owner), [services.key('default', 'kubernetes')])
})
