// RBAC mode: allows what a role bound to the user (or one of its groups) allows; never denies.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Attributes, NonResourceRule, ResourceRule, RuleSet, Verdict } from '../../resources/authorization.js'
import type { UserInfo } from '../../resources/user-info.js'
import { ruleAllows } from '../rbac/rules.js'

export default fp(async function rbacAuthorizer (fastify: FastifyInstance) {
  const check = (a: Attributes): { allowed?: string, errors: string[] } => {
    const errors: string[] = []
    let allowed: string | undefined
    fastify.rbac.visitRules(a.user, a.namespace, (rule, source) => {
      if (!ruleAllows(rule, a)) return false
      const b = source.binding
      allowed = `RBAC: allowed by ${b.kind} ${JSON.stringify(b.namespace === '' ? b.name : `${b.name}/${b.namespace}`)} of ${source.roleRef.kind} ${JSON.stringify(source.roleRef.name)} to ${source.subject}`
      return true
    }, (e) => errors.push(e))
    return { allowed, errors }
  }

  async function authorize (a: Attributes): Promise<Verdict> {
    const first = check(a)
    if (first.allowed !== undefined) return { decision: 'Allow', reason: first.allowed }
    // A binding written a moment ago may not have reached the caches yet: look once more after
    // catching up, so a client sees its own writes (only denials pay for this).
    await fastify.rbac.catchUp()
    const { allowed, errors } = check(a)
    if (allowed !== undefined) return { decision: 'Allow', reason: allowed }
    return { decision: 'NoOpinion', reason: errors.length > 0 ? `RBAC: ${errors.join(', ')}` : undefined }
  }

  function rules (user: UserInfo, namespace: string): RuleSet {
    const found = fastify.rbac.rulesFor(user, namespace)
    const resourceRules: ResourceRule[] = []
    const nonResourceRules: NonResourceRule[] = []
    for (const r of found.rules) {
      if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs! })
      else {
        const rule: ResourceRule = { verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources ?? [] }
        if ((r.resourceNames ?? []).length > 0) rule.resourceNames = r.resourceNames
        resourceRules.push(rule)
      }
    }
    const set: RuleSet = { resourceRules, nonResourceRules, incomplete: false }
    if (found.errors.length > 0) set.evaluationError = found.errors.join(', ')
    return set
  }

  fastify.authz.add('RBAC', authorize, rules)
}, { name: 'authz:rbac', dependencies: ['authz', 'rbac-resolver'] })
