// The authentication chain: authenticators in order, the first that recognises the request
// decides; invalid credentials are 401 at once, never a fall-through to anonymous.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError, unauthorized } from '../plugins/errors.js'

export interface UserInfo {
  username: string
  uid?: string
  groups: string[]
  extra?: Record<string, string[]>
}

/**
 * Returns the user when the request carries credentials this method recognises and they are
 * valid; undefined when the request carries none of its kind; throws (any error) when they are
 * present but invalid, which ends the request with 401.
 */
export type Authenticator = (request: FastifyRequest) => Promise<UserInfo | undefined> | UserInfo | undefined

export interface AuthenticationChain {
  /** Appends an authenticator; `last` ones (anonymous) run after all others. */
  add (name: string, authenticator: Authenticator, opts?: { last?: boolean }): void
  /** Runs the chain on a request as the hook does; exported for token reviews. */
  authenticate (request: FastifyRequest): Promise<UserInfo>
}

export const AUTHENTICATED_GROUP = 'system:authenticated'
/** Members hold every permission, whatever the authorizers say (escalation checks too). */
export const PRIVILEGED_GROUP = 'system:masters'
/** The identity the server's own start-up writes use (default roles, aggregation). */
export const APISERVER_USER: UserInfo = { username: 'system:apiserver', groups: [PRIVILEGED_GROUP, AUTHENTICATED_GROUP] }

declare module 'fastify' {
  interface FastifyInstance { authn: AuthenticationChain }
  interface FastifyRequest { user: UserInfo }
}

export default fp(async function authn (fastify: FastifyInstance) {
  const first: Array<[string, Authenticator]> = []
  const last: Array<[string, Authenticator]> = []
  const chain: AuthenticationChain = {
    add (name, authenticator, opts) { (opts?.last === true ? last : first).push([name, authenticator]) },
    async authenticate (request) {
      for (const [name, authenticator] of [...first, ...last]) {
        let user: UserInfo | undefined
        try {
          user = await authenticator(request)
        } catch (err) {
          request.log.debug({ err, authenticator: name }, 'authentication failed')
          throw err instanceof ApiError && err.code === 401 ? err : unauthorized()
        }
        if (user === undefined) continue
        const groups = user.groups.includes(AUTHENTICATED_GROUP) || user.username === 'system:anonymous'
          ? user.groups
          : [...user.groups, AUTHENTICATED_GROUP]
        return { ...user, groups }
      }
      throw unauthorized()
    }
  }
  fastify.decorate('authn', chain)
  fastify.decorateRequest('user', null as unknown as UserInfo)
  fastify.addHook('onRequest', async (request) => {
    request.user = await chain.authenticate(request)
  })
}, { name: 'authn', dependencies: ['request-info', 'errors'] })
