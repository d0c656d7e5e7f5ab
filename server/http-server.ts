// The Fastify instance itself: HTTPS (HTTP/2 and HTTP/1.1 on one port, chosen by ALPN) and client
// certificates, header and body limits, logging.
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import type { Http2SecureServer, Http2ServerRequest, Http2Session } from 'node:http2'
import type { Socket } from 'node:net'
import { clientErrorHandler, frameworkErrors, MAX_HEADER_BYTES } from '../plugins/client-errors.js'
import { BODY_LIMIT } from '../plugins/rest/index.js'
import type { AppOptions } from './options.js'
import { tlsProtocolOptions } from './tls-protocol.js'
import { contextFor, sniContexts } from './sni-certificates.js'
import type { SecureContext } from 'node:tls'

/** --http2-max-streams-per-connection's default, the reference server's. */
export const DEFAULT_HTTP2_MAX_STREAMS = 1000
/** What 0 stands for: Go's HTTP/2 server default, which the reference falls back to. */
const UNSET_HTTP2_MAX_STREAMS = 250

export function createHttpServer (opts: AppOptions): FastifyInstance {
  const http2 = opts.tls !== undefined && opts.http2?.disabled !== true
  const forceClose = opts.shutdown === undefined
  const tlsOptions = opts.tls === undefined ? undefined : secureOptions(opts.tls, opts, http2)
  const app = Fastify({
    logger: opts.logger ?? false,
    logController: new LogController({ disableRequestLogging: opts.logRequests !== true }),
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: 1024, ignoreTrailingSlash: true },
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    clientErrorHandler,
    frameworkErrors,
    // A graceful close serves what still arrives on an open connection (with Connection: close)
    // rather than Fastify's 503, whose body is no Status; a forced close answers 503.
    return503OnClosing: forceClose,
    forceCloseConnections: forceClose,
    // Fastify types an HTTP/2 instance apart; its handlers see the same request and reply here.
    ...(tlsOptions === undefined ? {} : http2 ? { http2: true, https: http2Settings(tlsOptions, opts) } : { https: tlsOptions }) as object
  }) as unknown as FastifyInstance
  if (tlsOptions !== undefined) {
    // Without TCP_NODELAY a streamed answer's last small write waits for the client's delayed
    // ACK (40 ms on Linux): every chunked list paid it. The HTTP/2 server's HTTP/1.1
    // connections do not get Node's HTTP default; Go's servers set it on every connection.
    app.server.on('secureConnection', (socket: Socket) => { socket.setNoDelay(true) })
  }
  if (http2) {
    const server = app.server as unknown as Http2SecureServer & { maxHeaderSize?: number }
    // HTTP/1.1 connections on this server are parsed by Node's http layer, which reads its head
    // limit from the server object rather than from the TLS options.
    server.maxHeaderSize = MAX_HEADER_BYTES
    app.addHook('onRequest', announceStreamedBody)
    if (forceClose) cutConnectionsOnClose(app, server)
  }
  return app
}

/** The TLS server's options: the default certificate, client CAs, versions and suites, and the certificates chosen by SNI. */
function secureOptions (tls: NonNullable<AppOptions['tls']>, opts: AppOptions, http2: boolean): object {
  const context = { ca: tls.clientCA, ...tlsProtocolOptions(opts.tlsProtocol, http2) }
  const sni = opts.sniCertificates === undefined || opts.sniCertificates.length === 0 ? undefined : sniContexts(opts.sniCertificates, context)
  return {
    cert: tls.cert,
    key: tls.key,
    ...context,
    requestCert: tls.clientCA !== undefined,
    rejectUnauthorized: false,
    maxHeaderSize: MAX_HEADER_BYTES,
    ...(sni === undefined ? {} : { SNICallback: (name: string, done: (err: Error | null, ctx?: SecureContext) => void) => { done(null, contextFor(sni, name)) } })
  }
}

/**
 * Fastify parses a body only when the head announces one (content-length or transfer-encoding).
 * An HTTP/2 request may stream its body with neither (`kubectl create --raw -f -`); that its
 * stream stays open after the head is the announcement, given to Fastify in HTTP/1.1's words.
 */
function announceStreamedBody (request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const raw = request.raw as unknown as Http2ServerRequest
  if (raw.httpVersionMajor === 2 && raw.headers['content-length'] === undefined && raw.stream.endAfterHeaders === false) {
    raw.headers['transfer-encoding'] = 'chunked'
  }
  done()
}

/** The HTTP/2 server's settings: HTTP/1.1 still served, header lists as large as HTTP/1.1 heads. */
function http2Settings<T extends object> (tls: T, opts: AppOptions): T & Record<string, unknown> {
  return {
    ...tls,
    allowHTTP1: true,
    settings: {
      maxConcurrentStreams: (opts.http2?.maxStreamsPerConnection ?? DEFAULT_HTTP2_MAX_STREAMS) || UNSET_HTTP2_MAX_STREAMS,
      maxHeaderListSize: MAX_HEADER_BYTES
    },
    maxSessionMemory: 64
  }
}

/**
 * Fastify's forced close reaches HTTP/1.1 connections only through closeAllConnections, which
 * an HTTP/2 server lacks (before Node 24), and HTTP/2 sessions only by a graceful close that waits
 * for open watches. A forced close cuts both, as it does on an HTTP/1.1 server.
 */
function cutConnectionsOnClose (app: FastifyInstance, server: Http2SecureServer): void {
  const sockets = new Set<Socket>()
  const sessions = new Set<Http2Session>()
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  server.on('session', (session: Http2Session) => {
    sessions.add(session)
    session.once('close', () => sessions.delete(session))
  })
  app.addHook('preClose', async () => {
    for (const session of sessions) session.destroy()
    for (const socket of sockets) socket.destroy()
  })
}
