// Evaluates a standalone expression in the rules' environment, with `self` as dyn.
import assert from 'node:assert/strict'
import { compileExpression } from '../../machinery/cel/compile.js'
import { celEnvironment } from '../../machinery/cel/environment.js'
import { convertDyn } from '../../machinery/cel/types.js'

export function celEval (expr: string, self: unknown = null): unknown {
  const env = celEnvironment().registerVariable('self', 'dyn')
  const c = compileExpression(env, expr, 'dyn')
  if (!c.ok) throw new Error(c.error)
  const r = c.expression.evaluate({ self: convertDyn(self) })
  if (!r.ok) throw new Error(r.error)
  return r.value
}

/** Table rows: every expression must evaluate to true. */
export function assertAllTrue (exprs: string[]): void {
  for (const e of exprs) assert.equal(celEval(e), true, e)
}

export function assertEvalError (expr: string, pattern: RegExp): void {
  assert.throws(() => celEval(expr), pattern, expr)
}
