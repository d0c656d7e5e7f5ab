// Label and field selectors: parsed once per request, matched against cached attributes.
import { badRequest } from '../resources/status.js'
import { labelValueProblems, qualifiedNameProblems } from '../resources/validation.js'

export type LabelOperator = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt'
export interface LabelRequirement { key: string, op: LabelOperator, values: string[] }
export type LabelSelector = LabelRequirement[]

export interface FieldRequirement { field: string, op: '=' | '!=', value: string }
export type FieldSelector = FieldRequirement[]

const parseError = (detail: string): Error => badRequest(`unable to parse requirement: ${detail}`)

/** Splits at top-level commas (commas inside `in (...)` lists stay); slices, never a string grown a character at a time. */
function splitTopLevel (s: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x28) depth++
    else if (c === 0x29) depth--
    else if (c === 0x2c && depth === 0) { parts.push(s.slice(start, i)); start = i + 1 }
  }
  parts.push(s.slice(start))
  return parts
}

function checkKey (key: string): void {
  const problems = qualifiedNameProblems(key)
  if (problems.length > 0) throw parseError(`<nil>: Invalid value: "${key}": ${problems.join('; ')}`)
}

function checkValue (key: string, value: string): void {
  const problems = labelValueProblems(value)
  if (problems.length > 0) throw parseError(`values[0][${key}]: Invalid value: "${value}": ${problems.join('; ')}`)
}

/**
 * A selector is the conjunction of its requirements, so one written twice is one: a 300 KB
 * selector of a single requirement repeated parses, indexes and matches as that requirement.
 */
export function parseLabelSelector (text: string | undefined): LabelSelector {
  if (text === undefined || text.trim() === '') return []
  const out: LabelSelector = []
  const seen = new Set<string>()
  for (const raw of splitTopLevel(text)) {
    const part = raw.trim()
    if (part === '') throw parseError('found \'\', expected: !, identifier, or \'end of string\'')
    if (seen.has(part)) continue
    seen.add(part)
    let m: RegExpExecArray | null
    if ((m = /^!\s*([^\s=!<>(),]+)$/.exec(part)) !== null) {
      checkKey(m[1]!)
      out.push({ key: m[1]!, op: '!', values: [] })
    } else if ((m = /^([^\s=!<>(),]+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(part)) !== null) {
      checkKey(m[1]!)
      const values = m[3]!.split(',').map(v => v.trim())
      for (const v of values) checkValue(m[1]!, v)
      out.push({ key: m[1]!, op: m[2] as 'in' | 'notin', values })
    } else if ((m = /^([^\s=!<>(),]+)\s*(==|=|!=|>|<)\s*([^\s=!<>(),]*)$/.exec(part)) !== null) {
      checkKey(m[1]!)
      const op = m[2]!
      if (op === '>' || op === '<') {
        if (!/^-?\d+$/.test(m[3]!)) throw parseError(`for 'Gt', 'Lt' operators, the value must be an integer`)
        out.push({ key: m[1]!, op: op === '>' ? 'gt' : 'lt', values: [m[3]!] })
      } else {
        checkValue(m[1]!, m[3]!)
        out.push({ key: m[1]!, op: op === '!=' ? '!=' : '=', values: [m[3]!] })
      }
    } else if ((m = /^([^\s=!<>(),]+)$/.exec(part)) !== null) {
      checkKey(m[1]!)
      out.push({ key: m[1]!, op: 'exists', values: [] })
    } else {
      throw parseError(`found '${part}', expected: !, identifier, or 'end of string'`)
    }
  }
  return out
}

export function matchesLabels (selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const r of selector) {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key)
    const v = has ? labels[r.key]! : undefined
    switch (r.op) {
      case 'exists': if (!has) return false; break
      case '!': if (has) return false; break
      case '=': if (v !== r.values[0]) return false; break
      case '!=': if (v === r.values[0]) return false; break
      case 'in': if (!has || !r.values.includes(v!)) return false; break
      case 'notin': if (has && r.values.includes(v!)) return false; break
      case 'gt': if (!has || !/^-?\d+$/.test(v!) || !(Number(v) > Number(r.values[0]))) return false; break
      case 'lt': if (!has || !/^-?\d+$/.test(v!) || !(Number(v) < Number(r.values[0]))) return false; break
    }
  }
  return true
}

/** Splits a field selector at its unescaped commas (`\,` is a comma inside a value). */
function splitFieldTerms (text: string): string[] {
  const terms: string[] = []
  let start = 0
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (text[i] === ',') { terms.push(text.slice(start, i)); start = i + 1 }
  }
  terms.push(text.slice(start))
  return terms
}

const FIELD_OPERATORS = ['!=', '==', '='] as const

/** A field selector value with its escapes (`\\`, `\,`, `\=`) undone; unescaped `,` and `=` are refused. */
function unescapeFieldValue (value: string): string {
  const pieces: string[] = []
  let start = 0
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!
    if (c === '\\') {
      const next = value[i + 1]
      if (next !== '\\' && next !== ',' && next !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${next ?? ''}`)
      pieces.push(value.slice(start, i), next)
      start = i + 2
      i++
    } else if (c === ',' || c === '=') {
      throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)!}`)
    }
  }
  pieces.push(value.slice(start))
  return pieces.join('')
}

/** Parses a field selector as the reference server does, refusing fields the kind does not support. */
export function parseFieldSelector (text: string | undefined, supported: ReadonlySet<string>): FieldSelector {
  if (text === undefined || text.trim() === '') return []
  const out: FieldSelector = []
  for (const term of splitFieldTerms(text)) {
    if (term === '') continue
    // The first operator in the term splits it: `a==b==c` is field `a`, value `b==c` (refused below).
    let at = -1
    let op: typeof FIELD_OPERATORS[number] | undefined
    for (let i = 0; i < term.length && op === undefined; i++) {
      op = FIELD_OPERATORS.find(o => term.startsWith(o, i))
      at = i
    }
    if (op === undefined) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`)
    const field = term.slice(0, at).trim()
    const value = unescapeFieldValue(term.slice(at + op.length).trim())
    if (!supported.has(field)) throw badRequest(`field label not supported: ${field}`)
    out.push({ field, op: op === '!=' ? '!=' : '=', value })
  }
  return out
}

export function matchesFields (selector: FieldSelector, fields: Record<string, string>): boolean {
  for (const r of selector) {
    const v = fields[r.field] ?? ''
    if (r.op === '=' ? v !== r.value : v === r.value) return false
  }
  return true
}

/** The single metadata.name a selector pins, if any (watch of one object). */
export const pinnedName = (s: FieldSelector): string | undefined => s.find(r => r.field === 'metadata.name' && r.op === '=')?.value

const OPERATORS: Record<string, LabelSelector[number]['op']> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' }

/** A metav1.LabelSelector object as requirements; an empty selector matches everything. */
export function selectorRequirements (s: { matchLabels?: Record<string, string>, matchExpressions?: Array<{ key: string, operator: string, values?: string[] }> }): LabelSelector {
  const out: LabelSelector = Object.entries((s.matchLabels ?? {}) as Record<string, string>).map(([key, v]) => ({ key, op: '=' as const, values: [v] }))
  for (const e of (s.matchExpressions ?? []) as Array<{ key: string, operator: string, values?: string[] }>) {
    const op = OPERATORS[e.operator]
    if (op !== undefined) out.push({ key: e.key, op, values: e.values ?? [] })
  }
  return out
}
