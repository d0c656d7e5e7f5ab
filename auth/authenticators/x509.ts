// Client certificates verified by the TLS layer against the client CA: CN is the user,
// every O a group.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { TLSSocket } from 'node:tls'
import { parseClientCertificate } from '../pki.js'
import { tlsConnectionOf } from '../tls-connection.js'

type Identity = ReturnType<typeof parseClientCertificate>

export default fp(async function x509 (fastify: FastifyInstance) {
  // A connection's certificate is fixed at its handshake, and decoding it is costly: once per
  // connection, not per request on a kept-alive one.
  const identities = new WeakMap<TLSSocket, { identity: Identity } | { error: string }>()
  fastify.authn.add('x509', (request) => {
    const socket = tlsConnectionOf(request.raw)
    if (socket === undefined) return undefined
    let known = identities.get(socket)
    if (known === undefined) {
      known = identify(socket)
      identities.set(socket, known)
    }
    if ('error' in known) throw new Error(known.error)
    return known.identity
  })
}, { name: 'authn:x509', dependencies: ['authn'] })

function identify (socket: TLSSocket): { identity: Identity } | { error: string } {
  const peer = socket.getPeerCertificate()
  if (peer === null || peer === undefined || Object.keys(peer).length === 0) return { identity: undefined }
  // A certificate that does not chain to the client CA is invalid credentials, not anonymity.
  if (!socket.authorized) return { error: `client certificate not verified: ${String(socket.authorizationError)}` }
  return { identity: parseClientCertificate(peer) }
}
