// Several server processes on one database: one leader for the controllers and failover when it
// is killed, one cluster identity (a replica with another CA refuses to start), and a graceful
// stop that ends an open watch with a clean last chunk and hands the lease over.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { join } from 'node:path'
import { Agent, request } from 'node:https'
import { connect as netConnect } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { runServer, startServer, type RunningServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'
import { kubectlFor } from '../helpers/kubectl.js'
import { CONTROLLER_MANAGER_LEASE, GROUPS, NAMESPACES, ROOT_CA_CONFIGMAP } from '../../resources/naming.js'

const LEASE = `/apis/${GROUPS.coordination}/v1/namespaces/${NAMESPACES.system}/leases/${CONTROLLER_MANAGER_LEASE}`
/** Short timings with upstream's proportions, so that failover fits a test. */
const FAST = ['--leader-elect-lease-duration', '3s', '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '500ms']

function agentFor (s: RunningServer): Agent {
  return new Agent({ keepAlive: true, ca: s.caPem, cert: s.clientCertPem, key: s.clientKeyPem })
}

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

/** A second replica: the first one's database and certificate directory, a data directory of its own. */
function replicaOf (t: Parameters<typeof startServer>[0], first: RunningServer, extra: string[] = []): Promise<RunningServer> {
  return startServer(t, ['--storage-url', first.databaseUrl, '--cert-dir', join(first.dataDir, 'pki'), ...extra])
}

test('two processes on one database: one leader; when it is killed the other takes over', async (t) => {
  const a = await startServer(t, FAST)
  const b = await replicaOf(t, a, FAST)
  const agentA = agentFor(a)
  const agentB = agentFor(b)
  t.after(() => { agentA.destroy(); agentB.destroy() })

  const holderA = await eventually(async () => {
    const lease = await call(b, agentB, 'GET', LEASE)
    assert.equal(lease.status, 200)
    assert.match(lease.body.spec.holderIdentity, /^.+_[0-9a-f-]{36}$/)
    return lease.body.spec.holderIdentity as string
  })
  assert.equal((await call(b, agentB, 'POST', '/api/v1/namespaces', { metadata: { name: 'before' } })).status, 201)
  await eventually(async () => assert.equal((await call(b, agentB, 'GET', '/api/v1/namespaces/before/serviceaccounts/default')).status, 200))
  assert.equal((await call(b, agentB, 'GET', LEASE)).body.spec.holderIdentity, holderA)
  // What an operator sees: kubectl names the holder.
  const stdout = await kubectlFor({ kubeconfig: b.kubeconfig }).ok(['get', 'lease', '-n', NAMESPACES.system])
  assert.match(stdout, /^NAME\s+HOLDER\s+AGE\n/)
  assert.match(stdout, new RegExp(`^${CONTROLLER_MANAGER_LEASE}\\s+${holderA}\\s`, 'm'))

  a.process.kill('SIGKILL')
  await once(a.process, 'exit')
  const taken = await eventually(async () => {
    const lease = await call(b, agentB, 'GET', LEASE)
    assert.notEqual(lease.body.spec.holderIdentity, holderA)
    return lease.body
  }, 30_000)
  assert.equal(taken.spec.leaseTransitions, 1)
  assert.equal((await call(b, agentB, 'POST', '/api/v1/namespaces', { metadata: { name: 'after' } })).status, 201)
  await eventually(async () => assert.equal((await call(b, agentB, 'GET', '/api/v1/namespaces/after/serviceaccounts/default')).status, 200))
  // One CA, whoever leads: the root CA ConfigMap holds the CA both replicas share.
  const ca = await eventually(async () => {
    const cm = await call(b, agentB, 'GET', `/api/v1/namespaces/after/configmaps/${ROOT_CA_CONFIGMAP}`)
    assert.equal(cm.status, 200)
    return cm.body.data['ca.crt'] as string
  })
  assert.equal(ca.trim(), a.caPem.trim())
})

test('a replica with a CA of its own refuses to start, naming the directory to share', async (t) => {
  const a = await startServer(t)
  const other = runServer(['--data-dir', join(a.dataDir, 'elsewhere'), '--storage-url', a.databaseUrl])
  let stderr = ''
  other.stderr!.on('data', (d: Buffer) => { stderr += d.toString() })
  const [code] = await once(other, 'exit')
  assert.equal(code, 1)
  assert.match(stderr, /certificate authority .* is not the cluster's/)
  assert.match(stderr, /--cert-dir/)
  // The first server's CA is still the one published.
  const agent = agentFor(a)
  t.after(() => agent.destroy())
  const cm = await eventually(async () => {
    const res = await call(a, agent, 'GET', `/api/v1/namespaces/default/configmaps/${ROOT_CA_CONFIGMAP}`)
    assert.equal(res.status, 200)
    return res.body
  })
  assert.equal(cm.data['ca.crt'].trim(), a.caPem.trim())
})

test('SIGTERM: an open watch ends with a clean last chunk, the lease goes to the other replica at once', async (t) => {
  const a = await startServer(t, FAST)
  const b = await replicaOf(t, a, FAST)
  const agentA = agentFor(a)
  const agentB = agentFor(b)
  t.after(() => { agentA.destroy(); agentB.destroy() })
  const holderA = (await eventually(async () => {
    const lease = await call(a, agentA, 'GET', LEASE)
    assert.equal(lease.status, 200)
    return lease
  })).body.spec.holderIdentity

  // A watch on the replica being stopped, with an event seen before the stop.
  const ended = new Promise<{ lines: string[], complete: boolean }>((resolve, reject) => {
    const req = request(`${a.server}/api/v1/namespaces/default/configmaps?watch=true`, { agent: agentA }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => {
        text += d
        if (text.includes('"first"') && !res.destroyed) res.emit('seen')
      })
      res.once('seen', () => a.process.kill('SIGTERM'))
      res.on('end', () => resolve({ lines: text.trim().split('\n'), complete: res.complete }))
      res.on('error', reject)
      res.on('aborted', () => reject(new Error('watch stream aborted')))
    })
    req.on('error', reject)
    req.end()
  })
  assert.equal((await call(a, agentA, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'first' } })).status, 201)
  const watch = await ended
  assert.equal(watch.complete, true)
  assert.ok(watch.lines.some(l => JSON.parse(l).object.metadata.name === 'first'))
  const [code] = await once(a.process, 'exit')
  assert.equal(code, 0)

  // The stopped replica released the lease: the other took it without waiting out its duration.
  const lease = await eventually(async () => {
    const res = await call(b, agentB, 'GET', LEASE)
    assert.notEqual(res.body.spec.holderIdentity, holderA)
    assert.notEqual(res.body.spec.holderIdentity, '')
    return res.body
  })
  assert.equal(lease.spec.leaseTransitions, 1)

  // The client resumes on the other replica from the last resourceVersion it saw: nothing lost.
  const lastRv = String(Math.max(...watch.lines.map(l => Number(JSON.parse(l).object.metadata.resourceVersion))))
  assert.equal((await call(b, agentB, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'second' } })).status, 201)
  const resumed = await new Promise<string[]>((resolve, reject) => {
    const req = request(`${b.server}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${lastRv}`, { agent: agentB }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => {
        text += d
        if (text.includes('"second"')) { resolve(text.trim().split('\n')); res.destroy() }
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
  assert.deepEqual(resumed.map(l => [JSON.parse(l).type, JSON.parse(l).object.metadata.name]), [['ADDED', 'second']])
})

test('SIGTERM: a request in flight when the listener closes still gets its answer, then the connection closes', async (t) => {
  const a = await startServer(t)
  const url = new URL(a.server)
  const port = Number(url.port)
  const socket = tlsConnect({ host: url.hostname, port, ca: a.caPem, cert: a.clientCertPem, key: a.clientKeyPem })
  await once(socket, 'secureConnect')
  let answer = ''
  socket.setEncoding('utf8')
  socket.on('data', (d: string) => { answer += d })
  const closed = once(socket, 'close')
  const body = JSON.stringify({ metadata: { name: 'in-flight' }, data: { k: 'v' } })
  // The headers and half the body: the request is under way when the stop begins.
  socket.write(`POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`)
  a.process.kill('SIGTERM')
  // Once a new connection is refused, the listener is closed and the stop is under way.
  await eventually(async () => {
    const refused = await new Promise<boolean>((resolve) => {
      const probe = netConnect({ host: url.hostname, port })
      probe.once('connect', () => { probe.destroy(); resolve(false) })
      probe.once('error', () => resolve(true))
    })
    assert.equal(refused, true)
  }, 30_000)
  socket.write(body.slice(10))
  await closed
  assert.match(answer, /^HTTP\/1\.1 201 Created\r\n/)
  assert.match(answer, /\r\nconnection: close\r\n/i)
  assert.equal(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).metadata.name, 'in-flight')
  const [code] = await once(a.process, 'exit')
  assert.equal(code, 0)
})
