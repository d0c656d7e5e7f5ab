// The authentication chain: authenticators in order, the first that recognises the request
// decides; invalid credentials are 401 at once, never a fall-through to anonymous.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError, unauthorized } from '../resources/status.js'
import { bearerToken } from './authenticators/bearer.js'
import { withAuthenticatedGroup, type UserInfo } from '../resources/user-info.js'

/**
 * Returns the user when the request carries credentials this method recognises and they are
 * valid; undefined when the request carries none of its kind; throws (any error) when they are
 * present but invalid, which ends the request with 401.
 */
export type Authenticator = (request: FastifyRequest) => Promise<UserInfo | undefined> | UserInfo | undefined

/** A user a bearer token stands for, with the audiences the token is valid for. */
export interface TokenResult { user: UserInfo, audiences?: string[] }

/**
 * Verifies a bearer token for one of `audiences`. Returns undefined when the token is not of
 * this method's kind or not known to it (the next method is asked); throws when it is of this
 * method's kind but invalid (expired, forged, revoked). An audience-aware method returns the
 * subset of `audiences` the token is valid for; a method that returns none is audience-agnostic
 * and valid for the API audiences only.
 */
export type TokenAuthenticator = (token: string, audiences: string[]) => Promise<TokenResult | undefined> | TokenResult | undefined

export interface AuthenticationChain {
  /** Appends an authenticator; `last` ones (anonymous) run after all others. */
  add (name: string, authenticator: Authenticator, opts?: { last?: boolean }): void
  /** Appends a bearer-token method; the first one added puts the bearer step into the chain. */
  addToken (name: string, authenticator: TokenAuthenticator): void
  /** Runs the chain on a request as the hook does; exported for token reviews. */
  authenticate (request: FastifyRequest): Promise<UserInfo>
  /**
   * Asks every token method in turn (a union: the first that accepts decides; errors only
   * count when none accepts). `audiences` default to the API audiences. Returns undefined when
   * no method knows the token; throws the first method's error when some rejected it.
   */
  authenticateToken (token: string, audiences?: string[]): Promise<TokenResult | undefined>
  /** The audiences a request's bearer token must be valid for. */
  readonly apiAudiences: string[]
}

export interface AuthnOptions { apiAudiences?: string[] }

declare module 'fastify' {
  interface FastifyInstance { authn: AuthenticationChain }
  interface FastifyRequest { user: UserInfo }
}

export default fp(async function authn (fastify: FastifyInstance, opts: AuthnOptions) {
  const first: Array<[string, Authenticator]> = []
  const last: Array<[string, Authenticator]> = []
  const tokenMethods: Array<[string, TokenAuthenticator]> = []
  const apiAudiences = opts.apiAudiences ?? []
  const chain: AuthenticationChain = {
    apiAudiences,
    add (name, authenticator, opts) { (opts?.last === true ? last : first).push([name, authenticator]) },
    addToken (name, authenticator) {
      if (tokenMethods.length === 0) {
        first.push(['bearer-token', async (request) => {
          const token = bearerToken(request)
          if (token === undefined) return undefined
          return (await chain.authenticateToken(token))?.user
        }])
      }
      tokenMethods.push([name, authenticator])
    },
    async authenticateToken (token, audiences) {
      const wanted = audiences !== undefined && audiences.length > 0 ? audiences : apiAudiences
      let firstError: unknown
      for (const [name, method] of tokenMethods) {
        let result: TokenResult | undefined
        try {
          result = await method(token, wanted)
        } catch (err) {
          fastify.log.debug({ err, authenticator: name }, 'token rejected')
          firstError ??= err
          continue
        }
        if (result === undefined) continue
        // An audience-agnostic method's tokens are good for the API audiences only.
        const valid = result.audiences ?? (wanted === apiAudiences ? [...apiAudiences] : wanted.filter(a => apiAudiences.includes(a)))
        if (wanted.length > 0 && valid.length === 0) {
          firstError ??= new Error('token audiences is invalid for the target audiences')
          continue
        }
        return { user: withAuthenticatedGroup(result.user), audiences: valid }
      }
      if (firstError !== undefined) throw firstError
      return undefined
    },
    async authenticate (request) {
      // A union, as the reference server's: a method that fails does not stop the others (a
      // bad client certificate beside a good token is the token's user), but any failure rules
      // out the `last` ones, so bad credentials are never anonymous.
      let failed: unknown
      const run = async (list: Array<[string, Authenticator]>): Promise<UserInfo | undefined> => {
        for (const [name, authenticator] of list) {
          try {
            const user = await authenticator(request)
            if (user !== undefined) return withAuthenticatedGroup(user)
          } catch (err) {
            request.log.debug({ err, authenticator: name }, 'authentication failed')
            failed ??= err
          }
        }
        return undefined
      }
      const user = await run(first) ?? (failed === undefined ? await run(last) : undefined)
      if (user !== undefined) return user
      throw failed instanceof ApiError && failed.code === 401 ? failed : unauthorized()
    }
  }
  fastify.decorate('authn', chain)
  fastify.decorateRequest('user', null as unknown as UserInfo)
  fastify.addHook('onRequest', async (request) => {
    request.user = await chain.authenticate(request)
  })
}, { name: 'authn', dependencies: ['request-info', 'errors'] })
