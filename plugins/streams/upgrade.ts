// The upgrade-aware proxy of exec, attach and portforward (the reference's
// UpgradeAwareHandler.tryUpgrade): the client's upgrade request goes to the node agent, the
// agent's answer comes back, and after a 101 the bytes are piped both ways. A WebSocket request
// asking for a tunnelled SPDY protocol (`SPDY/3.1+portforward.k8s.io`, kubectl 1.31+) is sent to
// the agent as a SPDY upgrade and its bytes carried inside WebSocket messages (streamtunnel.go).
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ServerResponse } from 'node:http'
import type { StreamLocation } from '../../resources/define.js'
import { ApiError } from '../../resources/status.js'
import { dial, DialError, hostPort, isDroppedRequestHeader, type NodeAgentOptions } from './backend.js'
import { binaryFrame, closeFrame, handshakeAnswer, readFrames } from './websocket.js'

/** The raw connection of a request that arrived as an upgrade (Node's 'upgrade' event). */
const upgraded = new WeakMap<IncomingMessage, Duplex>()

/**
 * Routes upgrade requests through Fastify like any other (authentication, authorization,
 * audit), keeping their connection for the handler that switches protocols.
 */
export function acceptUpgrades (fastify: FastifyInstance): void {
  fastify.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (head.length > 0) socket.unshift(head)
    upgraded.set(req, socket)
    const res = new ServerResponse(req)
    res.assignSocket(socket as never)
    // An answer that switched nothing ends the connection: its parser is gone.
    res.once('finish', () => { socket.end() })
    socket.once('error', () => { socket.destroy() })
    fastify.routing(req, res)
  })
}

/** Whether the request asks to switch protocols (SPDY or WebSocket), as upstream's httpstream.IsUpgradeRequest. */
export const isUpgradeRequest = (headers: IncomingMessage['headers']): boolean =>
  [headers.connection ?? []].flat().some(v => v.toLowerCase().includes('upgrade'))

const TUNNEL_PREFIX = 'SPDY/3.1+'
const K8S_SUFFIX = '.k8s.io'

/** The SPDY protocols a WebSocket request tunnels (`SPDY/3.1+portforward.k8s.io`), prefix removed. */
export function tunnelledProtocols (headers: IncomingMessage['headers']): string[] {
  if (String(headers.upgrade ?? '').toLowerCase() !== 'websocket') return []
  return [headers['sec-websocket-protocol'] ?? []].flat().flatMap(v => v.split(','))
    .map(p => p.trim()).filter(p => p.startsWith(TUNNEL_PREFIX) && p.endsWith(K8S_SUFFIX)).map(p => p.slice(TUNNEL_PREFIX.length))
}

/** The request head sent to the agent. */
function requestHead (request: FastifyRequest, loc: StreamLocation, tunnel: string[]): string {
  const query = loc.query ?? (request.raw.url ?? '').split('?')[1] ?? ''
  const lines = [`${tunnel.length > 0 ? 'POST' : request.method} ${loc.path}${query === '' ? '' : `?${query}`} HTTP/1.1`, `Host: ${hostPort(loc.host, loc.port)}`]
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue
    if (name === 'connection' || name === 'upgrade') {
      if (tunnel.length === 0) lines.push(`${name}: ${[value].flat().join(', ')}`)
      continue
    }
    if (isDroppedRequestHeader(name)) continue
    if (tunnel.length > 0 && (name.startsWith('sec-websocket-') || name === 'x-stream-protocol-version')) continue
    for (const v of [value].flat()) lines.push(`${name}: ${v}`)
  }
  if (tunnel.length > 0) lines.push('Connection: Upgrade', 'Upgrade: SPDY/3.1', ...tunnel.map(p => `X-Stream-Protocol-Version: ${p}`))
  return lines.join('\r\n') + '\r\n\r\n'
}

interface BackendHead { status: number, headers: Map<string, string>, raw: Buffer, rest: Buffer }

const MAX_HEAD = 1 << 20

