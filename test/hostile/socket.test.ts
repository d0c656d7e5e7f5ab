// Hostile input only a real socket shows: heads past the limit and requests that do not parse
// get a Status and `Connection: close`; a watch with a timeout past setTimeout's range stays open.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { buildTestApp, USERS } from '../helpers/app.js'
import { MAX_HEADER_BYTES } from '../../plugins/client-errors.js'

/** Writes raw bytes and reads until the server closes the connection. */
function raw (port: number, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', c => chunks.push(c))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
    socket.write(bytes)
  })
}

const head = (extra: string): string =>
  `GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${USERS.admin.token}\r\n${extra}\r\n`

test('a request head past the limit, or one that does not parse, is a Status and a clean close', async (t) => {
  const app = await buildTestApp(t)
  await app.app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.app.server.address() as { port: number }).port

  // Heads up to the reference's 1 MiB are served.
  const big = await raw(port, head(`X-Big: ${'a'.repeat(64 * 1024)}\r\nConnection: close\r\n`))
  assert.match(big, /^HTTP\/1\.1 200 /)
  const token = await raw(port, `GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'t'.repeat(512 * 1024)}\r\nConnection: close\r\n\r\n`)
  assert.match(token, /^HTTP\/1\.1 401 /)

  for (const tooBig of [head(`X-Big: ${'a'.repeat(MAX_HEADER_BYTES)}\r\n`), `GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'t'.repeat(MAX_HEADER_BYTES)}\r\n\r\n`]) {
    const answer = await raw(port, tooBig)
    const [status, ...rest] = answer.split('\r\n\r\n')
    assert.match(status!, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/)
    assert.match(status!, /\r\nConnection: close/)
    assert.deepEqual(JSON.parse(rest.join('\r\n\r\n')), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 431,
      message: `request header fields too large: the limit is ${MAX_HEADER_BYTES} bytes`
    })
  }
  const garbage = await raw(port, 'GET / HTTP/1.1\r\nHost x\r\n\r\n')
  const [status, body] = garbage.split('\r\n\r\n')
  assert.match(status!, /^HTTP\/1\.1 400 Bad Request\r\n/)
  assert.match(status!, /\r\nConnection: close/)
  assert.deepEqual(JSON.parse(body!), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the request could not be parsed', reason: 'BadRequest', code: 400 })

  // Still serving.
  assert.match(await raw(port, head('Connection: close\r\n')), /^HTTP\/1\.1 200 /)
})

test('a watch whose timeoutSeconds is past setTimeout\'s range stays open and delivers events', async (t) => {
  const app = await buildTestApp(t)
  await app.app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.app.server.address() as { port: number }).port
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', path: '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=3000000', headers: { authorization: `Bearer ${USERS.admin.token}` } }, resolve)
    req.on('error', reject)
    req.end()
  })
  assert.equal(res.statusCode, 200)
  let ended = false
  res.on('end', () => { ended = true })
  const firstLine = new Promise<string>((resolve) => {
    let text = ''
    res.on('data', (c: Buffer) => { text += c.toString('utf8'); if (text.includes('\n')) resolve(text.split('\n')[0]!) })
  })
  const created = await app.request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: 'seen' } } })
  assert.equal(created.statusCode, 201)
  const event = JSON.parse(await firstLine)
  assert.equal(event.type, 'ADDED')
  assert.equal(event.object.metadata.name, 'seen')
  assert.equal(ended, false)
  res.destroy()
})
