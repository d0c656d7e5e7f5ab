// The `kubernetes` Service made at start, and the value-pool repair pass at start: a claim no
// Service holds is released, a Service's address without a claim is recorded.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { freshDatabase } from '../helpers/postgres.js'

type Obj = Record<string, any>
const url = '/api/v1/namespaces/default/services'

it('creates the kubernetes Service: the first address of the range, 443 to the server port', async (t) => {
  const api = await buildTestApp(t, { services: { clusterIPRanges: ['10.100.0.0/16'] }, securePort: 7443 })
  const res = await api.request({ method: 'GET', url: `${url}/kubernetes` })
  assert.equal(res.statusCode, 200, res.body)
  const svc: Obj = res.json()
  assert.equal(svc.spec.clusterIP, '10.100.0.1')
  assert.deepEqual(svc.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 7443 }])
  assert.equal(svc.spec.type, 'ClusterIP')
  // Its address is claimed like any other.
  const taken = await api.request({ method: 'POST', url, payload: { metadata: { name: 'squatter' }, spec: { clusterIP: '10.100.0.1', ports: [{ port: 80 }] } } })
  assert.equal(taken.statusCode, 422)
})

it('keeps the kubernetes Service across restarts, its target port following the server\'s port', async (t) => {
  const cleanups: Array<() => unknown> = []
  t.after(async () => { for (const fn of cleanups.reverse()) await fn() })
  const databaseUrl = await freshDatabase({ after: fn => { cleanups.push(fn) } })
  const first = await buildTestApp(t, { databaseUrl, securePort: 6443 })
  const before: Obj = (await first.request({ method: 'GET', url: `${url}/kubernetes` })).json()
  await first.app.close()

  // A restart on another port: the Service exists (its address claimed), so nothing is created;
  // its port is put back, as the file says, and nothing is logged as failed.
  const second = await buildTestApp(t, { databaseUrl, securePort: 7443 })
  const svc: Obj = (await second.request({ method: 'GET', url: `${url}/kubernetes` })).json()
  assert.equal(svc.metadata.uid, before.metadata.uid)
  assert.equal(svc.spec.clusterIP, before.spec.clusterIP)
  assert.deepEqual(svc.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 7443 }])
})

it('with --secure-port 0, points the kubernetes Service and its endpoints at the port the server was bound to', async (t) => {
  const api = await buildTestApp(t, { securePort: 0, advertiseAddress: '10.0.0.5' })
  await api.app.listen({ port: 0, host: '127.0.0.1' })
  const address = api.app.server.address()
  const bound = typeof address === 'object' && address !== null ? address.port : 0
  assert.ok(bound > 0)
  // Written once the port is known, after listen: waited for, not timed.
  let svc: Obj | undefined
  let endpoints: Obj | undefined
  for (let i = 0; i < 200; i++) {
    svc = (await api.request({ method: 'GET', url: `${url}/kubernetes` })).json()
    endpoints = (await api.request({ method: 'GET', url: '/api/v1/namespaces/default/endpoints/kubernetes' })).json()
    if (svc?.spec?.ports?.[0]?.targetPort === bound && endpoints?.subsets?.[0]?.ports?.[0]?.port === bound) break
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  assert.deepEqual(svc!.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: bound }])
  assert.deepEqual(endpoints!.subsets, [{ addresses: [{ ip: '10.0.0.5' }], ports: [{ name: 'https', port: bound, protocol: 'TCP' }] }])
})

it('repairs the pools at start: frees a claim without a Service, records a Service\'s address without a claim', async (t) => {
  const cleanups: Array<() => unknown> = []
  t.after(async () => { for (const fn of cleanups.reverse()) await fn() })
  const databaseUrl = await freshDatabase({ after: fn => { cleanups.push(fn) } })
  const first = await buildTestApp(t, { databaseUrl })
  const svc = (await first.request({ method: 'POST', url, payload: { metadata: { name: 'kept' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] } } })).json()
  // A claim left by a server that died between its claim and its write, an hour ago.
  const long = new Date(Date.now() - 3_600_000).toISOString()
  await first.app.storage.write({ type: 'create', key: '/pools/services/cluster-ips/IPv4/10.96.7.7', value: { metadata: {}, owner: '/registry/core/services/default/lost', claimedAt: long } })
  // And a claim lost from under a live Service.
  await first.app.pools.get('services/node-ports')!.release('30005')
  await first.app.close()

  const second = await buildTestApp(t, { databaseUrl })
  const claimed = async (pool: string) => (await second.app.pools.get(pool)!.claims()).map(c => c.value)
  assert.ok(!(await claimed('services/cluster-ips/IPv4')).includes('10.96.7.7'))
  assert.ok((await claimed('services/cluster-ips/IPv4')).includes(svc.spec.clusterIP))
  assert.ok((await claimed('services/node-ports')).includes('30005'))
  const reuse = await second.request({ method: 'POST', url, payload: { metadata: { name: 'reuse' }, spec: { clusterIP: '10.96.7.7', ports: [{ port: 80 }] } } })
  assert.equal(reuse.statusCode, 201, reuse.body)
  const clash = await second.request({ method: 'POST', url, payload: { metadata: { name: 'clash' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] } } })
  assert.equal(clash.statusCode, 422, clash.body)
})
