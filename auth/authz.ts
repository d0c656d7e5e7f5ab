// The authorization chain: modes in the configured order; the first Allow or Deny decides and
// no opinion from every mode is 403.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../plugins/errors.js'
import type { UserInfo } from './authn.js'

/** What is being asked, as the spec lists request attributes. */
export interface Attributes {
  user: UserInfo
  verb: string
  isResourceRequest: boolean
  /** Non-resource requests: the path. */
  path: string
  apiGroup: string
  apiVersion: string
  resource: string
  subresource: string
  namespace: string
  name: string
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion'
export interface Verdict { decision: Decision, reason?: string }

/** Decides one request; must not throw for ordinary denials (return Deny). */
export type Authorizer = (attrs: Attributes) => Promise<Verdict> | Verdict

export interface AuthorizationChain {
  add (mode: string, authorizer: Authorizer): void
  authorize (attrs: Attributes): Promise<Verdict>
}

declare module 'fastify' {
  interface FastifyInstance { authz: AuthorizationChain }
}

/** The reference server's 403 message: `configmaps "x" is forbidden: User "u" cannot get resource ...`. */
export function forbiddenMessage (a: Attributes, reason?: string): ApiError {
  const suffix = reason !== undefined && reason !== '' ? `: ${reason}` : ''
  if (!a.isResourceRequest) {
    return new ApiError(403, 'Forbidden', `forbidden: User "${a.user.username}" cannot ${a.verb} path "${a.path}"${suffix}`, {})
  }
  const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`
  const qualified = a.apiGroup === '' ? a.resource : `${a.resource}.${a.apiGroup}`
  const scope = a.namespace === '' ? 'at the cluster scope' : `in the namespace "${a.namespace}"`
  const subject = a.name === '' ? qualified : `${qualified} "${a.name}"`
  const message = `${subject} is forbidden: User "${a.user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}" ${scope}${suffix}`
  const details: Record<string, string> = { kind: a.resource }
  if (a.name !== '') details.name = a.name
  if (a.apiGroup !== '') details.group = a.apiGroup
  return new ApiError(403, 'Forbidden', message, details)
}

export default fp(async function authz (fastify: FastifyInstance) {
  const modes: Array<[string, Authorizer]> = []
  const chain: AuthorizationChain = {
    add (mode, authorizer) { modes.push([mode, authorizer]) },
    async authorize (attrs) {
      const reasons: string[] = []
      for (const [, authorizer] of modes) {
        const verdict = await authorizer(attrs)
        if (verdict.decision !== 'NoOpinion') return verdict
        if (verdict.reason) reasons.push(verdict.reason)
      }
      return { decision: 'NoOpinion', reason: reasons.join(', ') }
    }
  }
  fastify.decorate('authz', chain)
  fastify.addHook('preHandler', async (request) => {
    const info = request.requestInfo
    const attrs: Attributes = {
      user: request.user, verb: info.verb, isResourceRequest: info.isResourceRequest, path: info.path,
      apiGroup: info.apiGroup, apiVersion: info.apiVersion, resource: info.resource, subresource: info.subresource,
      namespace: info.namespace, name: info.name
    }
    const verdict = await chain.authorize(attrs)
    if (verdict.decision !== 'Allow') throw forbiddenMessage(attrs, verdict.reason)
  })
}, { name: 'authz', dependencies: ['authn'] })
