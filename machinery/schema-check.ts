// One pass over a request body against its kind's JSON schema: fills defaults, finds unknown
// fields (dropped, warned or refused by fieldValidation) and type errors, with k8s field paths.
import type { FieldError } from '../resources/status.js'
import { decodeQuantity, QUANTITY_MESSAGE } from '../resources/quantity.js'
import { decodeMicroTime } from '../resources/micro-time.js'
import { badRequest } from '../resources/status.js'

type Schema = Record<string, any>

export interface SchemaCheck {
  errors: FieldError[]
  /** Paths of fields the schema does not know, as `spec.foo`. */
  unknown: string[]
  /** The first value Go's decoder would fail on (a MicroTime that does not parse), in its words. */
  undecodable?: string
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
 * Throws only what the reference's typed decoder refuses before any other check (a value of a
 * type with its own JSON decoding that does not decode): 400, naming the kind it could not
 * be handled as, ahead of unknown fields and field errors, as the decoder stops at it.
 */
export function checkAgainstSchema (schema: Schema, value: unknown, dropUnknown: boolean): SchemaCheck {
  const out: SchemaCheck = { errors: [], unknown: [] }
  walk(schema, value, '', out, dropUnknown)
  if (out.undecodable !== undefined) {
    const kind = String(schema.properties?.kind?.const ?? '')
    const version = String(schema.properties?.apiVersion?.const ?? '').split('/').pop()
    throw badRequest(`${kind} in version "${version ?? ''}" cannot be handled as a ${kind}: ${out.undecodable}`)
  }
  return out
}

/**
 * Quantities and MicroTimes are rewritten in canonical form; returns the value to keep. As
 * the reference's Quantity.UnmarshalJSON, a JSON number is a quantity too.
 */
function walkValue (schema: Schema, value: unknown, path: string, out: SchemaCheck, drop: boolean): unknown {
  const quantity = schema.format === 'quantity' && (typeof value === 'string' || typeof value === 'number')
  if (!quantity) {
    walk(schema, value, path, out, drop)
    if (schema.microTime !== true || typeof value !== 'string') return value
    const decoded = decodeMicroTime(value)
    if (decoded.error !== undefined) {
      out.undecodable ??= decoded.error
      return value
    }
    return decoded.value
  }
  const canonical = decodeQuantity(value)
  if (canonical === undefined) {
    out.errors.push({ type: 'Invalid', field: path, value, detail: QUANTITY_MESSAGE })
    return value
  }
  return canonical
}

// Keys such as `__proto__` are legal map keys: define, never assign.
function setIfChanged (obj: Record<string, unknown>, key: string, value: unknown): void {
  if (obj[key] !== value) Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true })
}

// Per schema object, what every walk over it would otherwise work out again.
const defaults = new WeakMap<Schema, Array<[string, unknown]>>()
const patternSchemas = new WeakMap<Record<string, Schema>, Schema>()

function defaultsOf (schema: Schema): Array<[string, unknown]> {
  let found = defaults.get(schema)
  if (found === undefined) {
    found = Object.entries((schema.properties ?? {}) as Record<string, Schema>)
      .filter(([, child]) => child.default !== undefined).map(([key, child]) => [key, child.default])
    defaults.set(schema, found)
  }
  return found
}

function firstPattern (patterns: Record<string, Schema>): Schema {
  let found = patternSchemas.get(patterns)
  if (found === undefined) {
    found = Object.values(patterns)[0]!
    patternSchemas.set(patterns, found)
  }
  return found
}

function walk (schema: Schema, value: unknown, path: string, out: SchemaCheck, drop: boolean): void {
  if (schema.anyOf !== undefined) {
    const actual = typeOf(value)
    // One loop, no arrays or closures: nullable unions (labels, annotations) are in every object.
    let fitting = 0
    let first: Schema | undefined
    let equal: Schema | undefined
    let allConst = true
    let constMatched = false
    for (const b of schema.anyOf as Schema[]) {
      if (b.type !== undefined && !fits(b.type, actual)) continue
      fitting++
      first ??= b
      if (b.const === undefined) allConst = false
      else if (b.const === value) constMatched = true
      // Unions of literals (`'Active' | 'Terminating'`): the branch the value equals, else the first that fits.
      if (equal === undefined && (b.const === undefined || b.const === value) && (b.enum === undefined || (b.enum as unknown[]).includes(value))) equal = b
    }
    const branch = equal ?? first
    if (fitting > 1 && allConst && !constMatched) {
      const supported = (schema.anyOf as Schema[]).filter(b => b.type === undefined || fits(b.type, actual)).map(b => String(b.const))
      out.errors.push({ type: 'NotSupported', field: path, value, supported })
      return
    }
    if (branch === undefined) {
      const types = (schema.anyOf as Schema[]).map(b => b.type).filter(Boolean)
      out.errors.push({ type: 'Invalid', field: path, value, detail: `must be of type ${[...new Set(types)].join(' or ')}` })
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
      if (schema.items !== undefined) arr.forEach((item, i) => { arr[i] = walkValue(schema.items, item, `${path}[${i}]`, out, drop) })
      return
    }
    case 'object': {
      const obj = value as Record<string, unknown>
      const props: Record<string, Schema> = schema.properties ?? {}
      const patterns: Record<string, Schema> | undefined = schema.patternProperties
      for (const key of Object.keys(obj)) {
        const child = Object.hasOwn(props, key) ? props[key] : undefined
        if (child !== undefined) {
          setIfChanged(obj, key, walkValue(child, obj[key], join(path, key), out, drop))
          continue
        }
        if (patterns !== undefined) {
          const valueSchema = firstPattern(patterns)
          setIfChanged(obj, key, walkValue(valueSchema, obj[key], `${path}[${key}]`, out, drop))
          continue
        }
        if (typeof schema.additionalProperties === 'object') {
          setIfChanged(obj, key, walkValue(schema.additionalProperties, obj[key], `${path}[${key}]`, out, drop))
          continue
        }
        if (schema.additionalProperties === false) {
          out.unknown.push(join(path, key))
          if (drop) delete obj[key]
        }
      }
      for (const [key, value] of defaultsOf(schema)) {
        if (obj[key] === undefined) obj[key] = structuredClone(value)
      }
      for (const key of (schema.required as string[] | undefined) ?? []) {
        if (obj[key] === undefined) out.errors.push({ type: 'Required', field: join(path, key) })
      }
    }
  }
}

/**
 * The first value in `value` that Go's typed decoder would refuse (see `undecodable` above),
 * found without changing anything: a patch handler's check of the object a patch produced.
 */
export function firstUndecodable (schema: Schema, value: unknown): string | undefined {
  if (schema.microTime === true && typeof value === 'string') return decodeMicroTime(value).error
  if (schema.anyOf !== undefined) {
    for (const branch of schema.anyOf as Schema[]) {
      const found = firstUndecodable(branch, value)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (Array.isArray(value)) {
    if (schema.items === undefined) return undefined
    for (const item of value) {
      const found = firstUndecodable(schema.items, item)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const props: Record<string, Schema> = schema.properties ?? {}
  for (const [key, child] of Object.entries(value)) {
    const childSchema = Object.hasOwn(props, key) ? props[key]
      : schema.patternProperties !== undefined ? firstPattern(schema.patternProperties)
        : typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined
    const found = childSchema === undefined ? undefined : firstUndecodable(childSchema, child)
    if (found !== undefined) return found
  }
  return undefined
}
