// A rule's `fieldPath`: a JSON path of field and map-key steps (`.spec.a`, `['x.y']`) below the
// node the rule sits on, checked against the schema as the reference's ValidFieldPath and
// rendered as field.Path renders (`spec.a`, `labels[x.y]`).
import type { StructuralSchema } from './schema.js'

export type FieldPathCheck = { ok: true, path: string } | { ok: false, error: string }

// The escapes a single-quoted step may hold.
const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' }

function unquote (s: string): string | undefined {
  let bad = false
  const out = s.replace(/\\./g, (m) => {
    const c = ESCAPES[m[1]]
    if (c === undefined) bad = true
    return c ?? ''
  })
  return bad ? undefined : out
}

/** Splits into '.', '[', ']' and the text between them; a quoted step keeps its delimiters. */
function tokens (path: string): string[] {
  const out: string[] = []
  let i = 0
  while (i < path.length) {
    const c = path[i]
    if (c === "'") {
      let j = i + 1
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++
      out.push(path.slice(i, j + 1))
      i = j + 1
    } else if (c === '.' || c === '[' || c === ']') {
      out.push(c)
      i++
    } else {
      let j = i
      while (j < path.length && !'.[]'.includes(path[j])) j++
      out.push(path.slice(i, j))
      i = j
    }
  }
  return out
}

export function checkFieldPath (jsonPath: string, schema: StructuralSchema): FieldPathCheck {
  let rendered = ''
  let node: StructuralSchema | undefined = schema
  const step = (name: string): string | undefined => {
    if (node?.properties !== undefined) {
      if (!Object.hasOwn(node.properties, name)) return 'does not refer to a valid field'
      rendered = rendered === '' ? name : `${rendered}.${name}`
      node = node.properties[name]
      return undefined
    }
    if (typeof node?.additionalProperties === 'object') {
      rendered = `${rendered}[${name}]`
      node = node.additionalProperties
      return undefined
    }
    return 'does not refer to a valid field'
  }
  const ts = tokens(jsonPath)
  for (let i = 0; i < ts.length; i++) {
    const t = ts[i]
    if (t === '[') {
      const quoted = ts[++i]
      if (quoted === undefined) return { ok: false, error: 'unexpected end of JSON path' }
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return { ok: false, error: `expected single quoted string but got ${quoted}` }
      const name = unquote(quoted.slice(1, -1))
      if (name === undefined) return { ok: false, error: 'invalid string literal' }
      const err = step(name)
      if (err !== undefined) return { ok: false, error: err }
      const close = ts[++i]
      if (close === undefined) return { ok: false, error: 'unexpected end of JSON path' }
      if (close !== ']') return { ok: false, error: `expected ] but got ${close}` }
    } else if (t === '.') {
      const name = ts[++i]
      if (name === undefined) return { ok: false, error: 'unexpected end of JSON path' }
      const err = step(name)
      if (err !== undefined) return { ok: false, error: err }
    } else {
      return { ok: false, error: `expected [ or . but got: ${t}` }
    }
  }
  return { ok: true, path: rendered }
}
