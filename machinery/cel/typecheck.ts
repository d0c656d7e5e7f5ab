// The type check of a ValidatingAdmissionPolicy's expressions against the kinds it matches, as
// the reference's policy/validating/typechecking.go: at write time expressions see `object` and
// `params` as dyn; here `object` and `oldObject` have the matched kind's schema type, `params`
// the paramKind's (undeclared when its schema is unknown, as there), `request` and
// `namespaceObject` the reference's hand-written types, and each variable the type its
// expression checked to, for the expressions after it. What it finds is a warning, written to
// the policy's status.typeChecking; it never changes how the policy runs.
import type { Environment } from '@marcbachmann/cel-js'
import { celEnvironment } from './environment.js'
import { compileExpression } from './compile.js'
import { declareSchemaType } from './types.js'
import { registerAuthz } from './library/authz.js'
import type { StructuralSchema } from './schema.js'

/** A kind to check against: its schema and how the warning names it (`apps/v1, Kind=Deployment`). */
export interface TypeCheckTarget { label: string, kind: string, schema: StructuralSchema }

/** What of a policy the check reads. */
export interface TypeCheckedPolicy {
  /** `spec.validations[0].expression` and its source, in the order warnings are listed */
  expressions: Array<{ fieldRef: string, source: string }>
  variables: Array<{ name: string, expression: string }>
  /** undefined: no paramKind; null: a paramKind whose schema is unknown */
  params?: StructuralSchema | null
}

export interface ExpressionWarning { fieldRef: string, warning: string }

const str: StructuralSchema = { type: 'string' }
const strings: StructuralSchema = { type: 'array', items: str }
const object = (properties: Record<string, StructuralSchema>): StructuralSchema => ({ type: 'object', properties })
const timestamp: StructuralSchema = { type: 'string', format: 'date-time' }

// The reference's BuildRequestType and BuildNamespaceType (admission/plugin/cel/compile.go).
const GVK = object({ group: str, version: str, kind: str })
const GVR = object({ group: str, version: str, resource: str })
const REQUEST = object({
  kind: GVK,
  resource: GVR,
  subResource: str,
  requestKind: GVK,
  requestResource: GVR,
  requestSubResource: str,
  name: str,
  namespace: str,
  operation: str,
  userInfo: object({ username: str, uid: str, groups: strings, extra: { type: 'object', additionalProperties: strings } }),
  dryRun: { type: 'boolean' },
  options: { 'x-kubernetes-preserve-unknown-fields': true }
})
const NAMESPACE = object({
  metadata: object({
    name: str,
    generateName: str,
    namespace: str,
    labels: { type: 'object', additionalProperties: str },
    annotations: { type: 'object', additionalProperties: str },
    UID: str,
    creationTimestamp: timestamp,
    deletionGracePeriodSeconds: { type: 'integer' },
    deletionTimestamp: timestamp,
    generation: { type: 'integer' },
    resourceVersion: str,
    finalizers: strings
  }),
  spec: object({ finalizers: strings }),
  status: object({ conditions: { type: 'array', items: object({ status: str, type: str, lastTransitionTime: timestamp, message: str, reason: str }) }, phase: str })
})

const VARIABLES_TYPE = 'kubernetes.variables'

// Declaring a kind's types costs tens of milliseconds (a Pod's are hundreds); an environment is
// only cloned from, never changed, so each kind's is kept, per paramKind schema.
const environments = new WeakMap<StructuralSchema, Map<StructuralSchema | null | undefined, Environment>>()

/** The environment of one kind: every variable but `variables`, which each expression's clone declares. */
function kindEnvironment (target: TypeCheckTarget, params: StructuralSchema | null | undefined): Environment {
  let byParams = environments.get(target.schema)
  if (byParams === undefined) environments.set(target.schema, byParams = new Map())
  let env = byParams.get(params)
  if (env === undefined) byParams.set(params, env = declaredEnvironment(target, params))
  return env
}

