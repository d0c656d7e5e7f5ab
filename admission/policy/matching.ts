// Which requests an admission policy and its bindings look at, and the parameter objects a
// binding finds, as the reference's policy/matching and generic.CollectParams: a policy's
// matchConstraints and a binding's matchResources are webhook rules with resource names,
// exclusions, selectors and a match policy; a binding names its parameters by name or selector.
import type { AdmissionAttributes } from '../../resources/admission.js'
import type { AnyObject, Resource } from '../../resources/define.js'
import { formsOf, requestFormOf, type ResourceForm } from '../../resources/resource-forms.js'
import { canonicalGroup } from '../../resources/naming.js'
import { matchesLabels, selectorRequirements } from '../../machinery/selectors.js'
import { namespaceSelectorMatches, objectSelectorMatches, ruleMatches } from '../webhooks/matching.js'

const named = (rule: AnyObject, a: AdmissionAttributes): boolean => {
  const names = rule.resourceNames as string[] | undefined ?? []
  return names.length === 0 || names.includes(a.name)
}

/** The form the rules take the request in: its own when a rule names it, else (Equivalent) another form of the kind a rule names. */
function rulesForm (rules: AnyObject[], matchPolicy: string | undefined, a: AdmissionAttributes): ResourceForm | undefined {
  const requested = requestFormOf(a)
  if (rules.some(r => named(r, a) && ruleMatches(r, a, requested))) return requested
  if (matchPolicy === 'Exact') return undefined
  return formsOf(a.resource).find(f => (f.group !== requested.group || f.version !== requested.version) && rules.some(r => named(r, a) && ruleMatches(r, a, f)))
}

/**
 * Matcher.Matches: selectors first, then exclusions (any match excludes), then the rules (no
 * rules: every request, in the form it came through). The form is the one the policy's
 * expressions see the objects in; undefined when the request is not matched.
 */
export async function matchResources (mr: AnyObject | undefined | null, a: AdmissionAttributes): Promise<ResourceForm | undefined> {
  if (mr === undefined || mr === null) return requestFormOf(a)
  if (!await namespaceSelectorMatches(mr, a) || !objectSelectorMatches(mr, a)) return undefined
  if (rulesForm(mr.excludeResourceRules ?? [], mr.matchPolicy, a) !== undefined) return undefined
  const rules = mr.resourceRules as AnyObject[] | undefined ?? []
  return rules.length === 0 ? requestFormOf(a) : rulesForm(rules, mr.matchPolicy, a)
}

/** A binding's configuration problem: reported as "failed to configure binding: ..." under the policy's failurePolicy. */
export class ConfigurationError extends Error {}

/** The kind a paramKind names, among the served kinds (either spelling of a group). */
export function paramResource (paramKind: AnyObject, kinds: readonly Resource[]): Resource | undefined {
  const apiVersion = String(paramKind.apiVersion ?? '')
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : ''
  return kinds.find(r => r.kind === paramKind.kind && canonicalGroup(r.group) === canonicalGroup(group) && r.virtual === undefined)
}

/**
 * CollectParams: the parameter objects of one binding for one request; `[undefined]` when the
 * policy or binding uses none, `[]` when none is found and the binding allows that.
 */
export async function collectParams (paramKind: AnyObject | undefined, kind: Resource | undefined, paramRef: AnyObject | undefined, a: AdmissionAttributes): Promise<Array<AnyObject | undefined>> {
  if (paramKind === undefined || paramKind === null || paramRef === undefined || paramRef === null) return [undefined]
  if (kind === undefined) throw new ConfigurationError(`paramKind kind \`${String(paramKind.apiVersion)}, Kind=${String(paramKind.kind)}\` not known`)
  const refNamespace = String(paramRef.namespace ?? '')
  let namespace = ''
  if (kind.namespaced) {
    namespace = refNamespace !== '' ? refNamespace : a.namespace
    if (namespace === '') throw new ConfigurationError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources')
  } else if (refNamespace !== '') {
    throw new ConfigurationError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`')
  }
  const gr = { group: kind.group, resource: kind.plural }
  let params: AnyObject[]
  if (typeof paramRef.name === 'string' && paramRef.name !== '') {
    const found = await a.lookup(gr, namespace, paramRef.name)
    params = found === undefined ? [] : [found]
  } else if (paramRef.selector !== undefined && paramRef.selector !== null) {
    const requirements = selectorRequirements(paramRef.selector)
    params = (await a.listRecent(gr, kind.namespaced ? namespace : undefined)).filter(o => matchesLabels(requirements, o.metadata?.labels ?? {}))
  } else {
    throw new ConfigurationError('one of name or selector must be provided')
  }
  if (params.length === 0 && paramRef.parameterNotFoundAction === 'Deny') {
    throw new ConfigurationError('no params found for policy binding with `Deny` parameterNotFoundAction')
  }
  return params
}
