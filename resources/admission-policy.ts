// What the admission policies (Validating v1, Mutating v1alpha1) and their bindings share: match
// resources (webhook rules with resource names, selectors, exclusions, match policy), paramKind,
// paramRef and variables, and their validation in the reference's words and field paths
// (pkg/apis/admissionregistration/validation). Expressions compile at write time through the
// compiler the composition root hands resources/cel-expressions.ts.
import { Type } from '@sinclair/typebox'
import type { FieldError } from './status.js'
import { AtomicList, LABEL_SELECTOR_FIELDS, LabelSelector, validateLabelSelector } from './core-types.js'
import { inlined, keepZero, message } from './protobuf.js'
import { dns1035LabelProblems, dnsSubdomainProblems, invalidEach, pathSegmentProblems } from './validation.js'
import { FAILURE_POLICIES, MATCH_POLICIES, RuleWithOperations, notSupported, validateRule } from './webhook-configuration.js'
import { expressionProblems, isCelIdentifier, validateMatchConditions, type ExpressionScope } from './cel-expressions.js'

const opt = Type.Optional
const struct = { additionalProperties: false }
type Obj = Record<string, any>

const selector = (description: string) =>
  opt(Type.Object(LabelSelector.properties, { ...struct, default: {}, description, ...message('meta.v1.LabelSelector', LABEL_SELECTOR_FIELDS) }))

/** A webhook rule and the names it is limited to (NamedRuleWithOperations). */
export const NamedRuleWithOperations = Type.Object({
  resourceNames: opt(AtomicList(Type.String(), { description: 'Names the rule is limited to; every name when empty.' })),
  ...RuleWithOperations.properties
}, { ...struct, ...message('NamedRuleWithOperations', { resourceNames: 1 }, { ruleWithOperations: inlined(2, 'RuleWithOperations', { operations: 1 }, { rule: inlined(2, 'Rule', { apiGroups: 1, apiVersions: 2, resources: 3, scope: keepZero(4) }) }) }) })

export const MatchResources = Type.Object({
  namespaceSelector: selector('Namespaces whose objects match (a Namespace by its own labels); every namespace when empty.'),
  objectSelector: selector('Labels the object (new or old) must carry; every object when empty.'),
  resourceRules: opt(AtomicList(NamedRuleWithOperations)),
  excludeResourceRules: opt(AtomicList(NamedRuleWithOperations)),
  matchPolicy: opt(Type.String({ default: 'Equivalent', description: 'Exact or Equivalent (a request through another version or group of the same kind matches too).' }))
}, { ...struct, description: 'Which requests a policy or binding looks at; exclusions win.', ...message('MatchResources', { namespaceSelector: 1, objectSelector: 2, resourceRules: 3, excludeResourceRules: 4, matchPolicy: keepZero(7) }) })

export const ParamKind = Type.Object({
  apiVersion: opt(Type.String()),
  kind: opt(Type.String())
}, { ...struct, description: 'The kind of the objects a binding names as parameters.', ...message('ParamKind', { apiVersion: keepZero(1), kind: keepZero(2) }) })

export const ParamRef = Type.Object({
  name: opt(Type.String()),
  namespace: opt(Type.String()),
  selector: opt(Type.Object(LabelSelector.properties, { ...struct, ...message('meta.v1.LabelSelector', LABEL_SELECTOR_FIELDS) })),
  parameterNotFoundAction: opt(Type.String({ description: 'Allow or Deny when no parameter is found.' }))
}, { ...struct, description: 'The parameter object(s) of a binding: by name or by label selector.', ...message('ParamRef', { name: keepZero(1), namespace: keepZero(2), selector: 3, parameterNotFoundAction: 4 }) })

export const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn']
const PARAMETER_NOT_FOUND_ACTIONS = ['Deny', 'Allow']

/** validateMatchResources: match policy and both selectors required (defaults fill them), each rule checked. */
export function validateMatchResources (mc: Obj | undefined | null, field: string): FieldError[] {
  if (mc === undefined || mc === null) return []
  const errors: FieldError[] = []
  if (mc.matchPolicy === undefined || mc.matchPolicy === null) errors.push({ type: 'Required', field: `${field}.matchPolicy` })
  else if (!MATCH_POLICIES.includes(mc.matchPolicy)) errors.push(notSupported(`${field}.matchPolicy`, mc.matchPolicy, MATCH_POLICIES))
  for (const key of ['namespaceSelector', 'objectSelector']) {
    if (mc[key] === undefined || mc[key] === null) errors.push({ type: 'Required', field: `${field}.${key}` })
    else errors.push(...validateLabelSelector(mc[key], `${field}.${key}`))
  }
  for (const key of ['resourceRules', 'excludeResourceRules']) {
    ;(mc[key] as Obj[] | undefined ?? []).forEach((r, i) => errors.push(...validateNamedRule(r ?? {}, `${field}.${key}[${i}]`)))
  }
  return errors
}

