// Compile errors in cel-go's shape, which the reference puts after "compilation failed: ":
//   ERROR: <input>:1:6: undeclared reference to 'x'
//    | self.x > 1
//    | .....^

import { OPTIONAL_FIELD } from './message-literals.js'

interface EngineError {
  summary?: string
  message: string
  range?: { start: number, end: number }
  /** the node the checker refused: an operator's has its operands as args */
  node?: { op?: string, args?: Array<{ end?: number }> }
}

const OPERATORS: Record<string, string> = { '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_', '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_', '==': '_==_', '!=': '_!=_', in: '@in' }

// The engine's wording, reworded as cel-go's where users (and tests written for the reference) read it.
function celGoWording (summary: string): string {
  let m = /^Unknown variable: (.*)$/.exec(summary)
  if (m !== null) return `undeclared reference to '${m[1]}' (in container '')`
  m = /^No such key: (.*)$/.exec(summary)
  if (m !== null) return `undefined field '${m[1]}'`
  // Type names may hold spaces (`map<string, int>`); cel-go writes their parameters in parentheses.
  m = /^no such overload: (.+?) (\+|-|\*|\/|%|<=|>=|<|>|==|!=|in) (.+)$/.exec(summary)
  const celGoType = (t: string): string => t.replaceAll('<', '(').replaceAll('>', ')')
  if (m !== null && OPERATORS[m[2]] !== undefined) return `found no matching overload for '${OPERATORS[m[2]]}' applied to '(${celGoType(m[1])}, ${celGoType(m[3])})'`
  return summary
}

export function celIssue (input: string, err: unknown): string {
  const e = err as EngineError
  let summary = celGoWording(e.summary ?? e.message.split('\n')[0])
  let start = e.range?.start
  // A `?field:` given no optional (message-literals.ts wraps its value), as cel-go's checker words it.
  const optionalField = new RegExp(`^found no matching overload for '${OPTIONAL_FIELD}\\((.*)\\)'$`).exec(summary)
  if (optionalField !== null && start !== undefined) {
    const field = /^\?\s*([A-Za-z_][A-Za-z0-9_]*)\s*/.exec(input.slice(start))
    summary = `expected type of field '${field?.[1] ?? ''}' is 'optional_type(dyn)' but provided type is '${optionalField[1]}'`
    // cel-go places a field initializer at its colon.
    start += field?.[0].length ?? 0
  }
  if (start === undefined || start < 0) return `ERROR: <input>:-1:0: ${summary}`
  // cel-go places a field selection at its dot, the engine at the field's name.
  if (summary.startsWith('undefined field ')) {
    let dot = start - 1
    while (dot > 0 && /\s/.test(input[dot]!)) dot--
    if (input[dot] === '.') start = dot
  }
  // And an operator's missing overload at the operator, the engine at the left operand.
  const left = e.node?.args?.[0]?.end
  if (/^found no matching overload for '(_|@in')/.test(summary) && e.node?.op !== undefined && typeof left === 'number') {
    let at = left
    while (at < input.length && /[\s)]/.test(input[at]!)) at++
    if (input.startsWith(e.node.op, at)) start = at
  }
  const before = input.slice(0, start).split('\n')
  const line = before.length
  const col = before[before.length - 1].length
  const text = input.split('\n')[line - 1]
  return `ERROR: <input>:${line}:${col + 1}: ${summary}\n | ${text}\n | ${'.'.repeat(col)}^`
}
