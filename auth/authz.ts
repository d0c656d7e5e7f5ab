// The authorization chain: members of system:masters first, then the modes in the configured
// order; the first Allow or Deny decides and no opinion from every mode is 403.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from '../resources/status.js'
import { PRIVILEGED_GROUP, type UserInfo } from '../resources/user-info.js'
import type { Attributes, Authorizer, RuleResolver, RuleSet, Verdict } from '../resources/authorization.js'

export interface AuthorizationChain {
  /** Appends a mode; without a rule resolver its rules count as incomplete in rules reviews. */
  add (mode: string, authorizer: Authorizer, rules?: RuleResolver): void
  authorize (attrs: Attributes): Promise<Verdict>
  /** The union of every mode's rules for a user in a namespace. */
  rules (user: UserInfo, namespace: string): Promise<RuleSet>
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

/**
 * A request's attributes. A list or watch pinned to one name by a `metadata.name` field selector
 * carries that name, so rules limited by resourceNames can allow it.
 */
export function requestAttributes (request: FastifyRequest): Attributes {
  const info = request.requestInfo
  const listsOne = info.verb === 'list' || info.verb === 'watch'
  return {
    user: request.user, verb: info.verb, isResourceRequest: info.isResourceRequest, path: info.path,
    // The group as the path spells it, as the reference authorizes: a webhook authorizer and the
    // Forbidden message see what the client asked for; rules match either spelling.
    apiGroup: info.pathGroup !== '' ? info.pathGroup : info.apiGroup, apiVersion: info.apiVersion, resource: info.resource, subresource: info.subresource,
    namespace: info.namespace, name: info.name === '' && listsOne ? info.fieldSelectorName : info.name
  }
}

const PRIVILEGED: Verdict = Object.freeze({ decision: 'Allow' })

export default fp(async function authz (fastify: FastifyInstance) {
  const modes: Array<[string, Authorizer]> = []
  const resolvers: Array<[string, RuleResolver | undefined]> = []
  const chain: AuthorizationChain = {
    add (mode, authorizer, rules) { modes.push([mode, authorizer]); resolvers.push([mode, rules]) },
    async authorize (attrs) {
      // As the reference server: the privileged group is allowed ahead of every configured
      // mode, so no binding, policy or webhook can lock its members out; it lists no rules.
      if (attrs.user.groups.includes(PRIVILEGED_GROUP)) return PRIVILEGED
      const reasons: string[] = []
      for (const [, authorizer] of modes) {
        const verdict = await authorizer(attrs)
        if (verdict.decision !== 'NoOpinion') return verdict
        if (verdict.reason) reasons.push(verdict.reason)
      }
      return { decision: 'NoOpinion', reason: reasons.join(', ') }
    },
    async rules (user, namespace) {
      const out: RuleSet = { resourceRules: [], nonResourceRules: [], incomplete: false }
      const errors: string[] = []
      for (const [mode, resolve] of resolvers) {
        if (resolve === undefined) {
          out.incomplete = true
          errors.push(`${mode} authorizer does not support user rule resolution`)
          continue
        }
        const part = await resolve(user, namespace)
        out.resourceRules.push(...part.resourceRules)
        out.nonResourceRules.push(...part.nonResourceRules)
        if (part.incomplete) out.incomplete = true
        if (part.evaluationError !== undefined) errors.push(part.evaluationError)
      }
      if (errors.length > 0) out.evaluationError = errors.join(', ')
      return out
    }
  }
  fastify.decorate('authz', chain)
  fastify.addHook('preHandler', async (request) => {
    const attrs = requestAttributes(request)
    const verdict = await chain.authorize(attrs)
    if (verdict.decision !== 'Allow') throw forbiddenMessage(attrs, verdict.reason)
  })
}, { name: 'authz', dependencies: ['authn'] })
