// Label and field selectors: parsed once per request, matched against cached attributes.
import { badRequest } from '../../resources/status.js'
import { labelValueProblems, qualifiedNameProblems } from '../../resources/validation.js'

export type LabelOperator = 'exists' | '!' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt'
export interface LabelRequirement { key: string, op: LabelOperator, values: string[] }
export type LabelSelector = LabelRequirement[]

export interface FieldRequirement { field: string, op: '=' | '!=', value: string }
export type FieldSelector = FieldRequirement[]

const parseError = (detail: string): Error => badRequest(`unable to parse requirement: ${detail}`)

/** Splits at top-level commas (commas inside `in (...)` lists stay). */
function splitTopLevel (s: string): string[] {
  const parts: string[] = []
  let depth = 0
  let cur = ''
  for (const c of s) {
    if (c === '(') depth++
    if (c === ')') depth--
    if (c === ',' && depth === 0) { parts.push(cur); cur = '' } else cur += c
  }
  parts.push(cur)
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

export function parseLabelSelector (text: string | undefined): LabelSelector {
  if (text === undefined || text.trim() === '') return []
  const out: LabelSelector = []
  for (const raw of splitTopLevel(text)) {
    const part = raw.trim()
    if (part === '') throw parseError('found \'\', expected: !, identifier, or \'end of string\'')
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

/** Parses a field selector, refusing fields the kind does not support. */
export function parseFieldSelector (text: string | undefined, supported: ReadonlySet<string>): FieldSelector {
  if (text === undefined || text.trim() === '') return []
  const out: FieldSelector = []
  for (const raw of text.split(',')) {
    const part = raw.trim()
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part)
    if (m === null) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`)
    const field = m[1]!.trim()
    if (!supported.has(field)) throw badRequest(`field label not supported: ${field}`)
    out.push({ field, op: m[2] === '!=' ? '!=' : '=', value: m[3]!.trim() })
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
