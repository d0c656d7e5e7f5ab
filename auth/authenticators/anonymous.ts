// Requests that no method claims become system:anonymous; a request carrying a bearer token no
// authenticator accepted is 401 instead (the chain checks that before asking this one).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { unauthorized } from '../../resources/status.js'
import { bearerToken } from './bearer.js'

export const ANONYMOUS_USER = 'system:anonymous'
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated'

export default fp(async function anonymous (fastify: FastifyInstance) {
  fastify.authn.add('anonymous', (request) => {
    if (bearerToken(request) !== undefined) throw unauthorized()
    return { username: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] }
  }, { last: true })
}, { name: 'authn:anonymous', dependencies: ['authn'] })
