// ValidatingAdmissionPolicy (admissionregistration.svc.io/v1, cluster scope, /status): CEL
// validations the ValidatingAdmissionPolicy plugin evaluates in process for the requests its
// matchConstraints name, once per binding (and per parameter object). Every expression is
// compiled when written; a compile error is a 422 in the reference's words.
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type AnyObject, type FieldError } from './define.js'
import { AGE_COLUMN, Int64, objectSchema } from './meta.js'
import { AtomicList, MapList } from './core-types.js'
import { GROUPS } from './naming.js'
import { keepZero, message } from './protobuf.js'
import { invalidEach, qualifiedNameProblems } from './validation.js'
import { MatchResources, ParamKind, Variable, validatePolicySpec } from './admission-policy.js'
import { MatchConditions, expressionProblems, type ExpressionScope } from './cel-expressions.js'
import { notSupported } from './webhook-configuration.js'
import { MetaCondition, validateMetaConditions } from './poddisruptionbudgets.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

const Validation = Type.Object({
  expression: Type.String({ description: 'A CEL expression that must evaluate to bool: false refuses the request.' }),
  message: opt(Type.String()),
  reason: opt(Type.String({ description: 'Forbidden, Invalid (the default) or RequestEntityTooLarge: the refusal\'s reason and code.' })),
  messageExpression: opt(Type.String({ description: 'A CEL expression giving the refusal\'s message (a string).' }))
}, { ...struct, ...message('Validation', { expression: keepZero(1), message: keepZero(2), reason: 3, messageExpression: keepZero(4) }) })

const AuditAnnotation = Type.Object({
  key: Type.String({ description: 'Joined to the policy name as `<policy>/<key>`: a qualified name of at most 63 characters.' }),
  valueExpression: Type.String({ description: 'A CEL expression giving a string, or null for no annotation.' })
}, { ...struct, ...message('AuditAnnotation', { key: keepZero(1), valueExpression: keepZero(2) }) })

const ExpressionWarning = Type.Object({
  fieldRef: Type.String(),
  warning: Type.String()
}, { ...struct, ...message('ExpressionWarning', { fieldRef: keepZero(2), warning: keepZero(3) }) })

const schema = objectSchema(`${GROUPS.admissionregistration}/v1`, 'ValidatingAdmissionPolicy', {
  spec: opt(Type.Object({
    paramKind: opt(ParamKind),
    matchConstraints: opt(MatchResources),
    validations: opt(AtomicList(Validation)),
    failurePolicy: opt(Type.String({ default: 'Fail' })),
    auditAnnotations: opt(AtomicList(AuditAnnotation)),
    matchConditions: opt(MatchConditions),
    variables: opt(AtomicList(Variable))
  }, { ...struct, default: {}, ...message('ValidatingAdmissionPolicySpec', { paramKind: 1, matchConstraints: 2, validations: 3, failurePolicy: 4, auditAnnotations: 5, matchConditions: 6, variables: 7 }) })),
  status: opt(Type.Object({
    observedGeneration: opt(Int64()),
    typeChecking: opt(Type.Object({ expressionWarnings: opt(AtomicList(ExpressionWarning)) }, { ...struct, ...message('TypeChecking', { expressionWarnings: 1 }) })),
    conditions: opt(MapList(MetaCondition, ['type']))
  }, { ...struct, ...message('ValidatingAdmissionPolicyStatus', { observedGeneration: keepZero(1), typeChecking: 2, conditions: 3 }) }))
}, 'ValidatingAdmissionPolicy describes the definition of an admission validation policy that accepts or rejects an object without changing it.', { spec: 2, status: 3 })

type Obj = Record<string, any>

const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge']
const MAX_AUDIT_ANNOTATIONS = 20
const MAX_VALUE_EXPRESSION_LENGTH = 5 * 1024
const hasNewlines = (s: string): boolean => /[\n\r]/.test(s)

function validateValidation (v: Obj, field: string, scope: ExpressionScope, withParams: boolean): FieldError[] {
  const errors: FieldError[] = []
  const expression = String(v.expression ?? '')
  if (expression.trim() === '') errors.push({ type: 'Required', field: `${field}.expression`, detail: 'expression is not specified' })
  else errors.push(...expressionProblems(`${field}.expression`, expression, 'bool', scope))
  const messageExpression = String(v.messageExpression ?? '')
  if (messageExpression !== '' && messageExpression.trim() === '') {
    errors.push({ type: 'Invalid', field: `${field}.messageExpression`, value: messageExpression, detail: 'must be non-empty if specified' })
  } else if (messageExpression !== '') {
    // The reference declares no authorizer for messages, and params only when the policy has a paramKind.
    errors.push(...expressionProblems(`${field}.messageExpression`, messageExpression, 'string', { params: withParams, authorizer: false, variables: scope.variables, declaredVariables: scope.declaredVariables }))
  }
  const text = String(v.message ?? '')
  if (text !== '' && text.trim() === '') errors.push({ type: 'Invalid', field: `${field}.message`, value: text, detail: 'message must be non-empty if specified' })
  else if (hasNewlines(text.trim())) errors.push({ type: 'Invalid', field: `${field}.message`, value: text, detail: 'message must not contain line breaks' })
  if (v.reason !== undefined && v.reason !== null && !REASONS.includes(v.reason)) errors.push(notSupported(`${field}.reason`, v.reason, REASONS))
  return errors
}

