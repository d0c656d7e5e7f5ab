// MutatingAdmissionPolicy (admissionregistration.svc.io/v1alpha1, cluster scope; alpha in the
// reference 1.33: served only with the MutatingAdmissionPolicy feature gate and --runtime-config
// both on): CEL mutations the MutatingAdmissionPolicy plugin applies in process to the creates
// and updates its matchConstraints name, once per binding (and parameter object), as an apply
// configuration (`Object{...}`, merged as server-side apply merges) or a JSON patch
// (`[JSONPatch{...}]`). Every expression is compiled when written.
import { Type } from '@sinclair/typebox'
import { defineResource, type AnyObject, type FieldError } from './define.js'
import { AGE_COLUMN, objectSchema } from './meta.js'
import { AtomicList } from './core-types.js'
import { GROUPS } from './naming.js'
import { keepZero, message } from './protobuf.js'
import { MatchResources, ParamKind, Variable, validateMutableOperations, validatePolicySpec } from './admission-policy.js'
import { MatchConditions, expressionProblems, type ExpressionResult, type ExpressionScope } from './cel-expressions.js'
import { REINVOCATION_POLICIES, notSupported } from './webhook-configuration.js'

const opt = Type.Optional
const struct = { additionalProperties: false }
type Obj = Record<string, any>

const expressionHolder = (name: string, description: string) => Type.Object({
  expression: opt(Type.String({ description }))
}, { ...struct, ...message(name, { expression: keepZero(1) }) })

const Mutation = Type.Object({
  patchType: Type.String({ description: 'ApplyConfiguration or JSONPatch: which of the two fields below is set.' }),
  applyConfiguration: opt(expressionHolder('ApplyConfiguration', 'A CEL expression giving an `Object{...}` apply configuration, merged into the object as server-side apply merges (atomic lists, maps and structs may not be changed).')),
  jsonPatch: opt(expressionHolder('JSONPatch', 'A CEL expression giving a list of `JSONPatch{op, path, from, value}` operations (RFC 6902).'))
}, { ...struct, ...message('Mutation', { patchType: keepZero(2), applyConfiguration: 3, jsonPatch: 4 }) })

const schema = objectSchema(`${GROUPS.admissionregistration}/v1alpha1`, 'MutatingAdmissionPolicy', {
  spec: opt(Type.Object({
    paramKind: opt(ParamKind),
    matchConstraints: opt(MatchResources),
    variables: opt(AtomicList(Variable)),
    mutations: opt(AtomicList(Mutation)),
    failurePolicy: opt(Type.String({ default: 'Fail' })),
    matchConditions: opt(MatchConditions),
    reinvocationPolicy: opt(Type.String({ description: 'Never or IfNeeded: whether the policy runs again when a later mutation (a webhook\'s, another policy\'s) changed the object.' }))
  }, { ...struct, default: {}, ...message('MutatingAdmissionPolicySpec', { paramKind: 1, matchConstraints: 2, variables: 3, mutations: 4, failurePolicy: 5, matchConditions: 6, reinvocationPolicy: keepZero(7) }) }))
}, 'MutatingAdmissionPolicy describes the definition of an admission mutation policy that mutates the object coming into admission chain.', { spec: 2 })

const PATCH_TYPES: Record<string, { field: 'applyConfiguration' | 'jsonPatch', result: ExpressionResult }> = {
  ApplyConfiguration: { field: 'applyConfiguration', result: 'object' },
  JSONPatch: { field: 'jsonPatch', result: 'json-patch' }
}

/** validateMutation: patchType names the one of applyConfiguration and jsonPatch that is set, and its expression compiles. */
function validateMutation (m: Obj, field: string, scope: ExpressionScope): FieldError[] {
  const errors: FieldError[] = []
  const patchType = m.patchType
  const chosen = typeof patchType === 'string' ? PATCH_TYPES[patchType] : undefined
  if (patchType === undefined || patchType === null || patchType === '') return [{ type: 'Required', field: `${field}.patchType` }]
  if (chosen === undefined) return [notSupported(`${field}.patchType`, patchType, Object.keys(PATCH_TYPES))]
  const holder = m[chosen.field]
  if (holder === undefined || holder === null) errors.push({ type: 'Required', field: `${field}.${chosen.field}`, detail: `must be specified when patchType is ${String(patchType)}` })
  else {
    const expression = String(holder.expression ?? '')
    if (expression.trim() === '') errors.push({ type: 'Required', field: `${field}.${chosen.field}.expression` })
    else errors.push(...expressionProblems(`${field}.${chosen.field}.expression`, expression, chosen.result, scope))
  }
  for (const other of Object.values(PATCH_TYPES)) {
    if (other.field !== chosen.field && m[other.field] !== undefined && m[other.field] !== null) {
      errors.push({ type: 'Invalid', field: `${field}.${other.field}`, value: m[other.field], detail: `must not be specified when patchType is ${String(patchType)}` })
    }
  }
  return errors
}

/**
 * validateMutatingAdmissionPolicySpec. `checkMatchConditions` false on an update that keeps
 * paramKind and matchConditions: stored conditions are not compiled again, as the reference.
 */
function validateSpec (p: Obj, checkMatchConditions: boolean): FieldError[] {
  const spec: Obj = p.spec ?? {}
  const { errors, scope } = validatePolicySpec(spec, checkMatchConditions, true)
  if (spec.matchConstraints !== undefined && spec.matchConstraints !== null) {
    errors.push(...validateMutableOperations(spec.matchConstraints, 'spec.matchConstraints.resourceRules.operations'))
  }
  const mutations: Obj[] = spec.mutations ?? []
  if (mutations.length === 0) errors.push({ type: 'Required', field: 'spec.mutations', detail: 'mutations must contain at least one item' })
  mutations.forEach((m, i) => errors.push(...validateMutation(m ?? {}, `spec.mutations[${i}]`, scope)))
  const reinvocation = spec.reinvocationPolicy
  if (reinvocation === undefined || reinvocation === null || reinvocation === '') errors.push({ type: 'Required', field: 'spec.reinvocationPolicy' })
  else if (!REINVOCATION_POLICIES.includes(reinvocation)) errors.push(notSupported('spec.reinvocationPolicy', reinvocation, REINVOCATION_POLICIES))
  return errors
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null)

export default defineResource({
  group: GROUPS.admissionregistration,
  version: 'v1alpha1',
  kind: 'MutatingAdmissionPolicy',
  plural: 'mutatingadmissionpolicies',
  singular: 'mutatingadmissionpolicy',
  categories: ['api-extensions'],
  scope: 'Cluster',
  schema,
  generation: true,
  featureGate: 'MutatingAdmissionPolicy',
  strategy: {
    validateCreate: (p: AnyObject) => validateSpec(p, true),
    validateUpdate: (p: AnyObject, old: AnyObject) =>
      validateSpec(p, !(same(p.spec?.paramKind, old.spec?.paramKind) && same(p.spec?.matchConditions, old.spec?.matchConditions)))
  },
  columns: [AGE_COLUMN],
  example: {
    metadata: { name: 'sidecar-label' },
    spec: {
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      mutations: [
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"mutated": "true"}}}' } },
        { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"policy": "sidecar-label"}}]' } }
      ]
    }
  }
})
