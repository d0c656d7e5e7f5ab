// x-kubernetes-validations: a rule compiled against the schema node it sits on, with `self`
// and, for transition rules, `oldSelf` typed from that schema (the reference's
// apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go).
import { Optional } from '@marcbachmann/cel-js'
import { PER_CALL_LIMIT, RUNTIME_COST_BUDGET } from './cost.js'
import { compileExpression, type CompiledExpression, type Evaluation } from './compile.js'
import { celEnvironment } from './environment.js'
import type { StructuralSchema } from './schema.js'
import { declareSchemaType, type Converter } from './types.js'

/** One entry of x-kubernetes-validations, as far as compilation reads it. */
export interface ValidationRule {
  rule: string
  messageExpression?: string
  /** the rule also runs on create (and on a newly set value), with `oldSelf` an optional */
  optionalOldSelf?: boolean
}

export interface CompiledRule {
  rule: string
  /** the rule reads `oldSelf`: it runs on updates only, when the old value exists */
  transitionRule: boolean
  optionalOldSelf: boolean
  /** `undefined` with an error: the rule did not compile */
  program?: CompiledExpression
  error?: string
  message?: CompiledExpression
  messageError?: string
  convert: Converter
}

let typeCounter = 0

/**
 * Compiles the rules of one schema node. A fresh type name per compilation, as the reference's
 * generateUniqueSelfTypeName, so no rule can come to depend on it.
 */
export function compileRules (schema: StructuralSchema, rules: Array<string | ValidationRule>, opts: { resourceRoot?: boolean } = {}): CompiledRule[] {
  const env = celEnvironment()
  const self = declareSchemaType(env, schema, `selfType${typeCounter++}`, opts.resourceRoot ?? false)
  env.registerVariable('self', self.name)
  // Cloning freezes `env`: both children see its types and `self`, each with its own `oldSelf`.
  const plain = env.clone().registerVariable('oldSelf', self.name)
  const optional = env.clone().registerVariable('oldSelf', `optional<${self.name}>`)
  return rules.map((entry) => {
    const r = typeof entry === 'string' ? { rule: entry } : entry
    const optionalOldSelf = r.optionalOldSelf === true
    const out: CompiledRule = { rule: r.rule, transitionRule: false, optionalOldSelf, convert: self.convert }
    if (r.rule.trim() === '') return out
    const ruleEnv = optionalOldSelf ? optional : plain
    const c = compileExpression(ruleEnv, r.rule, 'bool')
    if (!c.ok) return { ...out, error: c.error }
    out.program = c.expression
    out.transitionRule = c.expression.references.has('oldSelf')
    if (r.messageExpression !== undefined && r.messageExpression.trim() !== '') {
      const m = compileExpression(ruleEnv, r.messageExpression, 'string')
      if (m.ok) out.message = m.expression
      else out.messageError = m.error === 'must evaluate to string' ? 'messageExpression must evaluate to a string' : `messageExpression ${m.error}`
    }
    return out
  })
}

/** What is left of one request's cost budget, shared by every rule of one object. */
export class RuntimeBudget {
  constructor (public remaining = RUNTIME_COST_BUDGET) {}
}

export const BUDGET_EXHAUSTED_MESSAGE = 'validation failed due to running out of cost budget, no further validation rules will be run'

export type RuleOutcome = Evaluation | { ok: 'skipped' }

/** The variables of one evaluation; undefined when a transition rule has no old value to see. */
export function ruleVariables (rule: CompiledRule, self: unknown, oldSelf: unknown): Record<string, unknown> | undefined {
  const vars: Record<string, unknown> = { self: rule.convert(self) }
  if (rule.optionalOldSelf) vars.oldSelf = oldSelf === undefined ? Optional.none() : Optional.of(rule.convert(oldSelf))
  else if (oldSelf !== undefined) vars.oldSelf = rule.convert(oldSelf)
  else if (rule.transitionRule) return undefined
  return vars
}

/** Evaluates under the per-call limit and what is left of `budget`, charging it. */
export function runWithinBudget (program: CompiledExpression, vars: Record<string, unknown>, budget: RuntimeBudget): Evaluation {
  const limit = Math.min(PER_CALL_LIMIT, budget.remaining)
  const r = program.evaluate(vars, limit)
  budget.remaining -= r.cost
  if (!r.ok && r.costExceeded && limit < PER_CALL_LIMIT) return { ...r, error: BUDGET_EXHAUSTED_MESSAGE }
  return r
}

/**
 * Evaluates a compiled rule on JSON values. A transition rule without an old value is skipped, as
 * the reference does on create, unless it takes `oldSelf` as an optional.
 */
export function evaluateRule (rule: CompiledRule, self: unknown, oldSelf: unknown, budget = new RuntimeBudget()): RuleOutcome {
  if (rule.program === undefined) return { ok: false, error: rule.error ?? 'no program', cost: 0, costExceeded: false }
  const vars = ruleVariables(rule, self, oldSelf)
  if (vars === undefined) return { ok: 'skipped' }
  return runWithinBudget(rule.program, vars, budget)
}

/**
 * The message of a failed rule from its messageExpression; undefined (use the static message) when
 * there is none, it fails, or it yields an empty string, as the reference falls back.
 */
export function evaluateMessage (rule: CompiledRule, self: unknown, oldSelf: unknown, budget = new RuntimeBudget()): string | undefined {
  if (rule.message === undefined) return undefined
  const vars = ruleVariables(rule, self, oldSelf)
  if (vars === undefined) return undefined
  const r = runWithinBudget(rule.message, vars, budget)
  return r.ok && typeof r.value === 'string' && r.value.trim() !== '' ? r.value : undefined
}
