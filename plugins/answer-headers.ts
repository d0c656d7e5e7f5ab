// The headers every answer carries, set as a request arrives so that every answer has them,
// a 401, a 429 or a 404 included (the reference's outermost filters, WithAuditInit and
// WithCacheControl): Audit-Id, the client's own or a new UUID, which the audit log's events
// carry too; and Cache-Control "no-cache, private", which a handler may replace (OpenAPI's
// versioned documents are immutable). Set on the raw answer, so streams written past Fastify's
// reply (watches, proxies) carry them as well.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { randomUUID } from 'node:crypto'

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's audit ID: the Audit-Id request header when given, else a new UUID. */
    auditId: string
  }
}

const NOT_CACHED = 'no-cache, private'

export default fp(async function answerHeaders (fastify: FastifyInstance) {
  fastify.decorateRequest('auditId', '')
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const given = request.headers['audit-id']
    let id = typeof given === 'string' && given !== '' ? given : randomUUID()
    const raw = reply.raw
    try {
      raw.setHeader('Audit-Id', id)
    } catch {
      // A value Node will not write back (the HTTP/2 layer is stricter than HTTP/1.1's parser).
      raw.setHeader('Audit-Id', id = randomUUID())
    }
    request.auditId = id
    raw.setHeader('Cache-Control', NOT_CACHED)
    done()
  })
}, { name: 'answer-headers' })
