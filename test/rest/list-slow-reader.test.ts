// A big list to a reader that takes nothing: the stream waits for the socket, so the server holds
// about a chunk of it, and at the request's deadline the answer is cut off (the connection
// closed) and counted as a termination, rather than pinning the items and the socket for good.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { buildTestApp, USERS } from '../helpers/app.js'
import { samples, value } from '../metrics/exposition.js'

const CM = '/api/v1/namespaces/default/configmaps'
const OBJECTS = 200
const VALUE_BYTES = 60_000

test('a stalled reader of a streamed list holds a bounded buffer and is cut off at the deadline', async (t) => {
  const { app, request } = await buildTestApp(t, { flowControl: { requestTimeoutMs: 2000 } })
  for (let i = 0; i < OBJECTS; i++) {
    const res = await request({ method: 'POST', url: CM, payload: { metadata: { name: `big-${i}` }, data: { v: 'x'.repeat(VALUE_BYTES) } } })
    assert.equal(res.statusCode, 201, res.body)
  }
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  assert.ok(address !== null && typeof address === 'object')
  const served = new Promise<Socket>(resolve => app.server.once('connection', resolve))
  const client = connect(address.port, '127.0.0.1')
  t.after(() => client.destroy())
  client.pause()
  client.write(`GET ${CM} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${USERS.admin.token}\r\n\r\n`)
  const server = await served
  const closed = new Promise<void>(resolve => server.once('close', () => { resolve() }))
  // Well before the deadline, the kernel's buffers are full and the stream waits.
  await new Promise(resolve => setTimeout(resolve, 1000))
  assert.ok(!server.destroyed, 'still open before the deadline')
  const listBytes = OBJECTS * VALUE_BYTES
  assert.ok(server.writableLength < 1024 * 1024, `${server.writableLength} bytes waiting in the server for a ${listBytes}-byte list`)
  await closed
  const metrics = samples((await request({ method: 'GET', url: '/metrics' })).body)
  assert.equal(value(metrics, 'apiserver_request_terminations_total', { verb: 'LIST', resource: 'configmaps', code: '504' }), 1)
})
