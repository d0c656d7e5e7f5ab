// Schemas and validation shared by the four RBAC kinds (Role, ClusterRole, RoleBinding,
// ClusterRoleBinding), worded as the reference server words them.
import { Type } from '@sinclair/typebox'
import type { FieldError } from './status.js'
import type { Column, Strategy } from './define.js'
import { canonicalGroup, GROUPS } from './naming.js'
import { dnsSubdomainProblems, invalidEach, pathSegmentProblems } from './validation.js'
import { message } from './protobuf.js'

const Strings = (description: string) => Type.Optional(Type.Array(Type.String(), { description }))

export const PolicyRule = Type.Object({
  verbs: Strings('Verbs this rule allows; `*` is every verb.'),
  apiGroups: Strings('API groups of the resources; "" is the core group, `*` every group.'),
  resources: Strings('Resources, `<resource>/<subresource>`, `*/<subresource>` or `*`.'),
  resourceNames: Strings('Object names this rule is limited to; empty is every name.'),
  nonResourceURLs: Strings('Non-resource paths (ClusterRoles only); a trailing `*` matches a prefix.')
}, { additionalProperties: false, ...message('PolicyRule', { verbs: 1, apiGroups: 2, resources: 3, resourceNames: 4, nonResourceURLs: 5 }) })

export const Subject = Type.Object({
  kind: Type.String({ description: 'User, Group or ServiceAccount.' }),
  apiGroup: Type.Optional(Type.String()),
  name: Type.String(),
  namespace: Type.Optional(Type.String())
}, { additionalProperties: false, ...message('Subject', { kind: 1, apiGroup: 2, name: 3, namespace: 4 }) })

export const RoleRef = Type.Object({
  apiGroup: Type.String(),
  kind: Type.String(),
  name: Type.String()
}, { additionalProperties: false, ...message('RoleRef', { apiGroup: 1, kind: 2, name: 3 }) })

const SelectorRequirement = Type.Object({
  key: Type.String(),
  operator: Type.String(),
  values: Type.Optional(Type.Array(Type.String()))
}, { additionalProperties: false, ...message('meta.v1.LabelSelectorRequirement', { key: 1, operator: 2, values: 3 }) })

export const LabelSelector = Type.Object({
  matchLabels: Type.Optional(Type.Record(Type.String(), Type.String())),
  matchExpressions: Type.Optional(Type.Array(SelectorRequirement))
}, { additionalProperties: false, ...message('meta.v1.LabelSelector', { matchLabels: 1, matchExpressions: 2 }) })

export const AggregationRule = Type.Object({
  clusterRoleSelectors: Type.Optional(Type.Array(LabelSelector))
}, { additionalProperties: false, ...message('AggregationRule', { clusterRoleSelectors: 1 }) })

export const rulesField = () => Type.Optional(Type.Array(PolicyRule, { description: 'What the role allows.' }))
export const subjectsField = () => Type.Optional(Type.Array(Subject, { description: 'Who the binding applies to.' }))

type Rule = { verbs?: string[], apiGroups?: string[], resources?: string[], resourceNames?: string[], nonResourceURLs?: string[] }
type SubjectT = { kind: string, apiGroup?: string, name: string, namespace?: string }
type RoleRefT = { apiGroup?: string, kind?: string, name?: string }

const filled = (a: string[] | undefined): boolean => a !== undefined && a.length > 0

export function validateRules (rules: Rule[] | undefined, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = []
  ;(rules ?? []).forEach((r, i) => {
    const at = `rules[${i}]`
    if (!filled(r.verbs)) errors.push({ type: 'Required', field: `${at}.verbs`, detail: 'verbs must contain at least one value' })
    if (filled(r.nonResourceURLs)) {
      if (namespaced) errors.push({ type: 'Invalid', field: `${at}.nonResourceURLs`, value: r.nonResourceURLs, detail: 'namespaced rules cannot apply to non-resource URLs' })
      if (filled(r.apiGroups) || filled(r.resources)) errors.push({ type: 'Invalid', field: `${at}.nonResourceURLs`, value: r.nonResourceURLs, detail: 'rules cannot apply to both regular resources and non-resource URLs' })
      return
    }
    if (!filled(r.apiGroups)) errors.push({ type: 'Required', field: `${at}.apiGroups`, detail: 'resource rules must supply at least one api group' })
    if (!filled(r.resources)) errors.push({ type: 'Required', field: `${at}.resources`, detail: 'resource rules must supply at least one resource' })
  })
  return errors
}

export function validateAggregationRule (rule: { clusterRoleSelectors?: Array<{ matchExpressions?: Array<{ key: string, operator: string, values?: string[] }> }> } | undefined): FieldError[] {
  if (rule === undefined) return []
  const errors: FieldError[] = []
  if (!filled(rule.clusterRoleSelectors as unknown as string[] | undefined)) errors.push({ type: 'Required', field: 'aggregationRule.clusterRoleSelectors' })
  ;(rule.clusterRoleSelectors ?? []).forEach((s, i) => {
    (s.matchExpressions ?? []).forEach((e, j) => {
      const at = `aggregationRule.clusterRoleSelectors[${i}].matchExpressions[${j}]`
      const ops = ['In', 'NotIn', 'Exists', 'DoesNotExist']
      if (!ops.includes(e.operator)) errors.push({ type: 'NotSupported', field: `${at}.operator`, value: e.operator, supported: ops })
      else if ((e.operator === 'In' || e.operator === 'NotIn') && !filled(e.values)) errors.push({ type: 'Required', field: `${at}.values`, detail: 'must be specified when `operator` is \'In\' or \'NotIn\'' })
      else if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && filled(e.values)) errors.push({ type: 'Forbidden', field: `${at}.values`, detail: 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\'' })
    })
  })
  return errors
}

