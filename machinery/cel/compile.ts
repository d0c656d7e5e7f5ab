// Compiling a CEL expression once and evaluating it many times under a cost limit.
import type { Environment } from '@marcbachmann/cel-js'
import { CostLimitExceeded, CostMeter, PER_CALL_LIMIT, instrument, withMeter } from './cost.js'
import { celIssue } from './errors.js'
import { useRe2Matches } from './library/regex.js'
import { walkAst } from './ast-walk.js'

export type CelResultType = 'bool' | 'string' | 'dyn'

export type Evaluation =
  | { ok: true, value: unknown, cost: number }
  | { ok: false, error: string, cost: number, costExceeded: boolean }

export interface CompiledExpression {
  /** the checked AST, with its nodes' types, for the write-time cost estimate */
  ast: unknown
  /** the checked result type as the engine spells it (`bool`, `string`, `dyn`...) */
  type: string
  /** the identifiers the expression reads (to tell transition rules by `oldSelf`) */
  references: Set<string>
  /** Evaluates with already converted variable values; never throws. */
  evaluate: (vars: Record<string, unknown>, limit?: number) => Evaluation
}

export type Compilation = { ok: true, expression: CompiledExpression } | { ok: false, error: string }

function identifiers (root: unknown): Set<string> {
  const out = new Set<string>()
  walkAst(root, (node) => {
    if (node.op === 'id' && typeof node.args === 'string') {
      out.add(node.args)
      return []
    }
    return 'args' in node ? [node.args] : undefined
  })
  return out
}

/** What the user wrote when `source` is a rewriting of it: their text and where each offset of `source` came from. */
export interface WrittenSource { source: string, origin: number[] }

function atWritten (err: unknown, origin: number[]): unknown {
  const e = err as { summary?: string, message: string, range?: { start: number, end: number } }
  if (e?.range === undefined) return err
  return { summary: e.summary, message: e.message, range: { start: origin[e.range.start] ?? e.range.start, end: origin[e.range.end] ?? e.range.end } }
}

/**
 * Parses and type-checks `source` in `env`. Errors read as the reference's: "compilation failed:
 * ERROR: <input>:line:col: ..." for syntax and type errors, and its own sentence for a wrong result type.
 */
export function compileExpression (env: Environment, source: string, resultType: CelResultType, written?: WrittenSource): Compilation {
  const issue = (err: unknown): string => written === undefined ? celIssue(source, err) : celIssue(written.source, atWritten(err, written.origin))
  let parsed
  try {
    parsed = env.parse(source)
  } catch (err) {
    return { ok: false, error: 'compilation failed: ' + issue(err) }
  }
  const checked = parsed.check()
  if (!checked.valid) return { ok: false, error: 'compilation failed: ' + issue(checked.error) }
  if (resultType !== 'dyn' && checked.type !== resultType && checked.type !== 'dyn') {
    return { ok: false, error: resultType === 'bool' ? 'cel expression must evaluate to a bool' : 'must evaluate to string' }
  }
  useRe2Matches(parsed.ast)
  instrument(parsed.ast)
  const run = parsed
  return {
    ok: true,
    expression: {
      ast: parsed.ast,
      type: String(checked.type ?? 'dyn'),
      references: identifiers(parsed.ast),
      evaluate (vars, limit = PER_CALL_LIMIT) {
        const meter = new CostMeter(limit)
        try {
          const value: unknown = withMeter(meter, () => run(vars))
          return { ok: true, value, cost: meter.cost }
        } catch (err) {
          if (err instanceof CostLimitExceeded) return { ok: false, error: err.message, cost: meter.cost, costExceeded: true }
          const e = err as { summary?: string, message?: string }
          return { ok: false, error: e.summary ?? String(e.message ?? err), cost: meter.cost, costExceeded: false }
        }
      }
    }
  }
}
