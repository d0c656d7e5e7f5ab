// HTTP/2 beside HTTP/1.1 on one TLS port, chosen by ALPN, as the reference serves: client
// certificates identify an HTTP/2 client, one connection carries a watch and other requests at
// once, a body streamed without content-length is read, the limits are announced, and
// --disable-http2-serving leaves HTTP/1.1 alone.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2'
import { request as httpsRequest } from 'node:https'
import { connect as tlsConnect } from 'node:tls'
import { Socket } from 'node:net'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestServer, type TestServer } from '../helpers/tls-app.js'

interface Credentials { ca: string, cert: string, key: string }

function credentialsOf (server: TestServer): Credentials {
  const pki = (name: string): string => readFileSync(join(server.dir, 'pki', name), 'utf8')
  return { ca: pki('ca.crt'), cert: pki('admin.crt'), key: pki('admin.key') }
}

function session (server: TestServer, creds: Partial<Credentials>): ClientHttp2Session {
  const s = connect(server.url, { ...creds, ALPNProtocols: ['h2'] })
  s.on('error', () => {})
  return s
}

interface Answer { status: number, headers: IncomingHttpHeaders, body: string }

/** One request on an HTTP/2 session; `body` chunks are written apart, with no content-length. */
function h2 (s: ClientHttp2Session, method: string, path: string, body?: string[]): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = s.request({ ':method': method, ':path': path, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, { endStream: body === undefined })
    let headers: IncomingHttpHeaders = {}
    let text = ''
    stream.on('response', (h) => { headers = h })
    stream.on('data', (d: Buffer) => { text += d.toString() })
    stream.on('end', () => resolve({ status: Number(headers[':status']), headers, body: text }))
    stream.on('error', reject)
    if (body !== undefined) {
      const [first, ...rest] = body
      stream.write(first)
      setTimeout(() => { for (const part of rest) stream.write(part); stream.end() }, 20)
    }
  })
}

function alpnOf (server: TestServer, protocols: string[]): Promise<string | false> {
  const { port } = new URL(server.url)
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), ALPNProtocols: protocols, rejectUnauthorized: false }, () => {
      resolve(socket.alpnProtocol ?? false)
      socket.end()
    })
    socket.on('error', reject)
  })
}

