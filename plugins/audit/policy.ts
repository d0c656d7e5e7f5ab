// The audit Policy (audit.svc.io/v1, --audit-policy-file): the first rule that matches a request
// sets its level; no rule matching means None. Matching follows the reference server's policy
// checker: users, groups and verbs narrow a rule; namespaces and resources make it a resource
// rule, nonResourceURLs a non-resource rule.
import { readFileSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'
import { GROUPS, sameGroup, upstreamGroup } from '../../resources/naming.js'
import type { UserInfo } from '../../resources/user-info.js'
import { dnsSubdomainProblems } from '../../resources/validation.js'

export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const
export type Level = typeof LEVELS[number]
export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const
export type Stage = typeof STAGES[number]

export interface GroupResources { group?: string, resources?: string[], resourceNames?: string[] }

export interface PolicyRule {
  level: Level
  users?: string[]
  userGroups?: string[]
  verbs?: string[]
  resources?: GroupResources[]
  namespaces?: string[]
  nonResourceURLs?: string[]
  omitStages?: Stage[]
  omitManagedFields?: boolean
}

export interface Policy {
  rules: PolicyRule[]
  omitStages?: Stage[]
  omitManagedFields?: boolean
}

/** What the policy looks at in a request. */
export interface AuditAttributes {
  user: UserInfo | undefined
  verb: string
  isResourceRequest: boolean
  path: string
  apiGroup: string
  namespace: string
  resource: string
  subresource: string
  name: string
}

export interface Decision {
  level: Level
  omitStages: ReadonlySet<Stage>
  omitManagedFields: boolean
}

const API_VERSIONS = [`${GROUPS.audit}/v1`, `${upstreamGroup('audit')}/v1`]

const levelRank = (l: Level): number => LEVELS.indexOf(l)
export const atLeast = (level: Level, wanted: Level): boolean => levelRank(level) >= levelRank(wanted)

function stringList (value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined
  if (!Array.isArray(value) || value.some(v => typeof v !== 'string')) throw new Error(`${field}: must be a list of strings`)
  return value as string[]
}

function stages (value: unknown, field: string): Stage[] | undefined {
  const list = stringList(value, field)
  for (const s of list ?? []) if (!(STAGES as readonly string[]).includes(s)) throw new Error(`${field}: unsupported value "${s}": supported values: ${STAGES.map(x => `"${x}"`).join(', ')}`)
  return list as Stage[] | undefined
}

const goStrings = (list: string[]): string => `[]string{${list.map(v => JSON.stringify(v)).join(', ')}}`

/**
 * validateResources: a group is a lower-case DNS subdomain (the core group is ''), and
 * resourceNames narrow resources, so they need some; worded as field.ErrorList words them.
 */
function groupResourceErrors (group: string, resources: string[] | undefined, names: string[] | undefined, field: string): string[] {
  const out: string[] = []
  const problems = group === '' ? [] : dnsSubdomainProblems(group)
  if (problems.length > 0) out.push(`${field}.group: Invalid value: ${JSON.stringify(group)}: ${problems.join(',')}`)
  if ((names?.length ?? 0) > 0 && (resources?.length ?? 0) === 0) out.push(`${field}.resourceNames: Invalid value: ${goStrings(names!)}: using resourceNames requires at least one resource`)
  return out
}

/** Checks a decoded Policy document; the messages name the field, as start-up errors. */
export function parsePolicy (doc: unknown): Policy {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('the audit policy must be an object')
  const d = doc as Record<string, unknown>
  if (d.kind !== 'Policy') throw new Error(`kind: must be Policy, not ${JSON.stringify(d.kind)}`)
  if (typeof d.apiVersion !== 'string' || !API_VERSIONS.includes(d.apiVersion)) throw new Error(`apiVersion: must be ${API_VERSIONS[0]}, not ${JSON.stringify(d.apiVersion)}`)
  if (!Array.isArray(d.rules)) throw new Error('rules: required')
  // The reference's validation lists every problem, then refuses the file.
  const refused: string[] = []
  const rules = d.rules.map((raw: unknown, i: number): PolicyRule => {
    const f = `rules[${i}]`
    if (typeof raw !== 'object' || raw === null) throw new Error(`${f}: must be an object`)
    const r = raw as Record<string, unknown>
    if (typeof r.level !== 'string' || !(LEVELS as readonly string[]).includes(r.level)) {
      throw new Error(`${f}.level: ${r.level === undefined ? 'required' : `unsupported value ${JSON.stringify(r.level)}`}: supported values: ${LEVELS.map(x => `"${x}"`).join(', ')}`)
    }
    const nonResourceURLs = stringList(r.nonResourceURLs, `${f}.nonResourceURLs`)
    const resources = r.resources === undefined ? undefined : (r.resources as unknown[]).map((g, j): GroupResources => {
      const gr = g as Record<string, unknown>
      const group = (gr.group as string | undefined) ?? ''
      const names = stringList(gr.resourceNames, `${f}.resources[${j}].resourceNames`)
      const listed = stringList(gr.resources, `${f}.resources[${j}].resources`)
      refused.push(...groupResourceErrors(group, listed, names, `${f}.resources`))
      return { group, resources: listed, resourceNames: names }
    })
    const namespaces = stringList(r.namespaces, `${f}.namespaces`)
    if (nonResourceURLs !== undefined && nonResourceURLs.length > 0 && ((resources?.length ?? 0) > 0 || (namespaces?.length ?? 0) > 0)) {
      throw new Error(`${f}.nonResourceURLs: rules cannot apply to both regular resources and non-resource URLs`)
    }
    for (const url of nonResourceURLs ?? []) {
      if (url !== '*' && !url.startsWith('/')) throw new Error(`${f}.nonResourceURLs: non-resource URL rules must begin with a '/' character: "${url}"`)
      if (url.slice(0, -1).includes('*')) throw new Error(`${f}.nonResourceURLs: non-resource URL wildcards ('*') must be the final character of the rule: "${url}"`)
    }
    if (typeof r.omitManagedFields !== 'undefined' && typeof r.omitManagedFields !== 'boolean') throw new Error(`${f}.omitManagedFields: must be a boolean`)
    return {
      level: r.level as Level,
      users: stringList(r.users, `${f}.users`),
      userGroups: stringList(r.userGroups, `${f}.userGroups`),
      verbs: stringList(r.verbs, `${f}.verbs`),
      resources,
      namespaces,
      nonResourceURLs,
      omitStages: stages(r.omitStages, `${f}.omitStages`),
      omitManagedFields: r.omitManagedFields as boolean | undefined
    }
  })
  if (refused.length > 0) throw new Error(refused.length === 1 ? refused[0] : `[${refused.join(', ')}]`)
  if (rules.length === 0) throw new Error('loaded illegal policy with 0 rules')
  if (typeof d.omitManagedFields !== 'undefined' && typeof d.omitManagedFields !== 'boolean') throw new Error('omitManagedFields: must be a boolean')
  return { rules, omitStages: stages(d.omitStages, 'omitStages'), omitManagedFields: d.omitManagedFields as boolean | undefined }
}

export function loadPolicy (path: string): Policy {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new Error(`--audit-policy-file: ${(err as Error).message}`)
  }
  try {
    return parsePolicy(parseYaml(text))
  } catch (err) {
    throw new Error(`--audit-policy-file ${path}: ${(err as Error).message}`)
  }
}

