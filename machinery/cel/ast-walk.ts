// The engine's checked AST is a graph of plain objects and node objects (shared subtrees, macro
// alternates); the passes over it visit each object once, without recursion.

/**
 * Visits every object reachable from `root` once. `visit` names what to descend into; when it
 * returns undefined, a plain object's values are descended into and anything else is a leaf.
 */
export function walkAst (root: unknown, visit: (node: Record<string, unknown>) => readonly unknown[] | undefined): void {
  const stack: unknown[] = [root]
  const seen = new Set<unknown>()
  while (stack.length > 0) {
    const x = stack.pop()
    if (typeof x !== 'object' || x === null || seen.has(x)) continue
    seen.add(x)
    if (Array.isArray(x)) { stack.push(...x); continue }
    const children = visit(x as Record<string, unknown>)
    if (children !== undefined) stack.push(...children)
    else if (Object.getPrototypeOf(x) === Object.prototype) stack.push(...Object.values(x))
  }
}
