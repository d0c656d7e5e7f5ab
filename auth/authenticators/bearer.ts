import type { FastifyRequest } from 'fastify'

/** The bearer token of a request, or undefined when it has none. */
export function bearerToken (request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (header === undefined) return undefined
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return m === null ? undefined : m[1]
}
