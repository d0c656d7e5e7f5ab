// RBAC escalation prevention, always on (upstream it lives in the RBAC kinds' storage): a role
// may grant only rules its writer already holds, unless the writer has `escalate` on it; a
// binding may grant only a role whose rules its writer holds, unless the writer has `bind` on it.
import fp from 'fastify-plugin'
import { isDeepStrictEqual } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { forbidden, notFound } from '../resources/status.js'
import { GROUPS } from '../resources/naming.js'
import type { AnyObject } from '../resources/define.js'
import type { AdmissionAttributes } from '../resources/admission.js'
import { PRIVILEGED_GROUP, type UserInfo } from '../resources/user-info.js'
import { compactRules, compactString, goStringList, uncovered, type PolicyRule } from '../auth/rbac/rules.js'
import type { RoleRef } from '../auth/rbac/resolver.js'

const ROLE_KINDS = new Set(['roles', 'clusterroles'])
const BINDING_KINDS = new Set(['rolebindings', 'clusterrolebindings'])

/** Creating an aggregated ClusterRole takes every permission there is (its rules are whatever it selects). */
const FULL_AUTHORITY: PolicyRule[] = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]

/** Whether an update touches only what garbage collection writes (owner references, finalizers). */
function onlyGCFieldsChange (obj: AnyObject | undefined, old: AnyObject | undefined): boolean {
  if (obj === undefined || old === undefined) return false
  const strip = (o: AnyObject): AnyObject => {
    const { ownerReferences: _o, finalizers: _f, managedFields: _m, resourceVersion: _r, generation: _g, ...meta } = o.metadata ?? {}
    return { ...o, metadata: meta }
  }
  return isDeepStrictEqual(strip(obj), strip(old))
}

export function escalationMessage (user: UserInfo, missing: PolicyRule[]): string {
  const lines = [...new Set(compactRules(missing).map(compactString))].sort()
  return `user ${JSON.stringify(user.username)} (groups=${goStringList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`
}

export default fp(async function rbacEscalation (fastify: FastifyInstance) {
  const allowedTo = async (a: AdmissionAttributes, verb: string, resource: string, namespace: string, name: string, apiGroup = GROUPS.rbac): Promise<boolean> => {
    const verdict = await fastify.authz.authorize({
      user: a.user, verb, isResourceRequest: true, path: '', apiGroup, apiVersion: '*', resource, subresource: '', namespace, name
    })
    return verdict.decision === 'Allow'
  }

  /** The parts of `rules` the user does not hold in `namespace`, looked up again after catching up. */
  const missingRules = async (user: UserInfo, namespace: string, rules: PolicyRule[]): Promise<PolicyRule[]> => {
    const missing = uncovered(fastify.rbac.rulesFor(user, namespace).rules, rules)
    if (missing.length === 0) return missing
    await fastify.rbac.catchUp()
    return uncovered(fastify.rbac.rulesFor(user, namespace).rules, rules)
  }

  const roleRefRules = async (ref: RoleRef, namespace: string): Promise<PolicyRule[]> => {
    let rules = fastify.rbac.roleRefRules(ref, namespace)
    if (rules === undefined) {
      await fastify.rbac.catchUp()
      rules = fastify.rbac.roleRefRules(ref, namespace)
    }
    if (rules === undefined) throw notFound({ group: GROUPS.rbac, resource: ref.kind === 'Role' ? 'roles' : 'clusterroles' }, ref.name)
    return rules
  }

  fastify.admission.add({
    name: 'RBACEscalation',
    handles: (a) => a.resource.group === GROUPS.rbac && a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE') &&
      (ROLE_KINDS.has(a.resource.plural) || BINDING_KINDS.has(a.resource.plural)),
    async validate (a) {
      if (a.user.groups.includes(PRIVILEGED_GROUP)) return
      if (a.operation === 'UPDATE' && onlyGCFieldsChange(a.object, a.oldObject)) return
      const obj = a.object!
      const name = obj.metadata?.name ?? a.name
      const gr = { group: GROUPS.rbac, resource: a.resource.plural }
      const namespace = a.resource.namespaced ? a.namespace : ''

      if (ROLE_KINDS.has(a.resource.plural)) {
        if (await allowedTo(a, 'escalate', a.resource.plural, namespace, a.operation === 'CREATE' ? '' : name)) return
        const aggregated = obj.aggregationRule !== undefined && obj.aggregationRule !== null
        const missing = await missingRules(a.user, namespace, aggregated ? FULL_AUTHORITY : (obj.rules ?? []))
        if (missing.length > 0) throw forbidden(gr, name, escalationMessage(a.user, missing))
        return
      }

      const ref = (obj.roleRef ?? {}) as RoleRef
      const refResource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles'
      if (await allowedTo(a, 'bind', refResource, namespace, ref.name, ref.apiGroup)) return
      const missing = await missingRules(a.user, namespace, await roleRefRules(ref, namespace))
      if (missing.length > 0) throw forbidden(gr, name, escalationMessage(a.user, missing))
    }
  })
}, { name: 'admission:rbac-escalation', dependencies: ['admission', 'authz', 'rbac-resolver'] })
