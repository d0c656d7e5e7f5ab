// One ValidatingAdmissionPolicy compiled (once per stored version) and evaluated for one
// binding and parameter, as the reference's validating.validator: match conditions (a false one
// skips the policy, errors follow failurePolicy), validations into decisions with their
// messages (messageExpression, message, or "failed expression: ..."), audit annotations, and
// variables evaluated once, when an expression first reads them. Every expression runs under
// the per-call cost limit and all of one evaluation under the runtime budget.
import type { AnyObject } from '../../resources/define.js'
import type { StatusReason } from '../../resources/status.js'
import type { CompiledExpression, Evaluation } from '../../machinery/cel/compile.js'
import { RUNTIME_COST_BUDGET } from '../../machinery/cel/cost.js'
import { compileAdmissionExpression, evaluateAdmissionExpression, variableReferences, type AuthorizerSession } from '../../machinery/cel/admission.js'
import type { ExpressionResult, ExpressionScope } from '../../resources/cel-expressions.js'

export interface Expression {
  source: string
  program?: CompiledExpression
  /** a stored expression that no longer compiles */
  error?: string
  variables: string[]
}

/** What every admission policy has, validating or mutating: the parts the evaluator runs before its own. */
export interface PolicyExpressions {
  name: string
  failurePolicy: 'Fail' | 'Ignore'
  paramKind?: AnyObject
  matchConstraints: AnyObject | undefined
  matchConditions: Expression[]
  variables: Array<Expression & { name: string }>
}

export interface CompiledPolicy extends PolicyExpressions {
  validations: Array<{ expression: Expression, message?: string, messageExpression?: Expression, reason?: StatusReason }>
  auditAnnotations: Array<{ key: string, value: Expression }>
}

export function expression (source: string, result: ExpressionResult, scope: ExpressionScope): Expression {
  const c = compileAdmissionExpression(source, result, scope)
  const variables = scope.variables === true ? variableReferences(source) : []
  return c.ok ? { source, program: c.expression, variables } : { source, error: c.error, variables }
}

/** A stored policy's name, failure policy, match constraints, match conditions and variables, compiled; `scope` is what its own expressions may read. */
export function compilePolicyExpressions (p: AnyObject, patchTypes = false): { common: PolicyExpressions, scope: ExpressionScope } {
  const spec: AnyObject = p.spec ?? {}
  const params = spec.paramKind !== undefined && spec.paramKind !== null
  const scope: ExpressionScope = { params, authorizer: true, variables: (spec.variables ?? []).length > 0 }
  return {
    scope,
    common: {
      name: String(p.metadata?.name ?? ''),
      failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
      ...(params ? { paramKind: spec.paramKind } : {}),
      matchConstraints: spec.matchConstraints ?? undefined,
      matchConditions: (spec.matchConditions as AnyObject[] | undefined ?? []).map(c => expression(String(c.expression ?? ''), 'bool', { params, authorizer: true })),
      variables: (spec.variables as AnyObject[] | undefined ?? []).map(v => ({ name: String(v.name ?? ''), ...expression(String(v.expression ?? ''), 'any', patchTypes ? { ...scope, patchTypes } : scope) }))
    }
  }
}

export function compilePolicy (p: AnyObject): CompiledPolicy {
  const spec: AnyObject = p.spec ?? {}
  const { common, scope } = compilePolicyExpressions(p)
  const { params, variables: hasVariables } = scope
  return {
    ...common,
    validations: (spec.validations as AnyObject[] | undefined ?? []).map(v => ({
      expression: expression(String(v.expression ?? ''), 'bool', scope),
      ...(typeof v.message === 'string' && v.message.trim() !== '' ? { message: v.message } : {}),
      ...(typeof v.messageExpression === 'string' && v.messageExpression.trim() !== '' ? { messageExpression: expression(v.messageExpression, 'string', { params, authorizer: false, variables: hasVariables }) } : {}),
      ...(typeof v.reason === 'string' && v.reason !== '' ? { reason: v.reason as StatusReason } : {})
    })),
    auditAnnotations: (spec.auditAnnotations as AnyObject[] | undefined ?? []).map(a => ({ key: String(a.key ?? ''), value: expression(String(a.valueExpression ?? '').trim(), 'string-or-null', scope) }))
  }
}

export type DecisionAction = 'admit' | 'deny'
export interface Decision {
  action: DecisionAction
  /** an evaluation error (the metric's invalid_error) rather than a false expression */
  errored: boolean
  message: string
  reason?: StatusReason
  /** the validation's index (the Audit annotation's expressionIndex) */
  index: number
  seconds: number
}

export interface PolicyResult {
  decisions: Decision[]
  auditAnnotations: Array<{ key: string, value: string }>
}

export const BUDGET_EXCEEDED = 'validation failed due to running out of cost budget, no further validation rules will be run'

/** The values of one evaluation: the request's, the parameter, and the variables as they get evaluated. */
export interface Activation {
  vars: Record<string, unknown>
  session?: AuthorizerSession
}

/**
 * One evaluation of a policy's expressions for one binding and parameter: match conditions,
 * variables (each evaluated once, when first read) and the policy's own expressions, all under
 * one runtime budget.
 */
