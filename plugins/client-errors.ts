// Errors Node or Fastify meet before a request reaches a route (a head too large, a request
// line that does not parse, a path that is not UTF-8), answered as a Status like every other
// error a client can meet. A head over the limit closes the connection with `Connection: close`
// said out loud, so keep-alive clients do not meet a bare EOF.
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { badRequest, pathNotFound } from '../resources/status.js'

/** Request heads up to 1 MiB, as the reference server (Go's net/http default) accepts. */
export const MAX_HEADER_BYTES = 1024 * 1024

const statusBody = (code: number, message: string, reason?: string): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, ...(reason === undefined ? {} : { reason }), code })

const REASONS: Record<string, [number, string, string, string?]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', `request header fields too large: the limit is ${MAX_HEADER_BYTES} bytes`],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'the request was not received in time']
}

/** Fastify's clientErrorHandler: the socket has no request object yet, so the answer is written raw. */
export function clientErrorHandler (err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [code, text, message, reason] = REASONS[err.code ?? ''] ?? [400, 'Bad Request', 'the request could not be parsed', 'BadRequest']
  const body = statusBody(code, message, reason)
  if (socket.writable) {
    socket.end(`HTTP/1.1 ${code} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
}

/** Fastify's frameworkErrors: a path that is not valid percent-encoded UTF-8, or one too long to route. */
export function frameworkErrors (err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const apiErr = err.code === 'FST_ERR_BAD_URL'
    ? badRequest('the request path is not valid percent-encoded UTF-8')
    : err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? pathNotFound() : badRequest(err.message)
  void reply.code(apiErr.code).type('application/json').send(JSON.stringify(apiErr.status))
}
