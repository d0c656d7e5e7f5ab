// One pass over a request body against its kind's JSON schema: fills defaults, finds unknown
// fields (dropped, warned or refused by fieldValidation) and type errors, with k8s field paths.
import type { FieldError } from '../errors.js'

type Schema = Record<string, any>

export interface SchemaCheck {
  errors: FieldError[]
  /** Paths of fields the schema does not know, as `spec.foo`. */
  unknown: string[]
}

const typeOf = (v: unknown): string => {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  return typeof v
}

const fits = (schemaType: string, actual: string): boolean =>
  schemaType === actual || (schemaType === 'number' && actual === 'integer')

const join = (path: string, key: string): string => path === '' ? key : `${path}.${key}`

/**
 * Checks `value` in place: defaults are filled; unknown fields are removed when `dropUnknown`.
 * Never throws for bad input.
 */
export function checkAgainstSchema (schema: Schema, value: unknown, dropUnknown: boolean): SchemaCheck {
  const out: SchemaCheck = { errors: [], unknown: [] }
  walk(schema, value, '', out, dropUnknown)
  return out
}

function walk (schema: Schema, value: unknown, path: string, out: SchemaCheck, drop: boolean): void {
  if (schema.anyOf !== undefined) {
    const actual = typeOf(value)
    const candidates = (schema.anyOf as Schema[]).filter(b => b.type === undefined || fits(b.type, actual))
    // The first branch the value satisfies wins; a trial walk on a copy keeps failed tries harmless.
    const branch = candidates.find(b => {
      const trial: SchemaCheck = { errors: [], unknown: [] }
      walk(b, structuredClone(value), path, trial, false)
      return trial.errors.length === 0
    }) ?? candidates[0]
    if (branch === undefined) {
      const types = (schema.anyOf as Schema[]).map(b => b.type).filter(Boolean)
      out.errors.push({ type: 'Invalid', field: path, value, detail: `must be of type ${[...new Set(types)].join(' or ')}` })
      return
    }
    if (candidates.length > 1 && candidates.every(b => b.const !== undefined)) {
      if (!candidates.some(b => b.const === value)) out.errors.push({ type: 'NotSupported', field: path, value, supported: candidates.map(b => String(b.const)) })
      return
    }
    walk(branch, value, path, out, drop)
    return
  }
  if (schema.type === undefined) return
  const actual = typeOf(value)
  if (!fits(schema.type, actual)) {
    out.errors.push({ type: 'Invalid', field: path, value: actual === 'object' || actual === 'array' ? undefined : value, detail: `must be of type ${schema.type}` })
    return
  }
  if (schema.const !== undefined && value !== schema.const) {
    out.errors.push({ type: 'NotSupported', field: path, value, supported: [String(schema.const)] })
    return
  }
  if (schema.enum !== undefined && !(schema.enum as unknown[]).includes(value)) {
    out.errors.push({ type: 'NotSupported', field: path, value, supported: (schema.enum as unknown[]).map(String) })
    return
  }
  switch (schema.type) {
    case 'integer':
    case 'number': {
      const n = value as number
      if (schema.minimum !== undefined && n < schema.minimum) out.errors.push({ type: 'Invalid', field: path, value, detail: `must be greater than or equal to ${schema.minimum}` })
      if (schema.maximum !== undefined && n > schema.maximum) out.errors.push({ type: 'Invalid', field: path, value, detail: `must be less than or equal to ${schema.maximum}` })
      return
    }
    case 'array': {
      const arr = value as unknown[]
      if (schema.items !== undefined) arr.forEach((item, i) => walk(schema.items, item, `${path}[${i}]`, out, drop))
      return
    }
    case 'object': {
      const obj = value as Record<string, unknown>
      const props: Record<string, Schema> = schema.properties ?? {}
      const patterns: Record<string, Schema> | undefined = schema.patternProperties
      for (const key of Object.keys(obj)) {
        const child = props[key]
        if (child !== undefined) {
          walk(child, obj[key], join(path, key), out, drop)
          continue
        }
        if (patterns !== undefined) {
          const valueSchema = Object.values(patterns)[0]!
          walk(valueSchema, obj[key], `${path}[${key}]`, out, drop)
          continue
        }
        if (typeof schema.additionalProperties === 'object') {
          walk(schema.additionalProperties, obj[key], `${path}[${key}]`, out, drop)
          continue
        }
        if (schema.additionalProperties === false) {
          out.unknown.push(join(path, key))
          if (drop) delete obj[key]
        }
      }
      for (const [key, child] of Object.entries(props)) {
        if (obj[key] === undefined && child.default !== undefined) obj[key] = structuredClone(child.default)
      }
      for (const key of (schema.required as string[] | undefined) ?? []) {
        if (obj[key] === undefined) out.errors.push({ type: 'Required', field: join(path, key) })
      }
    }
  }
}
