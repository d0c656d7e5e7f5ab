// ABAC mode (--authorization-policy-file): the reference server's policy file, one JSON Policy
// object per line; a request matching any policy is allowed, otherwise no opinion.
import fp from 'fastify-plugin'
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import type { Attributes, RuleSet } from '../../resources/authorization.js'
import type { UserInfo } from '../../resources/user-info.js'
import { ABAC_API_VERSION, sameGroup } from '../../resources/naming.js'
import { AUTHENTICATED_GROUP } from '../../resources/user-info.js'
import { nonResourceURLMatches } from '../rbac/rules.js'

export interface PolicySpec {
  user?: string
  group?: string
  readonly?: boolean
  apiGroup?: string
  namespace?: string
  resource?: string
  nonResourcePath?: string
}

const READ_ONLY = new Set(['get', 'list', 'watch'])
const STRING_FIELDS = ['user', 'group', 'apiGroup', 'namespace', 'resource', 'nonResourcePath'] as const

/** Parses a policy file; errors name the line, as the reference server's do. */
export function parsePolicyFile (text: string, file = 'policy file'): PolicySpec[] {
  const out: PolicySpec[] = []
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    const fail = (why: string): never => { throw new Error(`${file} line ${i + 1}: ${why}`) }
    let doc: Record<string, unknown>
    try { doc = JSON.parse(line) } catch (err) { return fail((err as Error).message) }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail('not a JSON object')
    let spec: PolicySpec
    if (doc.apiVersion === undefined && doc.kind === undefined) {
      // The unversioned (v0) form: fields at the top level; a policy naming no one applies to every authenticated user.
      const v0 = doc as PolicySpec
      spec = {
        user: v0.user, group: v0.group ?? (v0.user === undefined ? AUTHENTICATED_GROUP : undefined), readonly: v0.readonly,
        namespace: v0.namespace ?? '*', resource: v0.resource ?? '*', apiGroup: '*', nonResourcePath: '*'
      }
    } else {
      if (doc.apiVersion !== ABAC_API_VERSION) fail(`unknown apiVersion ${JSON.stringify(doc.apiVersion)}; expected ${JSON.stringify(ABAC_API_VERSION)}`)
      if (doc.kind !== 'Policy') fail(`unknown kind ${JSON.stringify(doc.kind)}; expected "Policy"`)
      if (typeof doc.spec !== 'object' || doc.spec === null) fail('spec is required')
      spec = doc.spec as PolicySpec
    }
    for (const f of STRING_FIELDS) if (spec[f] !== undefined && typeof spec[f] !== 'string') fail(`spec.${f} must be a string`)
    if (spec.readonly !== undefined && typeof spec.readonly !== 'boolean') fail('spec.readonly must be a boolean')
    out.push(spec)
  })
  return out
}

export function subjectMatches (p: PolicySpec, user: UserInfo): boolean {
  let matched = false
  if (p.user !== undefined && p.user !== '') {
    if (p.user !== '*' && p.user !== user.username) return false
    matched = true
  }
  if (p.group !== undefined && p.group !== '') {
    if (p.group !== '*' && !user.groups.includes(p.group)) return false
    matched = true
  }
  return matched
}

const is = (pattern: string | undefined, value: string): boolean => pattern === '*' || pattern === value

export function policyMatches (p: PolicySpec, a: Attributes): boolean {
  if (!subjectMatches(p, a.user)) return false
  if (p.readonly === true && !READ_ONLY.has(a.verb)) return false
  if (a.isResourceRequest) return is(p.namespace, a.namespace) && is(p.resource, a.resource) && (p.apiGroup === '*' || (p.apiGroup !== undefined && sameGroup(p.apiGroup, a.apiGroup)))
  return p.nonResourcePath !== undefined && p.nonResourcePath !== '' && nonResourceURLMatches(p.nonResourcePath, a.path)
}

export interface AbacOptions { policyFile?: string }

export default fp<AbacOptions>(async function abacAuthorizer (fastify: FastifyInstance, opts: AbacOptions) {
  if (opts.policyFile === undefined) throw new Error('authorization mode ABAC requires --authorization-policy-file')
  const policies = parsePolicyFile(readFileSync(opts.policyFile, 'utf8'), opts.policyFile)

  const rules = (user: UserInfo, namespace: string): RuleSet => {
    const set: RuleSet = { resourceRules: [], nonResourceRules: [], incomplete: false }
    for (const p of policies) {
      if (!subjectMatches(p, user)) continue
      const verbs = p.readonly === true ? ['get', 'list', 'watch'] : ['*']
      if (p.namespace !== undefined && p.resource !== undefined && p.apiGroup !== undefined && is(p.namespace, namespace)) {
        set.resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] })
      }
      if (p.nonResourcePath !== undefined && p.nonResourcePath !== '') set.nonResourceRules.push({ verbs, nonResourceURLs: [p.nonResourcePath] })
    }
    return set
  }

  fastify.authz.add('ABAC', (a) => policies.some(p => policyMatches(p, a)) ? { decision: 'Allow' } : { decision: 'NoOpinion', reason: 'No policy matched.' }, rules)
}, { name: 'authz:abac', dependencies: ['authz'] })