export class PolicyEvaluator<P extends PolicyExpressions = PolicyExpressions> {
  private remaining = RUNTIME_COST_BUDGET
  private readonly variableValues = new Map<string, unknown>()
  private readonly variableErrors = new Map<string, string>()
  private readonly vars: Record<string, unknown>

  constructor (protected readonly policy: P, private readonly activation: Activation) {
    this.vars = policy.variables.length > 0 ? { ...activation.vars, variables: this.variableValues } : activation.vars
  }

  /** An expression's evaluation; its error in the reference's words ("expression '...' resulted in error: ..."). */
  async run (e: Expression): Promise<Evaluation & { budgetExceeded?: boolean }> {
    if (e.program === undefined) return { ok: false, error: `compilation error: ${e.error ?? ''}`, cost: 0, costExceeded: false }
    for (const name of e.variables) {
      await this.variable(name, new Set())
      const failed = this.variableErrors.get(name)
      if (failed !== undefined) return { ok: false, error: `expression '${e.source}' resulted in error: ${failed}`, cost: 0, costExceeded: false }
    }
    const r = await evaluateAdmissionExpression(e.program, this.vars, this.activation.session)
    this.remaining -= r.cost
    if (this.remaining < 0) return { ok: false, error: BUDGET_EXCEEDED, cost: r.cost, costExceeded: true, budgetExceeded: true }
    return r.ok ? r : { ...r, error: `expression '${e.source}' resulted in error: ${r.error}` }
  }

  private async variable (name: string, visiting: Set<string>): Promise<void> {
    if (this.variableValues.has(name) || this.variableErrors.has(name) || visiting.has(name)) return
    const v = this.policy.variables.find(x => x.name === name)
    if (v === undefined) return
    visiting.add(name)
    for (const dep of v.variables) await this.variable(dep, visiting)
    if (v.program === undefined) { this.variableErrors.set(name, `composited variable "${name}" fails to compile: ${v.error ?? ''}`); return }
    const failed = v.variables.map(d => this.variableErrors.get(d)).find(x => x !== undefined)
    if (failed !== undefined) { this.variableErrors.set(name, failed); return }
    const r = await evaluateAdmissionExpression(v.program, this.vars, this.activation.session)
    this.remaining -= r.cost
    if (r.ok) this.variableValues.set(name, r.value)
    else this.variableErrors.set(name, r.error)
  }

  /** Whether every match condition holds; a false one wins over errors (MatchResult). */
  async matches (): Promise<{ matches: boolean, error?: string }> {
    const errors: string[] = []
    for (const c of this.policy.matchConditions) {
      const r = await this.run(c)
      if (!r.ok) { errors.push(r.error); continue }
      if (r.value !== true) return { matches: false }
    }
    if (errors.length > 0) return { matches: false, error: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` }
    return { matches: true }
  }

}

class Evaluator extends PolicyEvaluator<CompiledPolicy> {
  async validate (): Promise<PolicyResult> {
    const onError: DecisionAction = this.policy.failurePolicy === 'Ignore' ? 'admit' : 'deny'
    const m = await this.matches()
    if (m.error !== undefined) return { decisions: [{ action: onError, errored: true, message: m.error, index: 0, seconds: 0 }], auditAnnotations: [] }
    if (!m.matches) return { decisions: [], auditAnnotations: [] }
    const decisions: Decision[] = []
    for (const [index, v] of this.policy.validations.entries()) {
      const start = performance.now()
      const r = await this.run(v.expression)
      const seconds = (performance.now() - start) / 1000
      if (!r.ok) {
        if (r.budgetExceeded === true) return { decisions: [{ action: onError, errored: true, message: BUDGET_EXCEEDED, index, seconds }], auditAnnotations: [] }
        decisions.push({ action: onError, errored: true, message: r.error, index, seconds })
      } else if (r.value !== true) {
        decisions.push({ action: 'deny', errored: false, message: await this.failureMessage(v), reason: v.reason ?? 'Invalid', index, seconds })
      } else {
        decisions.push({ action: 'admit', errored: false, message: '', index, seconds })
      }
    }
    const auditAnnotations: PolicyResult['auditAnnotations'] = []
    for (const a of this.policy.auditAnnotations) {
      const r = await this.run(a.value)
      if (!r.ok) {
        if (onError === 'deny') decisions.push({ action: 'deny', errored: true, message: r.error, index: -1, seconds: 0 })
        continue
      }
      if (typeof r.value === 'string') auditAnnotations.push({ key: a.key, value: r.value })
    }
    return { decisions, auditAnnotations }
  }

  /** messageExpression's string when it gives a usable one, else message, else the expression itself. */
  private async failureMessage (v: CompiledPolicy['validations'][number]): Promise<string> {
    if (v.messageExpression !== undefined) {
      const r = await this.run(v.messageExpression)
      if (r.ok && typeof r.value === 'string' && r.value.trim() !== '' && !/[\n\r]/.test(r.value)) return r.value.trim()
    }
    return v.message ?? `failed expression: ${v.expression.source.trim()}`
  }
}

export function evaluatePolicy (policy: CompiledPolicy, activation: Activation): Promise<PolicyResult> {
  return new Evaluator(policy, activation).validate()
}