function validateAuditAnnotation (a: Obj, field: string, policyName: string, scope: ExpressionScope): FieldError[] {
  const errors: FieldError[] = []
  const key = String(a.key ?? '')
  if (policyName !== '') errors.push(...invalidEach(`${field}.key`, `${policyName}/${key}`, qualifiedNameProblems(`${policyName}/${key}`)))
  else errors.push({ type: 'Invalid', field: `${field}.key`, value: key, detail: 'requires metadata.name be non-empty' })
  const value = String(a.valueExpression ?? '').trim()
  if (value === '') errors.push({ type: 'Required', field: `${field}.valueExpression`, detail: 'valueExpression is not specified' })
  else if (value.length > MAX_VALUE_EXPRESSION_LENGTH) errors.push({ type: 'Required', field: `${field}.valueExpression`, detail: `must not exceed ${MAX_VALUE_EXPRESSION_LENGTH} bytes in length` })
  else errors.push(...expressionProblems(`${field}.valueExpression`, value, 'string-or-null', scope).map(e => ({ ...e, value: a.valueExpression })))
  return errors
}

/**
 * validateValidatingAdmissionPolicySpec. `checkMatchConditions` false on an update that keeps
 * paramKind and matchConditions: stored conditions are not compiled again, as the reference.
 */
function validateSpec (p: Obj, checkMatchConditions: boolean): FieldError[] {
  const spec: Obj = p.spec ?? {}
  const { errors, scope, withParams } = validatePolicySpec(spec, checkMatchConditions)
  const validations: Obj[] = spec.validations ?? []
  const annotations: Obj[] = spec.auditAnnotations ?? []
  if (validations.length === 0 && annotations.length === 0) {
    const detail = 'validations or auditAnnotations must contain at least one item'
    errors.push({ type: 'Required', field: 'spec.validations', detail }, { type: 'Required', field: 'spec.auditAnnotations', detail })
    return errors
  }
  validations.forEach((v, i) => errors.push(...validateValidation(v ?? {}, `spec.validations[${i}]`, scope, withParams)))
  if (annotations.length > MAX_AUDIT_ANNOTATIONS) errors.push({ type: 'Invalid', field: 'spec.auditAnnotations', value: annotations, detail: `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations` })
  const keys = new Set<string>()
  annotations.forEach((a, i) => {
    errors.push(...validateAuditAnnotation(a ?? {}, `spec.auditAnnotations[${i}]`, String(p.metadata?.name ?? ''), scope))
    if (keys.has(a?.key)) errors.push({ type: 'Duplicate', field: `spec.auditAnnotations[${i}].key`, value: a.key })
    keys.add(a?.key)
  })
  return errors
}

function validateStatus (status: Obj | undefined): FieldError[] {
  const errors: FieldError[] = []
  ;(status?.typeChecking?.expressionWarnings as Obj[] | undefined ?? []).forEach((w, i) => {
    const at = `status.typeChecking.expressionWarnings[${i}]`
    if ((w?.warning ?? '') === '') errors.push({ type: 'Required', field: `${at}.warning` })
    if (String(w?.fieldRef ?? '').trim() === '') errors.push({ type: 'Required', field: `${at}.fieldRef` })
  })
  return [...errors, ...validateMetaConditions(status?.conditions, 'status.conditions')]
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null)

export default defineResource({
  group: GROUPS.admissionregistration,
  version: 'v1',
  kind: 'ValidatingAdmissionPolicy',
  plural: 'validatingadmissionpolicies',
  singular: 'validatingadmissionpolicy',
  categories: ['api-extensions'],
  scope: 'Cluster',
  schema,
  generation: true,
  subresources: { status: statusSubresource() },
  strategy: {
    validateCreate: (p: AnyObject) => [...validateSpec(p, true), ...validateStatus(p.status)],
    validateUpdate: (p: AnyObject, old: AnyObject) => [
      ...validateSpec(p, !(same(p.spec?.paramKind, old.spec?.paramKind) && same(p.spec?.matchConditions, old.spec?.matchConditions))),
      ...validateStatus(p.status)
    ]
  },
  columns: [
    { name: 'Validations', type: 'integer', description: 'Validations contain CEL expressions which is used to apply the validation.', value: (p: Obj) => (p.spec?.validations ?? []).length },
    { name: 'ParamKind', type: 'string', description: 'ParamKind specifies the kind of resources used to parameterize this policy', value: (p: Obj) => p.spec?.paramKind == null ? '<unset>' : `${String(p.spec.paramKind.apiVersion ?? '')}/${String(p.spec.paramKind.kind ?? '')}` },
    AGE_COLUMN
  ],
  example: {
    metadata: { name: 'replica-limit' },
    spec: {
      failurePolicy: 'Fail',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] },
      variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
      validations: [{ expression: 'variables.replicas <= int(params.data.maxReplicas)', messageExpression: "'at most ' + params.data.maxReplicas + ' replicas'", reason: 'Invalid' }],
      auditAnnotations: [{ key: 'high-replica-count', valueExpression: "variables.replicas > 50 ? dyn('Deployment spec.replicas set to ' + string(variables.replicas)) : null" }]
    },
    status: {
      observedGeneration: 1,
      typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: 'no such key: maxReplicas' }] },
      conditions: [{ type: 'Ready', status: 'True', reason: 'Checked', message: 'type checked', lastTransitionTime: '2024-01-01T00:00:00Z' }]
    }
  }
})