/** The RBAC group as clients hard-coding the upstream name spell it becomes ours. */
export function canonicalRoleRef (ref: RoleRefT | undefined): void {
  if (ref?.apiGroup !== undefined) ref.apiGroup = canonicalGroup(ref.apiGroup)
}

/** User and Group subjects default to the RBAC group, service accounts to the core group. */
export function defaultSubjects (subjects: SubjectT[] | undefined): void {
  for (const s of subjects ?? []) {
    if (s.apiGroup !== undefined && s.apiGroup !== '') { s.apiGroup = canonicalGroup(s.apiGroup); continue }
    if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = GROUPS.rbac
    else if (s.kind === 'ServiceAccount') s.apiGroup = ''
  }
}

export function validateSubjects (subjects: SubjectT[] | undefined, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = []
  ;(subjects ?? []).forEach((s, i) => {
    const at = `subjects[${i}]`
    if (s.name === '') errors.push({ type: 'Required', field: `${at}.name` })
    switch (s.kind) {
      case 'ServiceAccount':
        if (s.name !== '') errors.push(...invalidEach(`${at}.name`, s.name, dnsSubdomainProblems(s.name)))
        if ((s.apiGroup ?? '') !== '') errors.push({ type: 'NotSupported', field: `${at}.apiGroup`, value: s.apiGroup, supported: [''] })
        if (!namespaced && (s.namespace ?? '') === '') errors.push({ type: 'Required', field: `${at}.namespace` })
        break
      case 'User':
      case 'Group':
        if (s.apiGroup !== GROUPS.rbac) errors.push({ type: 'NotSupported', field: `${at}.apiGroup`, value: s.apiGroup ?? '', supported: [GROUPS.rbac] })
        break
      default:
        errors.push({ type: 'NotSupported', field: `${at}.kind`, value: s.kind, supported: ['ServiceAccount', 'User', 'Group'] })
    }
  })
  return errors
}

export function validateRoleRef (ref: RoleRefT | undefined, kinds: string[]): FieldError[] {
  const errors: FieldError[] = []
  const r = ref ?? {}
  if (r.apiGroup !== GROUPS.rbac) errors.push({ type: 'NotSupported', field: 'roleRef.apiGroup', value: r.apiGroup ?? '', supported: [GROUPS.rbac] })
  if (!kinds.includes(r.kind ?? '')) errors.push({ type: 'NotSupported', field: 'roleRef.kind', value: r.kind ?? '', supported: kinds })
  if ((r.name ?? '') === '') errors.push({ type: 'Required', field: 'roleRef.name' })
  else errors.push(...invalidEach('roleRef.name', r.name, pathSegmentProblems(r.name!)))
  return errors
}

export function validateRoleRefUnchanged (ref: RoleRefT | undefined, old: RoleRefT | undefined): FieldError[] {
  const same = ref?.apiGroup === old?.apiGroup && ref?.kind === old?.kind && ref?.name === old?.name
  return same ? [] : [{ type: 'Invalid', field: 'roleRef', value: ref, detail: 'cannot change roleRef' }]
}

type Binding = { subjects?: SubjectT[], roleRef?: RoleRefT }

/** What RoleBinding and ClusterRoleBinding share: defaults, validation, an immutable roleRef. */
export function bindingStrategy (roleKinds: string[], namespaced: boolean): Strategy<Binding> {
  return {
    // PUT creates, as the reference's strategy allows (AllowCreateOnUpdate).
    allowCreateOnUpdate: true,
    prepareForCreate: (b) => { defaultSubjects(b.subjects); canonicalRoleRef(b.roleRef) },
    prepareForUpdate: (b) => { defaultSubjects(b.subjects); canonicalRoleRef(b.roleRef) },
    validate: (b) => [...validateRoleRef(b.roleRef, roleKinds), ...validateSubjects(b.subjects, namespaced)],
    validateUpdate: (b, old) => validateRoleRefUnchanged(b.roleRef, old.roleRef)
  }
}

const subjectNames = (b: Binding, kind: string, name: (s: SubjectT) => string): string =>
  (b.subjects ?? []).filter(s => s.kind === kind).map(name).join(', ')

/** kubectl's columns for bindings. */
export const BINDING_COLUMNS: Column<Binding>[] = [
  { name: 'Role', type: 'string', value: (b) => `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}` },
  { name: 'Users', type: 'string', priority: 1, value: (b) => subjectNames(b, 'User', s => s.name) },
  { name: 'Groups', type: 'string', priority: 1, value: (b) => subjectNames(b, 'Group', s => s.name) },
  { name: 'ServiceAccounts', type: 'string', priority: 1, value: (b) => subjectNames(b, 'ServiceAccount', s => `${s.namespace ?? ''}/${s.name}`) }
]
