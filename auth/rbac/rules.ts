// RBAC rule semantics: whether a rule allows a request, and whether one set of rules covers
// another (escalation prevention), as the reference server defines them.
import type { Attributes } from '../../resources/authorization.js'
import { sameGroup } from '../../resources/naming.js'

export interface PolicyRule {
  verbs: string[]
  apiGroups?: string[]
  resources?: string[]
  resourceNames?: string[]
  nonResourceURLs?: string[]
}

const ALL = '*'
const has = (set: readonly string[] | undefined, value: string): boolean => set !== undefined && set.includes(value)
const hasAll = (set: readonly string[] | undefined, values: readonly string[] | undefined): boolean =>
  (values ?? []).every(v => has(set, v))

const verbMatches = (r: PolicyRule, verb: string): boolean => has(r.verbs, ALL) || has(r.verbs, verb)
// Either spelling of a vendor group names it (rules copied from upstream manifests name `*.k8s.io`).
const hasGroup = (set: readonly string[] | undefined, group: string): boolean => set !== undefined && set.some(g => sameGroup(g, group))
const groupMatches = (r: PolicyRule, group: string): boolean => has(r.apiGroups, ALL) || hasGroup(r.apiGroups, group)

function resourceMatches (r: PolicyRule, combined: string, subresource: string): boolean {
  for (const res of r.resources ?? []) {
    if (res === ALL || res === combined) return true
    if (subresource !== '' && res === `*/${subresource}`) return true
  }
  return false
}

const nameMatches = (r: PolicyRule, name: string): boolean =>
  r.resourceNames === undefined || r.resourceNames.length === 0 || r.resourceNames.includes(name)

/** `*` matches every path, a trailing `*` a prefix, anything else the exact path. */
export function nonResourceURLMatches (pattern: string, path: string): boolean {
  if (pattern === ALL || pattern === path) return true
  return pattern.endsWith(ALL) && path.startsWith(pattern.slice(0, -1))
}

/**
 * Whether one rule allows the request. A rule naming resources never matches a request without a
 * name (create, deletecollection, a list without a metadata.name field selector).
 */
export function ruleAllows (r: PolicyRule, a: Attributes): boolean {
  if (!verbMatches(r, a.verb)) return false
  if (!a.isResourceRequest) return (r.nonResourceURLs ?? []).some(p => nonResourceURLMatches(p, a.path))
  const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`
  return groupMatches(r, a.apiGroup) && resourceMatches(r, combined, a.subresource) && nameMatches(r, a.name)
}

// ---- covers ----------------------------------------------------------------------------------

/** One rule per verb × group × resource × name (or verb × URL): the unit escalation checks count. */
export function breakdownRule (r: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = []
  for (const verb of r.verbs ?? []) {
    for (const url of r.nonResourceURLs ?? []) out.push({ verbs: [verb], nonResourceURLs: [url] })
    for (const group of r.apiGroups ?? []) {
      for (const resource of r.resources ?? []) {
        const names = r.resourceNames ?? []
        if (names.length === 0) out.push({ verbs: [verb], apiGroups: [group], resources: [resource] })
        for (const name of names) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] })
      }
    }
  }
  return out
}

function resourcesCoverAll (owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, ALL) || hasAll(owner, wanted)) return true
  for (const path of wanted ?? []) {
    if (has(owner, path)) continue
    const slash = path.indexOf('/')
    if (slash === -1 || !has(owner, `*/${path.slice(slash + 1)}`)) return false
  }
  return true
}

const nonResourceURLCovers = (owner: string, wanted: string): boolean =>
  owner === wanted || (owner.endsWith(ALL) && wanted.startsWith(owner.replace(/\*+$/, '')))

function ruleCovers (owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, ALL) || hasAll(owner.verbs, sub.verbs)
  const groups = has(owner.apiGroups, ALL) || (sub.apiGroups ?? []).every(g => hasGroup(owner.apiGroups, g))
  const resources = resourcesCoverAll(owner.resources, sub.resources)
  const urls = (sub.nonResourceURLs ?? []).every(p => (owner.nonResourceURLs ?? []).some(o => nonResourceURLCovers(o, p)))
  const ownerNames = owner.resourceNames ?? []
  const names = ownerNames.length === 0 || ((sub.resourceNames ?? []).length > 0 && hasAll(ownerNames, sub.resourceNames))
  return verbs && groups && resources && urls && names
}

/** The parts of `wanted` that no rule of `owner` covers (empty: owner covers all of it). */
export function uncovered (owner: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = []
  for (const rule of wanted) {
    for (const unit of breakdownRule(rule)) {
      if (!owner.some(o => ruleCovers(o, unit))) missing.push(unit)
    }
  }
  return missing
}

/** Merges single-resource rules that differ only in verbs, as the reference server reports them. */
export function compactRules (rules: readonly PolicyRule[]): PolicyRule[] {
  const merged = new Map<string, PolicyRule>()
  const out: PolicyRule[] = []
  for (const r of rules) {
    const simple = (r.resourceNames ?? []).length === 0 && (r.nonResourceURLs ?? []).length === 0 &&
      (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1
    if (!simple) { out.push(r); continue }
    const key = `${r.apiGroups![0]}\u0000${r.resources![0]}`
    const existing = merged.get(key)
    if (existing === undefined) {
      const copy = { ...r, verbs: [...r.verbs] }
      merged.set(key, copy)
      out.push(copy)
    } else {
      for (const v of r.verbs) if (!existing.verbs.includes(v)) existing.verbs.push(v)
    }
  }
  return out
}

const goQuoted = (values: readonly string[]): string => `[${values.map(v => JSON.stringify(v)).join(' ')}]`

/** `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`: the reference server's compact rule text. */
export function compactString (r: PolicyRule): string {
  const parts: string[] = []
  if ((r.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuoted(r.apiGroups!)}`)
  if ((r.resources ?? []).length > 0) parts.push(`Resources:${goQuoted(r.resources!)}`)
  if ((r.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuoted(r.nonResourceURLs!)}`)
  if ((r.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuoted(r.resourceNames!)}`)
  if ((r.verbs ?? []).length > 0) parts.push(`Verbs:${goQuoted(r.verbs)}`)
  return `{${parts.join(', ')}}`
}

/** Go's %q of a string slice: `["a" "b"]`. */
export const goStringList = goQuoted
