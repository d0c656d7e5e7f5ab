// The CEL environment of admission expressions (admission policies' validations, variables,
// messages and audit annotations; policies' and webhooks' matchConditions), as the reference's
// admission/plugin/cel: `object`, `oldObject`, `request` and `namespaceObject` always, `params`
// when the policy has a paramKind, `authorizer` where the reference declares it, `variables` in
// a policy with variables. `object`, `oldObject`, `params` are dyn: expressions are checked for
// syntax, declared names and result type at write time, with each variable of the type its own
// expression checks to; what fields the matched kinds have is checked after the write, into the
// policy's status, by typecheck.ts (as the reference's status controller does).
import type { Environment } from '@marcbachmann/cel-js'
import type { ExpressionResult, ExpressionScope } from '../../resources/cel-expressions.js'
import { celEnvironment } from './environment.js'
import { celIssue } from './errors.js'
import { compileExpression, type Compilation, type CompiledExpression, type Evaluation } from './compile.js'
import { AuthorizerSession, CelAuthorizer, registerAuthz } from './library/authz.js'
import { PER_CALL_LIMIT } from './cost.js'
import { constructorFor, registerMutation } from './library/mutation.js'
import { rewriteMessageLiterals } from './message-literals.js'

export { AuthorizerSession, CelAuthorizer }

const environments = new Map<string, Environment>()

/** Mutations' expressions (`object`, `json-patch`) also build `Object{...}` and `JSONPatch{...}` values. */
const isMutation = (result: ExpressionResult): boolean => result === 'object' || result === 'json-patch'

function admissionEnvironment (scope: ExpressionScope, mutation: boolean): Environment {
  const key = `${Number(scope.params)}${Number(scope.authorizer)}${Number(scope.variables ?? false)}${Number(mutation)}`
  let env = environments.get(key)
  if (env === undefined) {
    env = celEnvironment()
    registerAuthz(env)
    if (mutation) registerMutation(env)
    for (const name of ['object', 'oldObject', 'request', 'namespaceObject']) env.registerVariable(name, 'dyn')
    if (scope.params) env.registerVariable('params', 'dyn')
    if (scope.authorizer) env.registerVariable('authorizer', 'kubernetes.authorization.Authorizer')
    if (scope.variables === true) env.registerVariable('variables', 'dyn')
    environments.set(key, env)
  }
  return env
}

const ACCEPTED: Record<ExpressionResult, string[] | undefined> = {
  bool: ['bool'],
  string: ['string'],
  'string-or-null': ['string', 'null'],
  any: undefined,
  object: ['Object'],
  'json-patch': ['list<JSONPatch>']
}
const WRONG_TYPE: Record<ExpressionResult, string> = {
  bool: 'must evaluate to bool',
  string: 'must evaluate to string',
  'string-or-null': 'must evaluate to one of [string null_type]',
  any: '',
  object: 'must evaluate to Object',
  'json-patch': 'must evaluate to list(JSONPatch)'
}

// Policies are compiled at every write and once per stored version by every replica's plugin:
// the same sources come back, so compilations are kept (a bounded number).
const compiled = new Map<string, Compilation>()
const MAX_KEPT = 4096

const VARIABLES_TYPE = 'kubernetes.variables'
const typedEnvironments = new Map<string, Environment>()

/** Whether the scope's variables are typed: a write-time check that names them. */
const typedVariables = (scope: ExpressionScope): scope is ExpressionScope & { declaredVariables: ReadonlyArray<{ name: string, expression: string }> } =>
  scope.variables === true && scope.declaredVariables !== undefined

/**
 * The environment of an expression: `variables` of a type whose fields are the declared
 * variables, each of the type its own expression checks to (dyn when it does not compile).
 */
