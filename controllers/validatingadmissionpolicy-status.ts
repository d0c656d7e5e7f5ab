// The reference controller manager's validatingadmissionpolicy-status-controller: each policy
// whose generation is ahead of status.observedGeneration has its validations' expressions and
// message expressions (not its match conditions or audit annotations, as the reference's)
// type-checked against the schemas of the kinds its matchConstraints name
// (machinery/cel/typecheck.ts), and the warnings written to status.typeChecking with the
// generation they are of. The kinds are the served ones, custom resources included, at most ten
// per policy as the reference's; rules with a wildcard group or version, and wildcard or
// subresource resources, name none. The status is written through /status as an update (the
// reference applies it, server-side, with force).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject, Resource } from '../resources/define.js'
import { GROUPS, sameGroup } from '../resources/naming.js'
import { kindStructuralSchema } from '../machinery/cel/kind-schema.js'
import { typeCheckPolicy, type TypeCheckTarget, type TypeCheckedPolicy } from '../machinery/cel/typecheck.js'
import { controllerLoop, writeStatusIfUnchanged } from './loop.js'

export const CONTROLLER_NAME = 'validatingadmissionpolicy-status-controller'
const MAX_TYPES_TO_CHECK = 10

/** The reference's schema.GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`. */
const gvkLabel = (group: string, version: string, kind: string): string => `${group}/${version}, Kind=${kind}`

const sorted = (xs: unknown): string[] => (Array.isArray(xs) ? xs.map(String) : []).sort()

/** The served kinds a policy's matchConstraints name, by group, version and kind (typesToCheck). */
export function kindsToCheck (spec: AnyObject | undefined, served: Resource[]): TypeCheckTarget[] {
  const found = new Map<string, TypeCheckTarget & { group: string, version: string }>()
  let count = 0
  for (const rule of spec?.matchConstraints?.resourceRules ?? []) {
    const groups = sorted(rule?.apiGroups)
    const versions = sorted(rule?.apiVersions)
    if (groups.some(g => g.includes('*')) || versions.some(v => v.includes('*'))) continue
    const resources = sorted(rule?.resources).filter(r => !/[*/]/.test(r))
    for (const group of groups) {
      for (const version of versions) {
        for (const resource of resources) {
          const r = served.find(s => s.virtual === undefined && s.plural === resource && s.version === version && sameGroup(s.group, group))
          if (r === undefined) continue
          found.set(`${group}/${version}/${r.kind}`, { group, version, label: gvkLabel(group, version, r.kind), kind: r.kind, schema: kindStructuralSchema(r.schema) })
          if (++count === MAX_TYPES_TO_CHECK) return ordered(found)
        }
      }
    }
  }
  return ordered(found)
}

function ordered (found: Map<string, TypeCheckTarget & { group: string, version: string }>): TypeCheckTarget[] {
  const cmp = (a: string, b: string): number => a < b ? -1 : a > b ? 1 : 0
  return [...found.values()]
    .sort((a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.kind, b.kind))
    .map(({ label, kind, schema }) => ({ label, kind, schema }))
}

/** The paramKind's schema: undefined without one, null when no served kind has it. */
function paramsSchema (spec: AnyObject | undefined, served: Resource[]): TypeCheckedPolicy['params'] {
  const paramKind = spec?.paramKind
  if (paramKind == null) return undefined
  const apiVersion = String(paramKind.apiVersion ?? '')
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) as [string, string] : ['', apiVersion]
  const r = served.find(s => s.virtual === undefined && s.kind === paramKind.kind && s.version === version && sameGroup(s.group, group))
  return r === undefined ? null : kindStructuralSchema(r.schema)
}

/** What the type check reads of a policy's spec. */
export function checkedPolicy (spec: AnyObject | undefined, served: Resource[]): TypeCheckedPolicy {
  const expressions: TypeCheckedPolicy['expressions'] = []
  ;(spec?.validations as AnyObject[] | undefined ?? []).forEach((v, i) => {
    expressions.push({ fieldRef: `spec.validations[${i}].expression`, source: String(v?.expression ?? '') })
    if (typeof v?.messageExpression === 'string' && v.messageExpression !== '') {
      expressions.push({ fieldRef: `spec.validations[${i}].messageExpression`, source: v.messageExpression })
    }
  })
  const variables = (spec?.variables as AnyObject[] | undefined ?? []).map(v => ({ name: String(v?.name ?? ''), expression: String(v?.expression ?? '') }))
  return { expressions, variables, params: paramsSchema(spec, served) }
}

export default fp(async function validatingAdmissionPolicyStatus (fastify: FastifyInstance) {
  const policies = () => fastify.resources.find({ group: GROUPS.admissionregistration, resource: 'validatingadmissionpolicies' })!
  controllerLoop(fastify, {
    name: CONTROLLER_NAME,
    watch: () => [policies()],
    async sync () {
      const store = policies()
      let again: number | undefined
      for (const policy of store.cachedObjects()) {
        const generation = Number(policy.metadata.generation ?? 0)
        if (generation <= Number(policy.status?.observedGeneration ?? 0)) continue
        const served = fastify.resources.served()
        const expressionWarnings = await typeCheckPolicy(kindsToCheck(policy.spec, served), checkedPolicy(policy.spec, served))
        const status = {
          ...policy.status,
          observedGeneration: generation,
          typeChecking: expressionWarnings.length > 0 ? { expressionWarnings } : {}
        }
        // Changed meanwhile: its new generation is checked at the next run.
        if (!await writeStatusIfUnchanged(store, policy, status, CONTROLLER_NAME)) again = 0
      }
      return again
    }
  })
})