function declaredEnvironment (target: TypeCheckTarget, params: StructuralSchema | null | undefined): Environment {
  try {
    return environmentNaming(target, params, target.kind)
  } catch {
    // A kind named as one of the engine's own types (a custom resource may be) gets a qualified name.
    return environmentNaming(target, params, `kubernetes.kinds.${target.kind}`)
  }
}

function environmentNaming (target: TypeCheckTarget, params: StructuralSchema | null | undefined, typeName: string): Environment {
  const env = celEnvironment()
  registerAuthz(env)
  const obj = declareSchemaType(env, target.schema, typeName, true)
  env.registerVariable('object', obj.name)
  env.registerVariable('oldObject', obj.name)
  env.registerVariable('request', declareSchemaType(env, REQUEST, 'kubernetes.AdmissionRequest').name)
  env.registerVariable('namespaceObject', declareSchemaType(env, NAMESPACE, 'kubernetes.Namespace').name)
  if (params !== undefined && params !== null) env.registerVariable('params', declareSchemaType(env, params, 'kubernetes.params', true).name)
  env.registerVariable('authorizer', 'kubernetes.authorization.Authorizer')
  return env
}

/** A clone of `base` where `variables` has the fields declared so far. */
function withVariables (base: Environment, fields: Record<string, string>): Environment {
  const env = base.clone()
  env.registerType(VARIABLES_TYPE, { ctor: class {}, fields })
  env.registerVariable('variables', VARIABLES_TYPE)
  return env
}

/** A type the variables' type can name: a checked type, else dyn (a variable that failed to compile is dyn, as in the reference). */
function fieldType (base: Environment, type: string): string {
  try {
    base.clone().registerType('kubernetes.probe', { ctor: class {}, fields: { f: type } })
    return type
  } catch {
    return 'dyn'
  }
}

/** Each expression's problems for one kind: the checked errors in cel-go's words, keyed by field. */
function checkKind (target: TypeCheckTarget, policy: TypeCheckedPolicy): Map<string, string> {
  try {
    return problemsOf(kindEnvironment(target, policy.params), policy)
  } catch {
    // A schema or variables the engine cannot declare: the kind is skipped, as the reference
    // skips one it cannot resolve (type checking must never fail the policy).
    return new Map()
  }
}

function problemsOf (base: Environment, policy: TypeCheckedPolicy): Map<string, string> {
  const fields: Record<string, string> = {}
  for (const v of policy.variables) {
    const c = compileExpression(withVariables(base, fields), v.expression, 'dyn')
    fields[v.name] = c.ok ? fieldType(base, c.expression.type) : 'dyn'
  }
  const env = withVariables(base, fields)
  const problems = new Map<string, string>()
  for (const e of policy.expressions) {
    const c = compileExpression(env, e.source, 'dyn')
    // compileExpression words the issue as the reference's validation does; the type check gives the issue alone.
    if (!c.ok) problems.set(e.fieldRef, c.error.replace(/^compilation failed: /, ''))
  }
  return problems
}

/**
 * The warnings of a policy, as the reference's TypeChecker.Check: per expression, each kind's
 * issues as `<gvk>: <issues>\n`, the kinds' joined by a line break.
 */
export async function typeCheckPolicy (targets: TypeCheckTarget[], policy: TypeCheckedPolicy): Promise<ExpressionWarning[]> {
  const byKind: Array<{ label: string, problems: Map<string, string> }> = []
  for (const t of targets) {
    byKind.push({ label: t.label, problems: checkKind(t, policy) })
    // A kind seen for the first time takes a while: requests are served in between.
    await new Promise(resolve => setImmediate(resolve))
  }
  const warnings: ExpressionWarning[] = []
  for (const { fieldRef } of policy.expressions) {
    const found = byKind.flatMap(k => {
      const p = k.problems.get(fieldRef)
      return p === undefined ? [] : [`${k.label}: ${p}\n`]
    })
    if (found.length > 0) warnings.push({ fieldRef, warning: found.join('\n') })
  }
  return warnings
}