function expressionEnvironment (scope: ExpressionScope, mutation: boolean): Environment {
  if (!typedVariables(scope)) return admissionEnvironment(scope, mutation)
  const fields: Record<string, string> = {}
  scope.declaredVariables.forEach((v, i) => {
    const c = compileAdmissionExpression(v.expression, 'any', { params: scope.params, authorizer: true, variables: true, declaredVariables: scope.declaredVariables.slice(0, i), patchTypes: mutation })
    fields[v.name] = c.ok ? c.expression.type : 'dyn'
  })
  const key = `${Number(scope.params)}${Number(scope.authorizer)}${Number(mutation)}|${JSON.stringify(fields)}`
  let env = typedEnvironments.get(key)
  if (env === undefined) {
    const base = admissionEnvironment({ ...scope, variables: false }, mutation)
    try {
      env = base.clone().registerType(VARIABLES_TYPE, { ctor: class {}, fields })
    } catch {
      // A checked type the declaration cannot name: the variables are dyn.
      env = base.clone().registerType(VARIABLES_TYPE, { ctor: class {}, fields: Object.fromEntries(Object.keys(fields).map(k => [k, 'dyn'])) })
    }
    env.registerVariable('variables', VARIABLES_TYPE)
    if (typedEnvironments.size >= MAX_KEPT) typedEnvironments.clear()
    typedEnvironments.set(key, env)
  }
  return env
}

/** Parses and checks an admission expression; errors in the reference's words ("compilation failed: ERROR: <input>:1:3: ..."). */
export function compileAdmissionExpression (source: string, result: ExpressionResult, scope: ExpressionScope): Compilation {
  const declared = typedVariables(scope) ? JSON.stringify(scope.declaredVariables) : ''
  const key = `${result}|${Number(scope.params)}${Number(scope.authorizer)}${Number(scope.variables ?? false)}${Number(scope.patchTypes ?? false)}|${declared}|${source}`
  const kept = compiled.get(key)
  if (kept !== undefined) return kept
  let c = isMutation(result) || scope.patchTypes === true ? compileMutation(source, scope) : compileExpression(expressionEnvironment(scope, false), source, 'dyn')
  const accepted = ACCEPTED[result]
  if (c.ok && accepted !== undefined && c.expression.type !== 'dyn' && !accepted.includes(c.expression.type)) c = { ok: false, error: WRONG_TYPE[result] }
  if (compiled.size >= MAX_KEPT) compiled.clear()
  compiled.set(key, c)
  return c
}

/**
 * A mutation's expression, its message literals rewritten for the engine. A `dyn` result (a
 * variable the plugin compiles untyped, a parameter's field) is let through to be checked when
 * evaluated.
 */
function compileMutation (source: string, scope: ExpressionScope): Compilation {
  const rewritten = rewriteMessageLiterals(source, constructorFor)
  if (rewritten.unknownType !== undefined) {
    const { name, at } = rewritten.unknownType
    return { ok: false, error: 'compilation failed: ' + celIssue(source, { message: `undeclared reference to '${name}' (in container '')`, range: { start: at, end: at } }) }
  }
  return compileExpression(expressionEnvironment(scope, true), rewritten.source, 'dyn', { source, origin: rewritten.origin })
}

/** The write-time check resources/cel-expressions.ts is handed: the Invalid detail, or undefined. */
export function admissionExpressionError (source: string, result: ExpressionResult, scope: ExpressionScope): string | undefined {
  const c = compileAdmissionExpression(source, result, scope)
  return c.ok ? undefined : c.error
}

/**
 * Evaluates under the per-expression limit. An authorizer check not yet answered stops the run;
 * it is asked and the expression evaluated again (a check costs no CEL work until answered).
 */
export async function evaluateAdmissionExpression (e: CompiledExpression, vars: Record<string, unknown>, session?: AuthorizerSession, limit = PER_CALL_LIMIT): Promise<Evaluation> {
  for (;;) {
    const r = e.evaluate(vars, limit)
    if (r.ok || session === undefined || !await session.settle()) return r
  }
}

/** The names a source reads as `variables.<name>` (the variables to evaluate before it). */
export function variableReferences (source: string): string[] {
  return [...new Set([...source.matchAll(/\bvariables\s*\.\s*([_a-zA-Z][_a-zA-Z0-9]*)/g)].map(m => m[1]!))]
}
