// What mutating admission policies' expressions build their results with, as the reference's
// cel/mutation and library.JSONPatch: `Object{...}` (an apply configuration: the root type
// `Object`, nested literals named by their field path, `Object.spec.template{...}`),
// `JSONPatch{op, path, from, value}` and `jsonpatch.escapeKey`. Literals reach the engine through
// message-literals.ts as calls of the constructors declared here.
import type { Environment, Optional } from '@marcbachmann/cel-js'
import { OPTIONAL_FIELD, type ConstructorFor } from '../message-literals.js'
import { charge } from '../cost.js'

/** An `Object{...}` value: the apply configuration's root. */
export class ObjectValue {
  constructor (readonly fields: Record<string, unknown>) {}
}

/** A `JSONPatch{...}` value: one operation. */
export class JSONPatchValue {
  constructor (readonly fields: Record<string, unknown>) {}
}

class JSONPatchLibrary {}

// Nested literals are maps to the engine; their type names are kept aside for the field path check.
const nestedNames = new WeakMap<object, string>()

export const constructorFor: ConstructorFor = (name) => {
  if (name === 'Object') return { call: '__k8s_object', withName: false }
  if (name === 'JSONPatch') return { call: '__k8s_jsonpatch', withName: false }
  if (name.startsWith('Object.')) return { call: '__k8s_nested', withName: true }
  return undefined
}

/** A `?field:` initializer's value: the optional it was given, unwrapped by the constructor. */
class OptionalField {
  constructor (readonly value: Optional) {}
}

/** A literal's fields: a `?field:` whose optional is empty is left out, one with a value is set to it. */
const fieldsOf = (m: unknown): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [k, v] of m instanceof Map ? m : Object.entries(m as Record<string, unknown>)) {
    if (!(v instanceof OptionalField)) out[k as string] = v
    else if (v.value.hasValue()) out[k as string] = v.value.value()
  }
  return out
}

export function registerMutation (env: Environment): void {
  env.registerType('Object', ObjectValue)
  env.registerType('JSONPatch', JSONPatchValue)
  env.registerType('kubernetes.JSONPatchLibrary', JSONPatchLibrary)
  env.registerType('kubernetes.OptionalField', OptionalField)
  env.registerFunction(`${OPTIONAL_FIELD}(optional<A>): kubernetes.OptionalField`, (o: Optional) => new OptionalField(o))
  env.registerFunction('__k8s_object(map<string, dyn>): Object', (m: unknown) => new ObjectValue(fieldsOf(m)))
  env.registerFunction('__k8s_jsonpatch(map<string, dyn>): JSONPatch', (m: unknown) => new JSONPatchValue(fieldsOf(m)))
  env.registerFunction('__k8s_nested(string, map<string, dyn>): dyn', (name: string, m: unknown) => {
    const fields = fieldsOf(m)
    nestedNames.set(fields, name)
    return fields
  })
  env.registerConstant('jsonpatch', 'kubernetes.JSONPatchLibrary', new JSONPatchLibrary())
  // RFC 6901: `~` first, so the `~1` made for `/` is not escaped again.
  env.registerFunction('kubernetes.JSONPatchLibrary.escapeKey(string): string', (_lib: unknown, key: string) => {
    charge(key.length / 10)
    return key.replaceAll('~', '~0').replaceAll('/', '~1')
  })
}

/**
 * CheckTypeNamesMatchFieldPathNames: a nested literal's type name must be its field path from the
 * root `Object` (`Object.spec{selector: Object.spec.selector{}}`); maps and lists in between are
 * unnamed. Every mismatch, in the reference's words.
 */
export function typeNameMismatches (root: ObjectValue): string[] {
  const errors: string[] = []
  const walk = (v: unknown, path: string[]): void => {
    if (Array.isArray(v)) { for (const x of v) walk(x, path); return }
    if (v instanceof Map) { for (const x of v.values()) walk(x, path); return }
    if (v === null || typeof v !== 'object') return
    const fields = v instanceof ObjectValue ? v.fields : v as Record<string, unknown>
    const name = v instanceof ObjectValue ? 'Object' : nestedNames.get(v)
    if (name !== undefined) {
      const expected = path.join('.')
      if (name !== expected) errors.push(`unexpected type name "${name}", expected "${expected}", which matches field name path from root Object type`)
      for (const [k, x] of Object.entries(fields)) walk(x, [...path, k])
    } else {
      for (const x of Object.values(fields)) walk(x, path)
    }
  }
  walk(root, ['Object'])
  return errors
}

/** A CEL value as JSON: ints as numbers, maps and literals as objects, timestamps and durations as their strings. */
export function celToJson (v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v)
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) return v.map(celToJson)
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z')
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64')
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), celToJson(x)]))
  const fields = v instanceof ObjectValue || v instanceof JSONPatchValue ? v.fields : v as Record<string, unknown>
  if (Object.getPrototypeOf(v) !== null && !(v instanceof ObjectValue) && !(v instanceof JSONPatchValue) && Object.getPrototypeOf(v) !== Object.prototype) return String(v)
  return Object.fromEntries(Object.entries(fields).map(([k, x]) => [k, celToJson(x)]))
}
