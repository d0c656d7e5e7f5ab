// Which webhooks a request reaches: rules (operation, group, version, resource and
// subresource, scope), then objectSelector and namespaceSelector, as the reference server
// matches them.
import type { AdmissionAttributes } from '../../resources/admission.js'
import { GROUPS } from '../../resources/naming.js'
import { formsOf, requestFormOf, type ResourceForm } from '../../resources/resource-forms.js'
import { matchesLabels, selectorRequirements } from '../../machinery/selectors.js'

type AnyObject = Record<string, any>

const has = (list: string[] | undefined, value: string): boolean => list !== undefined && (list.includes('*') || list.includes(value))

/** `pods/status` → ['pods', 'status']; `*` → ['*', '']. */
function split (resource: string): [string, string] {
  const slash = resource.indexOf('/')
  return slash < 0 ? [resource, ''] : [resource.slice(0, slash), resource.slice(slash + 1)]
}

/** Whether a rule names the request, taken in `form` (default the form it came through). */
export function ruleMatches (rule: AnyObject, a: AdmissionAttributes, form: ResourceForm = requestFormOf(a)): boolean {
  if (!has(rule.operations, a.operation)) return false
  if (!has(rule.apiGroups, form.group)) return false
  if (!has(rule.apiVersions, form.version)) return false
  const resourceMatches = (rule.resources as string[] | undefined ?? []).some(r => {
    const [res, sub] = split(r)
    return (res === '*' || res === form.resource) && (sub === '*' || sub === a.subresource)
  })
  if (!resourceMatches) return false
  const isNamespace = a.resource.group === '' && a.resource.plural === 'namespaces'
  switch (rule.scope ?? '*') {
    case 'Namespaced': return a.resource.namespaced && !isNamespace
    case 'Cluster': return !a.resource.namespaced || isNamespace
    default: return true
  }
}

/**
 * The form a webhook's rules take the request in, as the reference matches: the one the request
 * came through when a rule names it; under matchPolicy Equivalent (the default), else the first
 * other form of the same kind a rule names (the webhook then gets the request in that form).
 * Undefined when no rule matches.
 */
export function rulesMatch (webhook: AnyObject, a: AdmissionAttributes): ResourceForm | undefined {
  const rules = webhook.rules as AnyObject[] | undefined ?? []
  const requested = requestFormOf(a)
  if (rules.some(r => ruleMatches(r, a, requested))) return requested
  if (webhook.matchPolicy === 'Exact') return undefined
  return formsOf(a.resource).find(f => (f.group !== requested.group || f.version !== requested.version) && rules.some(r => ruleMatches(r, a, f)))
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
