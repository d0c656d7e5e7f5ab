// Which webhooks a request reaches: rules (operation, group, version, resource and
// subresource, scope), then objectSelector and namespaceSelector, as the reference server
// matches them.
import type { AdmissionAttributes } from '../../resources/admission.js'
import { GROUP_ALIASES, GROUPS } from '../../resources/naming.js'
import { matchesLabels, selectorRequirements } from '../../machinery/selectors.js'

type AnyObject = Record<string, any>

const has = (list: string[] | undefined, value: string): boolean => list !== undefined && (list.includes('*') || list.includes(value))

/** `pods/status` → ['pods', 'status']; `*` → ['*', '']. */
function split (resource: string): [string, string] {
  const slash = resource.indexOf('/')
  return slash < 0 ? [resource, ''] : [resource.slice(0, slash), resource.slice(slash + 1)]
}

/** `group` names the group the request is judged in: the resource's own, or an equivalent one. */
export function ruleMatches (rule: AnyObject, a: AdmissionAttributes, group = a.resource.group): boolean {
  if (!has(rule.operations, a.operation)) return false
  if (!has(rule.apiGroups, group)) return false
  if (!has(rule.apiVersions, a.resource.version)) return false
  const resourceMatches = (rule.resources as string[] | undefined ?? []).some(r => {
    const [res, sub] = split(r)
    return (res === '*' || res === a.resource.plural) && (sub === '*' || sub === a.subresource)
  })
  if (!resourceMatches) return false
  const isNamespace = a.resource.group === '' && a.resource.plural === 'namespaces'
  switch (rule.scope ?? '*') {
    case 'Namespaced': return a.resource.namespaced && !isNamespace
    case 'Cluster': return !a.resource.namespaced || isNamespace
    default: return true
  }
}

/** Groups serving the same resources as `group` under another name (the upstream spellings clients use). */
const equivalentGroups = (group: string): string[] => Object.keys(GROUP_ALIASES).filter(alias => GROUP_ALIASES[alias] === group)

/**
 * The group a webhook's rules take the request in: the resource's own when a rule names it;
 * under matchPolicy Equivalent, else an equivalent group a rule names (the webhook then gets the
 * request converted to that group). Undefined when no rule matches.
 */
export function rulesMatch (webhook: AnyObject, a: AdmissionAttributes): string | undefined {
  const rules = webhook.rules as AnyObject[] | undefined ?? []
  if (rules.some(r => ruleMatches(r, a))) return a.resource.group
  if (webhook.matchPolicy === 'Exact') return undefined
  return equivalentGroups(a.resource.group).find(g => rules.some(r => ruleMatches(r, a, g)))
}

const isEmptySelector = (s: AnyObject | undefined): boolean =>
  s === undefined || s === null || (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0)

/** Matches when the new or the old object carries the labels. */
export function objectSelectorMatches (webhook: AnyObject, a: AdmissionAttributes): boolean {
  const selector = webhook.objectSelector as AnyObject | undefined
  if (isEmptySelector(selector)) return true
  const requirements = selectorRequirements(selector!)
  return [a.object, a.oldObject].some(o => o !== undefined && o !== null && matchesLabels(requirements, o.metadata?.labels ?? {}))
}

/**
 * Namespaced objects are judged by their namespace's labels, a Namespace by its own; other
 * cluster-scoped objects always match.
 */
export async function namespaceSelectorMatches (webhook: AnyObject, a: AdmissionAttributes): Promise<boolean> {
  const selector = webhook.namespaceSelector as AnyObject | undefined
  if (isEmptySelector(selector)) return true
  const isNamespace = a.resource.group === '' && a.resource.plural === 'namespaces'
  if (!a.resource.namespaced && !isNamespace) return true
  let labels: Record<string, string>
  if (isNamespace) {
    labels = (a.object ?? a.oldObject)?.metadata?.labels ?? {}
  } else {
    const ns = await a.lookup({ group: '', resource: 'namespaces' }, '', a.namespace)
    labels = ns?.metadata?.labels ?? {}
  }
  return matchesLabels(selectorRequirements(selector!), labels)
}

/** Webhooks are never called about webhook configurations: a broken webhook could not be removed. */
export function exempt (a: AdmissionAttributes): boolean {
  return a.resource.group === GROUPS.admissionregistration
}
