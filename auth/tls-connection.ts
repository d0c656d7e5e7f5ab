// The TLS connection a request came over. HTTP/1.1 requests own their socket; an HTTP/2 request is
// one stream of a session, whose `socket` is a fresh stand-in per stream, so per-connection facts
// (the client certificate, decoded once) are keyed by the session's socket, one per connection.
import type { IncomingMessage } from 'node:http'
import type { Http2ServerRequest } from 'node:http2'
import type { TLSSocket } from 'node:tls'

export function tlsConnectionOf (raw: IncomingMessage | Http2ServerRequest): TLSSocket | undefined {
  const socket = ((raw as Http2ServerRequest).stream?.session?.socket ?? raw.socket) as TLSSocket | undefined
  return socket !== undefined && typeof socket.getPeerCertificate === 'function' ? socket : undefined
}
