// Client certificates verified by the TLS layer against the client CA: CN is the user,
// every O a group.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { TLSSocket } from 'node:tls'
import { parseClientCertificate } from '../pki.js'

export default fp(async function x509 (fastify: FastifyInstance) {
  fastify.authn.add('x509', (request) => {
    const socket = request.raw.socket as TLSSocket
    if (typeof socket.getPeerCertificate !== 'function') return undefined
    const peer = socket.getPeerCertificate()
    if (peer === null || peer === undefined || Object.keys(peer).length === 0) return undefined
    // A certificate that does not chain to the client CA is invalid credentials, not anonymity.
    if (!socket.authorized) throw new Error(`client certificate not verified: ${String(socket.authorizationError)}`)
    return parseClientCertificate(peer)
  })
}, { name: 'authn:x509', dependencies: ['authn'] })
