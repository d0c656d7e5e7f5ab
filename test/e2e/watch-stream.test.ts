// A watch over a real TLS connection, as bytes: the chunked framing the server writes straight
// to the socket for each flush round, the last chunk when the watch times out, and the same
// kept-alive connection serving the next request.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:https'
import { parse as parseYaml } from 'yaml'
import { startTestServer } from '../helpers/tls-app.js'

interface Answer { status: number, headers: Record<string, string | string[] | undefined>, body: string, socketId: number }

test('watch over TLS: chunked events, a clean end at the timeout, and the connection kept', async (t) => {
  const server = await startTestServer(t)
  const config = parseYaml(readFileSync(server.kubeconfig, 'utf8')) as {
    clusters: Array<{ cluster: Record<string, string> }>
    users: Array<{ user: Record<string, string> }>
  }
  const pem = (b64: string): string => Buffer.from(b64, 'base64').toString('utf8')
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 1,
    ca: pem(config.clusters[0]!.cluster['certificate-authority-data']!),
    cert: pem(config.users[0]!.user['client-certificate-data']!),
    key: pem(config.users[0]!.user['client-key-data']!)
  })
  t.after(() => agent.destroy())
  const sockets = new Map<object, number>()
  const call = (method: string, path: string, body?: string): Promise<Answer> => new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, agent, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => { text += d })
      res.on('end', () => {
        if (!sockets.has(res.socket)) sockets.set(res.socket, sockets.size)
        resolve({ status: res.statusCode!, headers: res.headers, body: text, socketId: sockets.get(res.socket)! })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
  const create = (name: string): Promise<Answer> => call('POST', '/api/v1/namespaces/default/configmaps',
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } }))

  const first = await create('before-watch')
  assert.equal(first.status, 201)
  const rv = (JSON.parse(first.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion

  // A second agent socket would be allowed by nothing: writes go on a connection of their own.
  const writer = new Agent({ keepAlive: false, ca: agent.options.ca, cert: agent.options.cert, key: agent.options.key })
  t.after(() => writer.destroy())
  const watching = call('GET', `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=2`)
  const names = Array.from({ length: 30 }, (_, i) => `during-${i}`)
  await new Promise(resolve => setTimeout(resolve, 200))
  for (const name of names) {
    const res = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', agent: writer, headers: { 'content-type': 'application/json' } }, (r) => { r.resume(); r.on('end', () => resolve(r.statusCode!)) })
      req.on('error', reject)
      req.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }))
    })
    assert.equal(res, 201)
  }

  const watch = await watching
  assert.equal(watch.status, 200)
  assert.equal(watch.headers['transfer-encoding'], 'chunked')
  const events = watch.body.trim().split('\n').map(line => JSON.parse(line) as { type: string, object: { metadata: { name: string, resourceVersion: string } } })
  assert.deepEqual(events.map(e => `${e.type} ${e.object.metadata.name}`), names.map(n => `ADDED ${n}`))
  const revisions = events.map(e => Number(e.object.metadata.resourceVersion))
  assert.deepEqual(revisions, [...revisions].sort((a, b) => a - b))

  // The watch ended with its last chunk, so the connection it used serves the next request.
  const after = await call('GET', '/api/v1/namespaces/default/configmaps/during-0')
  assert.equal(after.status, 200)
  assert.equal(after.socketId, watch.socketId)
  assert.equal((JSON.parse(after.body) as { metadata: { name: string } }).metadata.name, 'during-0')
})