describe('HTTP/2', () => {
  it('is chosen by ALPN beside HTTP/1.1 on the same port', async (t) => {
    const server = await startTestServer(t)
    assert.equal(await alpnOf(server, ['h2', 'http/1.1']), 'h2')
    assert.equal(await alpnOf(server, ['http/1.1']), 'http/1.1')
    const creds = credentialsOf(server)
    const h1 = await new Promise<number>((resolve, reject) => {
      httpsRequest(`${server.url}/api/v1/namespaces`, creds, (res) => { res.resume(); resolve(res.statusCode ?? 0) }).on('error', reject).end()
    })
    assert.equal(h1, 200)
  })

  it('identifies a client by its certificate; one without is not identified', async (t) => {
    const server = await startTestServer(t)
    const creds = credentialsOf(server)
    const admin = session(server, creds)
    t.after(() => admin.close())
    const review = await h2(admin, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', [JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' })])
    assert.equal(review.status, 201, review.body)
    assert.deepEqual(JSON.parse(review.body).status.userInfo.groups.includes('system:masters'), true)
    // The certificate is the connection's: a second request on the session is the same user.
    assert.equal((await h2(admin, 'GET', '/api/v1/namespaces')).status, 200)
    const anonymous = session(server, { ca: creds.ca })
    t.after(() => anonymous.close())
    const refused = await h2(anonymous, 'GET', '/api/v1/namespaces')
    assert.equal(refused.status, 401, refused.body)
    assert.equal(JSON.parse(refused.body).reason, 'Unauthorized')
  })

  it('carries a watch and other requests on one connection, and reads a body sent without a length', async (t) => {
    const server = await startTestServer(t)
    const s = session(server, credentialsOf(server))
    t.after(() => s.close())
    const events: string[] = []
    const watch = s.request({ ':method': 'GET', ':path': '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=5' })
    watch.setEncoding('utf8')
    let buffered = ''
    watch.on('data', (d: string) => {
      buffered += d
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      for (const line of lines) events.push(JSON.parse(line).type + ' ' + JSON.parse(line).object.metadata.name)
    })
    const configMap = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'streamed' }, data: { a: 'b' } })
    const created = await h2(s, 'POST', '/api/v1/namespaces/default/configmaps', [configMap.slice(0, 20), configMap.slice(20)])
    assert.equal(created.status, 201, created.body)
    assert.deepEqual(JSON.parse(created.body).data, { a: 'b' })
    const deadline = Date.now() + 5000
    while (!events.includes('ADDED streamed') && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20))
    assert.ok(events.includes('ADDED streamed'), JSON.stringify(events))
    const got = await h2(s, 'GET', '/api/v1/namespaces/default/configmaps/streamed')
    assert.equal(got.status, 200)
    assert.equal(JSON.parse(got.body).metadata.name, 'streamed')
    watch.close()
  })

  it('announces the stream limit, and --http2-max-streams-per-connection sets it', async (t) => {
    const server = await startTestServer(t, { http2: { maxStreamsPerConnection: 7 } })
    const s = session(server, credentialsOf(server))
    t.after(() => s.close())
    const settings = await new Promise<{ maxConcurrentStreams?: number, maxHeaderListSize?: number }>(resolve => s.once('remoteSettings', resolve))
    assert.equal(settings.maxConcurrentStreams, 7)
    assert.equal(settings.maxHeaderListSize, 1024 * 1024)
  })

  it('is not offered with --disable-http2-serving', async (t) => {
    const server = await startTestServer(t, { http2: { disabled: true } })
    assert.equal(await alpnOf(server, ['h2', 'http/1.1']), 'http/1.1')
    const refused = await new Promise<string>((resolve) => {
      const s = connect(server.url, { ...credentialsOf(server), ALPNProtocols: ['h2'] })
      s.on('error', (err: NodeJS.ErrnoException) => { resolve(err.code ?? err.message) })
      s.on('connect', () => { s.close(); resolve('connected') })
    })
    assert.notEqual(refused, 'connected')
  })

  it('turns Nagle off on every connection, HTTP/1.1 and HTTP/2, with or without HTTP/2 served', async (t) => {
    // A streamed answer's last small write would otherwise wait for the client's delayed ACK.
    const serverSide = new Set<Socket>()
    const setNoDelay = Socket.prototype.setNoDelay
    t.mock.method(Socket.prototype, 'setNoDelay', function (this: Socket & { server?: unknown }, noDelay?: boolean) {
      if (noDelay !== false && this.server !== undefined) serverSide.add(this)
      return setNoDelay.call(this, noDelay)
    })
    for (const opts of [{}, { http2: { disabled: true } }]) {
      const server = await startTestServer(t, opts)
      const accepted: Socket[] = []
      server.app.server.on('secureConnection', (socket: Socket) => { accepted.push(socket) })
      const creds = credentialsOf(server)
      const h1 = await new Promise<number>((resolve, reject) => {
        httpsRequest(`${server.url}/api/v1/namespaces`, { ...creds, agent: false, ALPNProtocols: ['http/1.1'] } as object, (res) => { res.resume(); resolve(res.statusCode ?? 0) }).on('error', reject).end()
      })
      assert.equal(h1, 200)
      if (opts.http2 === undefined) {
        const s = session(server, creds)
        assert.equal((await h2(s, 'GET', '/api/v1/namespaces')).status, 200)
        s.close()
      }
      assert.ok(accepted.length >= (opts.http2 === undefined ? 2 : 1))
      assert.ok(accepted.every(socket => serverSide.has(socket)), 'every accepted connection has TCP_NODELAY')
    }
  })
})