const pathMatches = (path: string, spec: string): boolean =>
  spec === '*' || spec === path || (spec.endsWith('*') && path.startsWith(spec.slice(0, -1)))

function matchesResource (r: PolicyRule, a: AuditAttributes): boolean {
  if (!a.isResourceRequest) return false
  // A cluster-scoped object's namespace is the empty string.
  if (r.namespaces !== undefined && r.namespaces.length > 0 && !r.namespaces.includes(a.namespace)) return false
  if (r.resources === undefined || r.resources.length === 0) return true
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`
  for (const gr of r.resources) {
    if (!sameGroup(gr.group ?? '', a.apiGroup)) continue
    if (gr.resources === undefined || gr.resources.length === 0) return true
    if (gr.resourceNames !== undefined && gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name)) continue
    for (const res of gr.resources) {
      if (res === '*' || res === combined) return true
      if (a.subresource !== '' && res.startsWith('*/') && res.slice(2) === a.subresource) return true
      if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true
    }
  }
  return false
}

export function ruleMatches (r: PolicyRule, a: AuditAttributes): boolean {
  if (r.users !== undefined && r.users.length > 0 && (a.user === undefined || !r.users.includes(a.user.username))) return false
  if (r.userGroups !== undefined && r.userGroups.length > 0 && (a.user === undefined || !a.user.groups.some(g => r.userGroups!.includes(g)))) return false
  if (r.verbs !== undefined && r.verbs.length > 0 && !r.verbs.includes(a.verb)) return false
  if ((r.namespaces?.length ?? 0) > 0 || (r.resources?.length ?? 0) > 0) return matchesResource(r, a)
  if (r.nonResourceURLs !== undefined && r.nonResourceURLs.length > 0) return !a.isResourceRequest && r.nonResourceURLs.some(spec => pathMatches(a.path, spec))
  return true
}

const NONE: Decision = { level: 'None', omitStages: new Set(), omitManagedFields: false }

/** The level a request is audited at, and what its events leave out. */
export function evaluate (policy: Policy, a: AuditAttributes): Decision {
  for (const r of policy.rules) {
    if (!ruleMatches(r, a)) continue
    if (r.level === 'None') return NONE
    return {
      level: r.level,
      omitStages: new Set([...(policy.omitStages ?? []), ...(r.omitStages ?? [])]),
      omitManagedFields: r.omitManagedFields ?? policy.omitManagedFields ?? false
    }
  }
  return NONE
}
