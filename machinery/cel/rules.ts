// x-kubernetes-validations: a rule compiled against the schema node it sits on, with `self`
// and, for transition rules, `oldSelf` typed from that schema (the reference's
// apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go).
import { PER_CALL_LIMIT, RUNTIME_COST_BUDGET } from './cost.js'
import { compileExpression, type CompiledExpression, type Evaluation } from './compile.js'
import { celEnvironment } from './environment.js'
import type { StructuralSchema } from './schema.js'
import { declareSchemaType, type Converter } from './types.js'

export interface CompiledRule {
  rule: string
  /** the rule reads `oldSelf`: it runs on updates only, when the old value exists */
  transitionRule: boolean
  /** `undefined` with an error: the rule did not compile */
  program?: CompiledExpression
  error?: string
  convert: Converter
}

let typeCounter = 0

/**
 * Compiles the rules of one schema node. A fresh type name per compilation, as the reference's
 * generateUniqueSelfTypeName, so no rule can come to depend on it.
 */
export function compileRules (schema: StructuralSchema, rules: string[], opts: { resourceRoot?: boolean } = {}): CompiledRule[] {
  const env = celEnvironment()
  const self = declareSchemaType(env, schema, `selfType${typeCounter++}`, opts.resourceRoot ?? false)
  env.registerVariable('self', self.name).registerVariable('oldSelf', self.name)
  return rules.map((rule) => {
    if (rule.trim() === '') return { rule, transitionRule: false, convert: self.convert }
    const c = compileExpression(env, rule, 'bool')
    if (!c.ok) return { rule, transitionRule: false, error: c.error, convert: self.convert }
    return { rule, transitionRule: c.expression.references.has('oldSelf'), program: c.expression, convert: self.convert }
  })
}

/** What is left of one request's cost budget, shared by every rule of one object. */
export class RuntimeBudget {
  constructor (public remaining = RUNTIME_COST_BUDGET) {}
}

export const BUDGET_EXHAUSTED_MESSAGE = 'validation failed due to running out of cost budget, no further validation rules will be run'

export type RuleOutcome = Evaluation | { ok: 'skipped' }

/**
 * Evaluates a compiled rule on JSON values. A transition rule without an old value is skipped, as
 * the reference does on create.
 */
export function evaluateRule (rule: CompiledRule, self: unknown, oldSelf: unknown, budget = new RuntimeBudget()): RuleOutcome {
  if (rule.program === undefined) return { ok: false, error: rule.error ?? 'no program', cost: 0, costExceeded: false }
  if (rule.transitionRule && oldSelf === undefined) return { ok: 'skipped' }
  const vars: Record<string, unknown> = { self: rule.convert(self) }
  if (oldSelf !== undefined) vars.oldSelf = rule.convert(oldSelf)
  const limit = Math.min(PER_CALL_LIMIT, budget.remaining)
  const r = rule.program.evaluate(vars, limit)
  budget.remaining -= r.cost
  if (!r.ok && r.costExceeded && limit < PER_CALL_LIMIT) return { ...r, error: BUDGET_EXHAUSTED_MESSAGE }
  return r
}