/** Reads the agent's response head; the bytes after it are `rest`. */
async function readHead (socket: Duplex): Promise<BackendHead> {
  return await new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0)
    const onData = (chunk: Buffer): void => {
      // Only the last chunk's start can complete a terminator the earlier ones began.
      const from = Math.max(0, buffered.length - 3)
      buffered = Buffer.concat([buffered, chunk])
      const end = buffered.indexOf('\r\n\r\n', from)
      if (end === -1) {
        if (buffered.length > MAX_HEAD) { cleanup(); reject(new Error('header size limit exceeded')) }
        return
      }
      cleanup()
      const raw = buffered.subarray(0, end + 4)
      const [statusLine, ...lines] = raw.toString('latin1').slice(0, -4).split('\r\n')
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? NaN)
      if (!Number.isInteger(status)) { reject(new Error(`malformed HTTP response ${JSON.stringify(statusLine)}`)); return }
      const headers = new Map<string, string>()
      for (const line of lines) {
        const colon = line.indexOf(':')
        if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
      }
      resolve({ status, headers, raw, rest: buffered.subarray(end + 4) })
    }
    const onEnd = (): void => { cleanup(); reject(new Error('unexpected EOF')) }
    const onError = (err: Error): void => { cleanup(); reject(err) }
    const cleanup = (): void => { socket.off('data', onData); socket.off('end', onEnd); socket.off('error', onError) }
    socket.on('data', onData)
    socket.once('end', onEnd)
    socket.once('error', onError)
  })
}

/** Pipes two connections both ways; either end closing closes the other. */
function pipeBoth (a: Duplex, b: Duplex): void {
  a.pipe(b)
  b.pipe(a)
  const close = (): void => { a.destroy(); b.destroy() }
  a.once('close', close)
  b.once('close', close)
  a.once('error', close)
  b.once('error', close)
}

/**
 * Carries an upgrade request to the agent at `loc`. Throws ApiError before anything is written
 * to the client (the agent not dialled: 500 `error dialing backend: ...`); after that the
 * client's connection is the handler's.
 */
export async function carryUpgrade (request: FastifyRequest, reply: FastifyReply, loc: StreamLocation, agent: NodeAgentOptions): Promise<void> {
  const client = upgraded.get(request.raw)
  const tunnel = tunnelledProtocols(request.headers)
  let backend: Duplex
  try {
    backend = await dial(loc, agent)
  } catch (err) {
    if (err instanceof DialError) throw new ApiError(500, '', `error dialing backend: ${err.message}`)
    throw err
  }
  if (client === undefined) {
    // In process (app.inject) there is no connection to switch.
    backend.destroy()
    throw new ApiError(500, '', 'error dialing backend: the request arrived without a connection to upgrade')
  }
  backend.write(requestHead(request, loc, tunnel))
  let head: BackendHead
  try {
    head = await readHead(backend)
  } catch (err) {
    backend.destroy()
    throw new ApiError(500, '', `error dialing backend: ${(err as Error).message}`)
  }
  void reply.hijack()
  // The answer went out on the socket, not through the response: its end is what the request
  // metrics and the audit's ResponseComplete wait for, with the agent's status.
  client.once('close', () => {
    reply.raw.statusCode = head.status
    if (!reply.raw.writableFinished) reply.raw.emit('finish')
  })
  if (head.status !== 101) {
    // Not upgraded: the agent's answer is echoed and the connection closed.
    client.write(head.raw)
    if (head.rest.length > 0) client.write(head.rest)
    const length = Number(head.headers.get('content-length') ?? NaN)
    let seen = head.rest.length
    const finish = (): void => { backend.destroy(); client.end() }
    if (seen >= length) { finish(); return }
    backend.on('data', (chunk: Buffer) => {
      client.write(chunk)
      seen += chunk.length
      if (seen >= length) finish()
    })
    backend.once('end', finish)
    backend.once('error', finish)
    return
  }
  if (tunnel.length === 0) {
    client.write(head.raw)
    if (head.rest.length > 0) client.write(head.rest)
    pipeBoth(client, backend)
    return
  }
  const connection = (head.headers.get('connection') ?? '').toLowerCase()
  const upgrade = (head.headers.get('upgrade') ?? '').toLowerCase()
  if (!connection.includes('upgrade') || !upgrade.includes('spdy/3.1')) {
    backend.destroy()
    const message = 'unable to upgrade: missing upgrade headers in response\n'
    client.end(`HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${message.length}\r\nConnection: close\r\n\r\n${message}`)
    return
  }
  const chosen = head.headers.get('x-stream-protocol-version') ?? ''
  client.write(handshakeAnswer(String(request.headers['sec-websocket-key'] ?? ''), chosen === '' ? '' : TUNNEL_PREFIX + chosen))
  if (head.rest.length > 0) client.write(binaryFrame(head.rest))
  backend.on('data', (chunk: Buffer) => { client.write(binaryFrame(chunk)) })
  let closed = false
  const closeAll = (): void => {
    if (closed) return
    closed = true
    backend.destroy()
    if (!client.destroyed && client.writable) client.end(closeFrame())
  }
  backend.once('end', closeAll)
  backend.once('close', closeAll)
  backend.once('error', closeAll)
  readFrames(client, (payload) => { backend.write(payload) }, () => { backend.destroy(); client.destroy() })
}
