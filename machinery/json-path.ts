// The JSONPath subset a CRD's printer columns and selectable fields are written in (client-go's
// jsonpath inside `{...}`): `.field`, `['field']`, `[n]`, `[*]` and filters
// `[?(@.path == "value")]`. Parsed once per column in one left-to-right pass.

export type Segment =
  | { kind: 'field', name: string }
  | { kind: 'index', index: number }
  | { kind: 'all' }
  | { kind: 'filter', path: Segment[], op: '==' | '!=' | 'exists', value?: unknown }

export class JsonPathError extends Error {}

const IDENT = /[A-Za-z0-9_$-]/

/** Parses `.spec.replicas` (braces optional); throws JsonPathError with where it stopped. */
export function parseJsonPath (source: string): Segment[] {
  let text = source.trim()
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim()
  const p = { text, at: 0 }
  const segments = parseSegments(p, false)
  if (p.at !== text.length) throw new JsonPathError(`unexpected ${JSON.stringify(text.slice(p.at, p.at + 1))} at ${p.at} in ${JSON.stringify(source)}`)
  return segments
}

interface Cursor { text: string, at: number }

function parseSegments (p: Cursor, inFilter: boolean): Segment[] {
  const out: Segment[] = []
  while (p.at < p.text.length) {
    const c = p.text[p.at]!
    if (c === '.') {
      p.at++
      if (p.text[p.at] === '.') throw new JsonPathError('recursive descent (..) is not supported')
      const start = p.at
      while (p.at < p.text.length && IDENT.test(p.text[p.at]!)) p.at++
      if (p.at === start) {
        if (p.at === p.text.length && out.length === 0 && !inFilter) return out
        throw new JsonPathError(`a field name is missing at ${start}`)
      }
      out.push({ kind: 'field', name: p.text.slice(start, p.at) })
    } else if (c === '[') {
      out.push(parseBracket(p))
    } else if (c === '@' && inFilter && out.length === 0 && p.at === 0) {
      p.at++
    } else {
      break
    }
  }
  return out
}

function parseBracket (p: Cursor): Segment {
  p.at++
  const rest = p.text.slice(p.at)
  let m: RegExpExecArray | null
  if (rest.startsWith('*]')) { p.at += 2; return { kind: 'all' } }
  if ((m = /^(-?\d+)\]/.exec(rest)) !== null) { p.at += m[0].length; return { kind: 'index', index: Number(m[1]) } }
  if (rest[0] === "'" || rest[0] === '"') {
    const { value, length } = quoted(rest)
    if (rest[length] !== ']') throw new JsonPathError(`a ] is missing after ${rest.slice(0, length)}`)
    p.at += length + 1
    return { kind: 'field', name: value }
  }
  if (rest.startsWith('?(@')) {
    p.at += 3
    const inner: Cursor = { text: p.text, at: p.at }
    const path = parseSegments(inner, true)
    p.at = inner.at
    while (p.text[p.at] === ' ') p.at++
    let op: '==' | '!=' | 'exists' = 'exists'
    let value: unknown
    const opMatch = /^(==|!=)\s*/.exec(p.text.slice(p.at))
    if (opMatch !== null) {
      op = opMatch[1] as '==' | '!='
      p.at += opMatch[0].length
      const lit = p.text.slice(p.at)
      if (lit[0] === "'" || lit[0] === '"') {
        const q = quoted(lit)
        value = q.value
        p.at += q.length
      } else {
        const n = /^-?\d+(\.\d+)?|^true|^false/.exec(lit)
        if (n === null) throw new JsonPathError(`a literal is missing at ${p.at}`)
        value = n[0] === 'true' ? true : n[0] === 'false' ? false : Number(n[0])
        p.at += n[0].length
      }
      while (p.text[p.at] === ' ') p.at++
    }
    if (!p.text.startsWith(')]', p.at)) throw new JsonPathError(`a )] is missing at ${p.at}`)
    p.at += 2
    return { kind: 'filter', path, op, value }
  }
  throw new JsonPathError(`unsupported bracket at ${p.at - 1}`)
}

function quoted (text: string): { value: string, length: number } {
  const q = text[0]!
  let value = ''
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!
    if (c === '\\' && i + 1 < text.length) { value += text[++i]; continue }
    if (c === q) return { value, length: i + 1 }
    value += c
  }
  throw new JsonPathError('an unterminated string')
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Every value the path reaches in `root`, in document order. */
export function findAll (segments: readonly Segment[], root: unknown): unknown[] {
  let current: unknown[] = [root]
  for (const s of segments) {
    const next: unknown[] = []
    for (const v of current) {
      if (s.kind === 'field') {
        if (isObject(v) && Object.hasOwn(v, s.name)) next.push(v[s.name])
      } else if (s.kind === 'index') {
        if (Array.isArray(v)) {
          const i = s.index < 0 ? v.length + s.index : s.index
          if (i >= 0 && i < v.length) next.push(v[i])
        }
      } else if (s.kind === 'all') {
        if (Array.isArray(v)) next.push(...v)
        else if (isObject(v)) next.push(...Object.values(v))
      } else {
        if (!Array.isArray(v)) continue
        for (const item of v) if (filterMatches(s, item)) next.push(item)
      }
    }
    current = next
  }
  return current
}

function filterMatches (s: Extract<Segment, { kind: 'filter' }>, item: unknown): boolean {
  const found = findAll(s.path, item)
  if (s.op === 'exists') return found.length > 0
  const equal = found.length > 0 && found[0] === s.value
  return s.op === '==' ? equal : !equal
}

/** The first value the path reaches, as a printer column shows one; undefined when none. */
export const findFirst = (segments: readonly Segment[], root: unknown): unknown => findAll(segments, root)[0]
