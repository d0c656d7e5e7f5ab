// Runtime cost: the engine has no cost tracking, so every AST node of a compiled rule is
// instrumented to charge one unit when evaluated (cel-go charges about one per node too), and the
// library functions charge by the size of what they walk. Comprehensions re-evaluate their step
// nodes per element, so nested loops are charged per iteration and a hostile rule is stopped
// mid-loop instead of after it.

/** The reference's per-expression runtime limit (k8s.io/apiserver/pkg/apis/cel: PerCallLimit). */
export const PER_CALL_LIMIT = 1_000_000
/** The reference's budget for all rules of one custom object (RuntimeCELCostBudget). */
export const RUNTIME_COST_BUDGET = 10_000_000

export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded'

export class CostLimitExceeded extends Error {
  constructor () { super(COST_LIMIT_MESSAGE) }
}

export class CostMeter {
  cost = 0
  constructor (readonly limit: number) {}
}

// Evaluation is synchronous (no library function is async), so one meter at a time is in force.
let current: CostMeter | undefined

export function withMeter<T> (meter: CostMeter, run: () => T): T {
  const outer = current
  current = meter
  try { return run() } finally { current = outer }
}

/** Charges `units` to the evaluation in progress; outside one (a plain check) it is free. */
export function charge (units: number): void {
  const m = current
  if (m === undefined) return
  m.cost += units
  if (m.cost > m.limit) throw new CostLimitExceeded()
}

interface MeteredNode {
  op: string
  args: unknown
  meta: { evaluate?: (...a: unknown[]) => unknown, alternate?: unknown, macro?: unknown }
  setMeta: (key: string, value: unknown) => unknown
}

const instrumented = new WeakSet<object>()

function isNode (x: unknown): x is MeteredNode {
  return typeof x === 'object' && x !== null && 'op' in x && 'meta' in x && typeof (x as MeteredNode).setMeta === 'function'
}

/**
 * Wraps the evaluate hook of every node reachable from `root`, macro expansions included. Must run
 * after the type check (which picks some hooks) and before the first evaluation (which caches them).
 */
export function instrument (root: unknown): void {
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const x = stack.pop()
    if (Array.isArray(x)) { stack.push(...x); continue }
    if (typeof x !== 'object' || x === null) continue
    if (!isNode(x)) {
      // comprehension arguments: { iterable, init, step, condition, ... }
      if (Object.getPrototypeOf(x) === Object.prototype) stack.push(...Object.values(x))
      continue
    }
    if (instrumented.has(x)) continue
    instrumented.add(x)
    const meta = x.meta
    if (meta.alternate !== undefined) stack.push(meta.alternate)
    if (meta.macro !== undefined) stack.push(meta.macro)
    const evaluate = meta.evaluate
    if (typeof evaluate === 'function' && meta.alternate === undefined && meta.macro === undefined) {
      x.setMeta('evaluate', x.op === '+'
        // Concatenation is charged by what it builds, so repeated doubling inside map() is stopped
        // (as cel-go charges string and list concatenation by size).
        ? function (this: unknown, ...a: unknown[]) {
          charge(1)
          const out = evaluate.apply(this, a)
          if (typeof out === 'string') charge(Math.ceil(out.length * 0.1))
          else if (Array.isArray(out)) charge(out.length)
          return out
        }
        : function (this: unknown, ...a: unknown[]) {
          charge(1)
          return evaluate.apply(this, a)
        })
    }
    stack.push(x.args)
  }
}
