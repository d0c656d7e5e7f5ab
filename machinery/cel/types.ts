// The CEL types of a structural schema, as the reference's schema/cel/model: an object with
// properties is a type with declared fields, additionalProperties a map, arrays lists,
// int-or-string and preserve-unknown-fields dyn. Values are converted to match: integers as
// bigint, typed objects as instances of the type's class.
import { Environment } from '@marcbachmann/cel-js'
import { escapeFieldName, type StructuralSchema } from './schema.js'

/** Converts a JSON value to the CEL value of one schema node. */
export type Converter = (v: unknown) => unknown

export interface DeclaredType {
  /** the type as the engine spells it in declarations */
  name: string
  convert: Converter
}

const identity: Converter = (v) => v

/** JSON of unknown shape: whole numbers become CEL ints, objects CEL maps. */
export const convertDyn: Converter = (v) => {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v
  if (Array.isArray(v)) return v.map(convertDyn)
  if (typeof v === 'object' && v !== null) {
    const m = new Map<string, unknown>()
    for (const [k, x] of Object.entries(v)) m.set(k, convertDyn(x))
    return m
  }
  return v
}

// A fresh class per declared object type: the engine tells typed values apart by constructor.
const toTimestamp: Converter = (v) => {
  if (typeof v !== 'string') return v
  const d = new Date(v)
  return Number.isNaN(d.getTime()) ? v : d
}

const UNIT_NANOS: Record<string, bigint> = { ns: 1n, us: 1000n, µs: 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n }

type DurationClass = new (seconds: bigint, nanos: number) => unknown
let durationClass: DurationClass | undefined
// The engine does not export its Duration class; one of its own values names it.
const makeDuration = (seconds: bigint, nanos: number): unknown => {
  durationClass ??= (new Environment().evaluate('duration("0s")') as object).constructor as DurationClass
  return new durationClass(seconds, nanos)
}

/** Go's time.ParseDuration forms (`1h30m`, `-1.5s`); other text stays a string. */
const toDuration: Converter = (v) => {
  if (typeof v !== 'string') return v
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(v)
  if (m === null) return v === '0' ? makeDuration(0n, 0) : v
  let nanos = 0n
  for (const [, num, unit] of v.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    const [whole, frac = ''] = num.split('.')
    const scale = UNIT_NANOS[unit]
    nanos += BigInt(whole || '0') * scale + (frac === '' ? 0n : BigInt(frac) * scale / 10n ** BigInt(frac.length))
  }
  if (m[1] === '-') nanos = -nanos
  return makeDuration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n))
}

function objectClass (): new () => Record<string, unknown> {
  return class {} as unknown as new () => Record<string, unknown>
}

export function deepEqual (a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== typeof b || typeof a !== 'object' || a === null || b === null) return false
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]))
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false
    for (const [k, v] of a) if (!b.has(k) || !deepEqual(v, b.get(k))) return false
    return true
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  const ka = Object.keys(a as object)
  const kb = Object.keys(b as object)
  return ka.length === kb.length && ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

const RESOURCE_ROOT: Record<string, StructuralSchema> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } }
}

/**
 * Declares in `env` the types of `schema` and returns the root's. `typeName` names the root's
 * type; nested object types are named by their path below it.
 */
export function declareSchemaType (env: Environment, schema: StructuralSchema, typeName: string, resourceRoot = false): DeclaredType {
  if (schema['x-kubernetes-int-or-string'] === true) return { name: 'dyn', convert: convertDyn }
  if (schema['x-kubernetes-embedded-resource'] === true || resourceRoot) {
    schema = { ...schema, type: 'object', properties: { ...RESOURCE_ROOT, ...schema.properties } }
  }
  switch (schema.type) {
    case 'integer': return { name: 'int', convert: (v) => typeof v === 'number' ? BigInt(Math.trunc(v)) : v }
    case 'number': return { name: 'double', convert: identity }
    case 'boolean': return { name: 'bool', convert: identity }
    case 'string':
      // As the reference's model: date and date-time strings are timestamps, durations durations.
      if (schema.format === 'date-time' || schema.format === 'date') return { name: 'google.protobuf.Timestamp', convert: toTimestamp }
      if (schema.format === 'duration') return { name: 'google.protobuf.Duration', convert: toDuration }
      return { name: 'string', convert: identity }
    case 'array': {
      if (schema.items === undefined) return { name: 'list<dyn>', convert: convertDyn }
      const item = declareSchemaType(env, schema.items, `${typeName}._item`)
      return { name: `list<${item.name}>`, convert: (v) => Array.isArray(v) ? v.map(item.convert) : v }
    }
    case 'object': return declareObject(env, schema, typeName)
    default: return { name: 'dyn', convert: convertDyn }
  }
}

function declareObject (env: Environment, schema: StructuralSchema, typeName: string): DeclaredType {
  const props = schema.properties ?? {}
  const ap = schema.additionalProperties
  if (Object.keys(props).length === 0) {
    if (typeof ap === 'object') {
      const value = declareSchemaType(env, ap, `${typeName}._value`)
      return {
        name: `map<string, ${value.name}>`,
        convert: (v) => {
          if (typeof v !== 'object' || v === null) return v
          const m = new Map<string, unknown>()
          for (const [k, x] of Object.entries(v)) m.set(k, value.convert(x))
          return m
        }
      }
    }
    return { name: 'map<string, dyn>', convert: convertDyn }
  }
  const fields: Record<string, string> = {}
  const converters: Array<[string, string, Converter]> = []
  for (const [name, sub] of Object.entries(props)) {
    const escaped = escapeFieldName(name)
    if (escaped === undefined) continue
    const t = declareSchemaType(env, sub, `${typeName}.${escaped}`)
    fields[escaped] = t.name
    converters.push([name, escaped, t.convert])
  }
  const ctor = objectClass()
  env.registerType(typeName, { ctor, fields })
  env.registerOperator(`${typeName} == ${typeName}`, (a: unknown, b: unknown) => deepEqual(a, b))
  return {
    name: typeName,
    convert: (v) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return v
      const o = new ctor()
      for (const [name, escaped, convert] of converters) {
        const x = (v as Record<string, unknown>)[name]
        if (x !== undefined) o[escaped] = convert(x)
      }
      return o
    }
  }
}