function validateNamedRule (rule: Obj, field: string): FieldError[] {
  const errors: FieldError[] = []
  const names = new Set<string>()
  ;(rule.resourceNames as string[] | undefined ?? []).forEach((n, i) => {
    errors.push(...invalidEach(`${field}.resourceNames[${i}]`, n, pathSegmentProblems(n)))
    if (names.has(n)) errors.push({ type: 'Duplicate', field: `${field}.resourceNames[${i}]`, value: n })
    names.add(n)
  })
  return [...errors, ...validateRule(rule, field)]
}

/** validateParamKind: apiVersion as group/version (group a DNS subdomain, version a DNS-1035 label), kind a DNS-1035 label in any case. */
export function validateParamKind (pk: Obj, field: string): FieldError[] {
  const errors: FieldError[] = []
  const apiVersion = String(pk.apiVersion ?? '')
  if (apiVersion === '') errors.push({ type: 'Required', field: `${field}.apiVersion` })
  else {
    const slashes = apiVersion.split('/').length - 1
    if (slashes > 1) errors.push({ type: 'Invalid', field: `${field}.apiVersion`, value: apiVersion, detail: `unexpected GroupVersion string: ${apiVersion}` })
    else {
      const [group, version] = apiVersion === '/' ? ['', ''] : slashes === 0 ? ['', apiVersion] : apiVersion.split('/') as [string, string]
      if (group !== '') {
        const problems = dnsSubdomainProblems(group)
        if (problems.length > 0) errors.push({ type: 'Invalid', field: `${field}.apiVersion`, value: group, detail: problems.join(',') })
      }
      if (version === '') errors.push({ type: 'Invalid', field: `${field}.apiVersion`, value: apiVersion, detail: 'version must be specified' })
      else {
        const problems = dns1035LabelProblems(version)
        if (problems.length > 0) errors.push({ type: 'Invalid', field: `${field}.apiVersion`, value: version, detail: problems.join(',') })
      }
    }
  }
  const kind = String(pk.kind ?? '')
  if (kind === '') errors.push({ type: 'Required', field: `${field}.kind` })
  else {
    const problems = dns1035LabelProblems(kind.toLowerCase())
    if (problems.length > 0) errors.push({ type: 'Invalid', field: `${field}.kind`, value: kind, detail: 'may have mixed case, but should otherwise match: ' + problems.join(',') })
  }
  return errors
}

/** validateParamRef: name xor selector, parameterNotFoundAction Allow or Deny. */
export function validateParamRef (pr: Obj | undefined | null, field: string): FieldError[] {
  if (pr === undefined || pr === null) return []
  const errors: FieldError[] = []
  const name = String(pr.name ?? '')
  const hasSelector = pr.selector !== undefined && pr.selector !== null
  if (name !== '') {
    errors.push(...invalidEach(`${field}.name`, name, pathSegmentProblems(name)))
    if (hasSelector) errors.push({ type: 'Forbidden', field: `${field}.name`, detail: 'name and selector are mutually exclusive' })
  }
  if (hasSelector) {
    errors.push(...validateLabelSelector(pr.selector, `${field}.selector`))
    if (name !== '') errors.push({ type: 'Forbidden', field: `${field}.selector`, detail: 'name and selector are mutually exclusive' })
  }
  if (name === '' && !hasSelector) errors.push({ type: 'Required', field, detail: 'one of name or selector must be specified' })
  const action = pr.parameterNotFoundAction
  if (action === undefined || action === null || action === '') errors.push({ type: 'Required', field: `${field}.parameterNotFoundAction` })
  else if (!PARAMETER_NOT_FOUND_ACTIONS.includes(action)) errors.push(notSupported(`${field}.parameterNotFoundAction`, action, PARAMETER_NOT_FOUND_ACTIONS))
  return errors
}

