// A watch over a real TLS connection, as bytes: the chunked framing the server writes straight
// to the socket for each flush round, the last chunk when the watch times out, the same
// kept-alive connection serving the next request, and the cap on what a slow reader leaves unsent.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { Agent, request } from 'node:https'
import { connect, type TLSSocket } from 'node:tls'
import { startTestServer } from '../helpers/tls-app.js'

interface Answer { status: number, headers: Record<string, string | string[] | undefined>, body: string, socketId: number }

test('watch over TLS: chunked events, a clean end at the timeout, and the connection kept', async (t) => {
  const server = await startTestServer(t)
  const agent = new Agent({
    keepAlive: true,
    maxSockets: 1,
    ...server.admin
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
  // Long enough for 30 creates on a busy 2-core machine: the full suite runs beside other load.
  const watching = call('GET', `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=6`)
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

/** Creates a ConfigMap with a payload of `bytes`; returns the status. */
function createBig (url: string, agent: Agent, name: string, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/v1/namespaces/default/configmaps`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (r) => { r.resume(); r.on('end', () => resolve(r.statusCode!)) })
    req.on('error', reject)
    req.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload: 'x'.repeat(bytes) } }))
  })
}

/** A raw TLS connection sending one watch request; `ended` settles at the stream's last chunk. */
async function rawWatch (t: { after (fn: () => unknown): void }, url: string, creds: { ca: string, cert: string, key: string }, query: string): Promise<{ socket: TLSSocket, text: () => string, ended: Promise<void> }> {
  const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port), ...creds })
  t.after(() => socket.destroy())
  await once(socket, 'secureConnect')
  let text = ''
  const ended = new Promise<void>((resolve) => {
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1')
      if (text.endsWith('\r\n0\r\n\r\n')) resolve()
    })
  })
  socket.write(`GET /api/v1/namespaces/default/configmaps?watch=true&${query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
  return { socket, text: () => text, ended }
}

const added = (text: string): number => text.split('"type":"ADDED"').length - 1
const within = <T>(ms: number, p: Promise<T>): Promise<T | 'timeout'> =>
  Promise.race([p, new Promise<'timeout'>(resolve => setTimeout(() => resolve('timeout'), ms).unref())])

test('watch over TLS: the unsent-output cap closes a client that stops reading, not one that reads a large burst', async (t) => {
  const cap = 64 * 1024
  const server = await startTestServer(t, { watchMaxBufferedBytes: cap })
  const creds = server.admin
  const writer = new Agent({ keepAlive: true, ...creds })
  t.after(() => writer.destroy())

  // A reader keeping up: initial events far over the cap in one round, then a live event.
  for (let i = 0; i < 5; i++) assert.equal(await createBig(server.url, writer, `initial-${i}`, 200 * 1024), 201)
  const reader = await rawWatch(t, server.url, creds, 'timeoutSeconds=3')
  await new Promise(resolve => setTimeout(resolve, 300))
  assert.equal(await createBig(server.url, writer, 'live', 10), 201)
  assert.notEqual(await within(10_000, reader.ended), 'timeout', 'the watch did not end at its timeout')
  assert.equal(added(reader.text()), 6, 'every initial event and the live one')

  // A reader that stops: far more than the loopback socket buffers on both sides hold, so most
  // of it waits in the server, and the stream is closed long before its own timeout.
  const stalled = await rawWatch(t, server.url, creds, `resourceVersion=0&timeoutSeconds=120`)
  stalled.socket.pause()
  await new Promise(resolve => setTimeout(resolve, 200))
  const writes = 100
  for (let i = 0; i < writes; i++) assert.equal(await createBig(server.url, writer, `big-${i}`, 200 * 1024), 201)
  stalled.socket.resume()
  assert.notEqual(await within(30_000, stalled.ended), 'timeout', 'the stalled watch was not closed')
  assert.match(stalled.text(), /^HTTP\/1\.1 200 /)
  const delivered = added(stalled.text())
  assert.ok(delivered > 0 && delivered < 6 + writes, `delivered ${delivered} of ${6 + writes} events before the close`)
})
