// Two server processes on one database allocating at the same time: 200 Services created
// concurrently, half on each, get 200 distinct cluster IPs and distinct node ports.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { Agent, request } from 'node:https'
import { startServer, type RunningServer } from '../helpers/server.js'

function call (s: RunningServer, agent: Agent, method: string, path: string, body?: object): Promise<{ status: number, body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${s.server}${path}`, { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => { text += d })
      res.on('end', () => resolve({ status: res.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : text }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

test('200 concurrent creates on two replicas: no address or node port given twice', async (t) => {
  // Small ranges, so that random choices collide often and the database must decide.
  const ranges = ['--service-cluster-ip-range', '10.96.0.0/24', '--service-node-port-range', '30000-30199']
  const a = await startServer(t, ranges)
  const b = await startServer(t, ['--storage-url', a.databaseUrl, '--cert-dir', join(a.dataDir, 'pki'), ...ranges])
  const agents = [a, b].map(s => new Agent({ keepAlive: true, maxSockets: 32, ca: s.caPem, cert: s.clientCertPem, key: s.clientKeyPem }))
  t.after(() => { for (const agent of agents) agent.destroy() })

  const results = await Promise.all(Array.from({ length: 200 }, async (_v, i) => {
    const server = i % 2 === 0 ? a : b
    const spec = i < 100 ? { type: 'NodePort', ports: [{ port: 80 }] } : { ports: [{ port: 80 }] }
    return await call(server, agents[i % 2]!, 'POST', '/api/v1/namespaces/default/services', { metadata: { name: `s${i}` }, spec })
  }))
  for (const r of results) assert.equal(r.status, 201, JSON.stringify(r.body))
  const ips = results.map(r => r.body.spec.clusterIP as string)
  assert.equal(new Set(ips).size, 200)
  // The kubernetes Service holds the first address.
  assert.ok(!ips.includes('10.96.0.1'))
  const ports = results.slice(0, 100).map(r => r.body.spec.ports[0].nodePort as number)
  assert.equal(new Set(ports).size, 100)
  for (const p of ports) assert.ok(p >= 30000 && p <= 30199)

  // A /24 holds 254 addresses: 201 are taken (the kubernetes Service holds one); the other 53 go, then the range is full.
  const list = await call(b, agents[1]!, 'GET', '/api/v1/services')
  assert.equal(list.body.items.length, 201)
  const more = await Promise.all(Array.from({ length: 54 }, async (_v, i) =>
    await call(i % 2 === 0 ? a : b, agents[i % 2]!, 'POST', '/api/v1/namespaces/default/services', { metadata: { name: `more${i}` }, spec: { ports: [{ port: 80 }] } })))
  assert.equal(more.filter(r => r.status === 201).length, 53)
  const full = more.find(r => r.status !== 201)!
  assert.equal(full.status, 500, JSON.stringify(full.body))
  assert.equal(full.body.message, 'Internal error occurred: failed to allocate a serviceIP: range is full')
})
