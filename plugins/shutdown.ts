// Graceful shutdown, in the reference server's order once /readyz has failed for the shutdown
// delay (bin/server.ts): the listener closes, requests in flight finish and their connections
// close after their response, watch streams end with a clean last chunk after
// --shutdown-watch-termination-grace-period, and whatever still runs after the bound is cut.
import fp from 'fastify-plugin'
import type { Socket } from 'node:net'
import { Server as TlsServer, type TLSSocket } from 'node:tls'
import type { Http2Session } from 'node:http2'
import type { ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'

export interface ShutdownOptions {
  /** --shutdown-watch-termination-grace-period: how long open watches keep streaming (default 0: they end at once). */
  watchTerminationGracePeriodMs?: number
  /** How long requests in flight may take to finish before their connections are cut (default 60 s, the reference server's --request-timeout). */
  requestTimeoutMs?: number
}

export default fp(async function shutdown (fastify: FastifyInstance, opts: ShutdownOptions) {
  const graceMs = opts.watchTerminationGracePeriodMs ?? 0
  const boundMs = graceMs + (opts.requestTimeoutMs ?? 60_000)
  // Connections are tracked as they open (not per request), so shutdown can close each one once
  // its response is done instead of leaving keep-alive connections to their idle timeout.
  const sockets = new Set<Socket>()
  const track = (socket: Socket): void => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  }
  fastify.server.on(fastify.server instanceof TlsServer ? 'secureConnection' : 'connection', track)
  // An HTTP/2 connection is a session of many streams: it is closed as a whole, with GOAWAY, which
  // refuses new streams and lets the open ones finish.
  const sessions = new Set<Http2Session>()
  fastify.server.on('session', (session: Http2Session) => {
    sessions.add(session)
    session.once('close', () => sessions.delete(session))
  })

  let closing = false
  /** Sockets already ended or waiting for their response to finish. */
  const handled = new WeakSet<Socket>()
  const closeWhenDone = (socket: Socket): void => {
    if (handled.has(socket) || (socket as TLSSocket).alpnProtocol === 'h2') return
    handled.add(socket)
    const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
    if (res == null || res.writableFinished) {
      socket.end()
      return
    }
    // A response not yet begun tells its client so (Connection: close).
    if (!res.headersSent) res.shouldKeepAlive = false
    res.once('finish', () => socket.end())
  }
  const timers: NodeJS.Timeout[] = []
  fastify.addHook('preClose', async () => {
    closing = true
    const endWatches = (): void => {
      fastify.endWatches()
      for (const socket of sockets) closeWhenDone(socket)
      for (const session of sessions) if (!session.closed) session.close()
    }
    if (graceMs > 0) timers.push(setTimeout(endWatches, graceMs))
    else endWatches()
    // A connection that becomes idle later (a request that was in flight) closes once done.
    const sweep = setInterval(() => { for (const socket of sockets) closeWhenDone(socket) }, 100)
    timers.push(sweep)
    timers.push(setTimeout(() => {
      fastify.log.warn({ connections: sockets.size }, 'shutdown: cutting the connections still open after the grace period')
      for (const session of sessions) session.destroy()
      for (const socket of sockets) socket.destroy()
    }, boundMs))
    for (const t of timers) t.unref()
  })
  fastify.addHook('onClose', async () => {
    if (!closing) return
    for (const t of timers) clearTimeout(t)
  })
}, { name: 'shutdown', dependencies: ['rest'] })
