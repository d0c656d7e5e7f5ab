import type { FastifyRequest } from 'fastify'

/**
 * The bearer token of a request, or undefined when it has none; read as the reference server
 * reads it (split at the first spaces), so a malformed token (`Bearer a b`, a tab inside) is
 * still a token, which then fails as invalid (401), never a request without credentials.
 */
export function bearerToken (request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (header === undefined) return undefined
  const parts = header.trim().split(' ')
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined
  return parts[1] === '' ? undefined : parts[1]
}