/** validateValidationActions: known, unique, at least one, not both Deny and Warn. */
export function validateValidationActions (actions: string[] | undefined, field: string): FieldError[] {
  const list = actions ?? []
  const errors: FieldError[] = []
  const seen = new Set<string>()
  list.forEach((a, i) => {
    if (!VALIDATION_ACTIONS.includes(a)) errors.push(notSupported(`${field}[${i}]`, a, VALIDATION_ACTIONS))
    if (seen.has(a)) errors.push({ type: 'Duplicate', field: `${field}[${i}]`, value: a })
    seen.add(a)
  })
  if (seen.has('Deny') && seen.has('Warn')) {
    errors.push({ type: 'Invalid', field, value: list, detail: 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)' })
  }
  if (seen.size === 0) errors.push({ type: 'Required', field, detail: 'at least one validation action is required' })
  return errors
}

export const Variable = Type.Object({
  name: Type.String({ description: 'A CEL identifier; read as `variables.<name>`.' }),
  expression: Type.String()
}, { ...struct, ...message('Variable', { name: keepZero(1), expression: keepZero(2) }) })

/** validateVariable for each: a CEL identifier as the name, an expression that compiles. */
export function validateVariables (variables: Obj[] | undefined, field: string, scope: ExpressionScope): FieldError[] {
  const errors: FieldError[] = []
  ;(variables ?? []).forEach((v, i) => {
    const at = `${field}[${i}]`
    const name = String(v?.name ?? '')
    if (name.trim() === '') errors.push({ type: 'Required', field: `${at}.name`, detail: 'name is not specified' })
    else if (!isCelIdentifier(name)) errors.push({ type: 'Invalid', field: `${at}.name`, value: name, detail: 'name is not a valid CEL identifier' })
    const expression = String(v?.expression ?? '')
    if (expression.trim() === '') errors.push({ type: 'Required', field: `${at}.expression`, detail: 'expression is not specified' })
    // A variable reads the ones before it.
    else errors.push(...expressionProblems(`${at}.expression`, expression, 'any', { ...scope, declaredVariables: scope.declaredVariables?.slice(0, i) }))
  })
  return errors
}

// A mutation applies to the object a create or update writes; DELETE has none to change.
const MUTABLE_OPERATIONS = ['*', 'CONNECT', 'CREATE', 'UPDATE']

/** The mutating policies' operation check: every rule's operations among the mutable ones (one path for all, as the reference). */
export function validateMutableOperations (mr: Obj | undefined | null, field: string): FieldError[] {
  const errors: FieldError[] = []
  for (const rule of (mr?.resourceRules as Obj[] | undefined ?? [])) {
    for (const op of (rule?.operations as string[] | undefined ?? [])) {
      if (!MUTABLE_OPERATIONS.includes(op)) errors.push(notSupported(field, op, MUTABLE_OPERATIONS))
    }
  }
  return errors
}

/**
 * What both policy kinds' specs validate alike: failurePolicy, paramKind, matchConstraints with
 * at least one rule (the kinds whose objects the policy sees), matchConditions and variables.
 * `checkMatchConditions` false on an update that keeps paramKind and matchConditions: stored
 * conditions are not compiled again, as the reference. Returns the scope the kind's own
 * expressions compile in.
 */
export function validatePolicySpec (spec: Obj, checkMatchConditions: boolean, patchTypes = false): { errors: FieldError[], scope: ExpressionScope, withParams: boolean } {
  const errors: FieldError[] = []
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) errors.push({ type: 'Required', field: 'spec.failurePolicy' })
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy)) errors.push(notSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES))
  const withParams = spec.paramKind !== undefined && spec.paramKind !== null
  if (withParams) errors.push(...validateParamKind(spec.paramKind, 'spec.paramKind'))
  if (spec.matchConstraints === undefined || spec.matchConstraints === null) errors.push({ type: 'Required', field: 'spec.matchConstraints' })
  else {
    errors.push(...validateMatchResources(spec.matchConstraints, 'spec.matchConstraints'))
    if ((spec.matchConstraints.resourceRules ?? []).length === 0) errors.push({ type: 'Required', field: 'spec.matchConstraints.resourceRules' })
  }
  if (checkMatchConditions) errors.push(...validateMatchConditions(spec.matchConditions, 'spec.matchConditions', { params: withParams, authorizer: true }))
  const declaredVariables = (spec.variables as Obj[] | undefined ?? []).map(v => ({ name: String(v?.name ?? ''), expression: String(v?.expression ?? '') }))
  const scope: ExpressionScope = { params: withParams, authorizer: true, variables: declaredVariables.length > 0, declaredVariables }
  errors.push(...validateVariables(spec.variables, 'spec.variables', patchTypes ? { ...scope, patchTypes } : scope))
  return { errors, scope, withParams }
}

/**
 * What both binding kinds' specs validate alike: the policy's name, paramRef and matchResources
 * (reported at `matchResourcesField`: the validating binding's path carries the reference's own
 * spelling, "matchResouces").
 */
export function validateBindingSpec (spec: Obj, matchResourcesField: string): FieldError[] {
  const name = String(spec.policyName ?? '')
  const errors: FieldError[] = name === ''
    ? [{ type: 'Required', field: 'spec.policyName' }]
    : invalidEach('spec.policyName', name, dnsSubdomainProblems(name))
  errors.push(...validateParamRef(spec.paramRef, 'spec.paramRef'))
  errors.push(...validateMatchResources(spec.matchResources, matchResourcesField))
  return errors
}
