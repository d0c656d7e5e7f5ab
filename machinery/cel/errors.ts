// Compile errors in cel-go's shape, which the reference puts after "compilation failed: ":
//   ERROR: <input>:1:6: undeclared reference to 'x'
//    | self.x > 1
//    | .....^

interface EngineError { summary?: string, message: string, range?: { start: number, end: number } }

export function celIssue (input: string, err: unknown): string {
  const e = err as EngineError
  const summary = e.summary ?? e.message.split('\n')[0]
  const start = e.range?.start
  if (start === undefined || start < 0) return `ERROR: <input>:-1:0: ${summary}`
  const before = input.slice(0, start).split('\n')
  const line = before.length
  const col = before[before.length - 1].length
  const text = input.split('\n')[line - 1]
  return `ERROR: <input>:${line}:${col + 1}: ${summary}\n | ${text}\n | ${'.'.repeat(col)}^`
}
