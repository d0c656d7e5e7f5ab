// OpenAPI v3 validation of a custom object, as the reference's kube-openapi SchemaValidator
// does it: per node the type, combinator, string, format, number, array, enum and object
// checks in that order, each error named by the path the validator built.
import type { JSONSchemaProps } from './types.js'
import { isObject } from './types.js'
import { effectiveFormat, stringFormat } from './formats.js'
import { goFloat, goNumber } from './go-format.js'
import { compilePattern, patternMatches } from './pattern.js'
import * as m from './messages.js'
import { combinators } from './combinators.js'

/** What one validator found; matchCount is how kube-openapi ranks anyOf/oneOf alternatives. */
export interface Result { errors: m.OpenAPIError[], matchCount: number }

export const newResult = (): Result => ({ errors: [], matchCount: 0 })
const fail = (e: m.OpenAPIError): Result => ({ errors: [e], matchCount: 0 })

export function merge (into: Result, from: Result): void {
  for (const e of from.errors) into.errors.push(e)
  into.matchCount += from.matchCount
}

// The reference decodes a JSON number to int64 when it is whole and fits, else to float64.
const isInt64 = (v: number): boolean => Number.isInteger(v) && Math.abs(v) < 2 ** 63

const jsonType = (v: unknown): string => {
  if (Array.isArray(v)) return 'array'
  if (v === null) return 'null'
  if (typeof v === 'number') return isInt64(v) ? 'integer' : 'number'
  if (typeof v === 'object') return 'object'
  return typeof v
}

/** The node's types as the reference converts them: int-or-string is both. */
function typesOf (s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string'] === true) return ['integer', 'string']
  return s.type === undefined || s.type === '' ? [] : [s.type]
}

// go-openapi's swag.IsFloat64AJSONInteger: whole, or within a relative 1e-9 of it.
function isJSONInteger (f: number): boolean {
  if (!Number.isFinite(f) || Math.abs(f) > 2 ** 53) return false
  const g = Math.trunc(f)
  if (f === g) return true
  const diff = Math.abs(f - g)
  return diff / (Math.abs(f) + Math.abs(g)) < 1e-9
}

function typeCheck (s: JSONSchemaProps, types: string[], format: string, path: string, data: unknown): Result {
  if (data === null) {
    if (types.length > 0 && !types.includes('null') && s.nullable !== true) return fail(m.invalidType(path, types.join(','), 'null'))
    return { errors: [], matchCount: 1 }
  }
  const actual = jsonType(data)
  const dataFormat = actual === 'integer' ? 'int64' : actual === 'number' ? 'float64' : ''
  const floatInt = actual === 'number' && isJSONInteger(data as number) && types.includes('integer')
  const intFloat = actual === 'integer' && types.includes('number')
  const scalarOrObject = actual !== 'string' && actual !== 'array'
  if (scalarOrObject && format !== '' && !(types.includes(actual) || dataFormat === format || floatInt || intFloat)) {
    return fail(m.invalidType(path, format, dataFormat))
  }
  if (!(types.includes('number') || types.includes('integer')) && format !== '' && !scalarOrObject) return { errors: [], matchCount: 1 }
  if (!(types.includes(actual) || floatInt || intFloat)) return fail(m.invalidType(path, types.join(','), actual))
  return { errors: [], matchCount: 1 }
}

/** Code points, as Go's utf8.RuneCountInString counts the lengths the bounds are in. */
function runeCount (data: string): number {
  let n = data.length
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i)
    // A surrogate pair is one code point in two UTF-16 units.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < data.length) {
      const next = data.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) { n--; i++ }
    }
  }
  return n
}

function stringCheck (s: JSONSchemaProps, path: string, data: string): Result {
  // Code points never outnumber UTF-16 units, nor are fewer than half of them: most strings are
  // settled without counting.
  if (s.maxLength !== undefined && data.length > s.maxLength && (data.length > 2 * s.maxLength || runeCount(data) > s.maxLength)) return fail(m.tooLong(path, s.maxLength, data))
  if (s.minLength !== undefined && (data.length < s.minLength || (data.length < 2 * s.minLength && runeCount(data) < s.minLength))) return fail(m.tooShort(path, s.minLength, data))
  if (s.pattern !== undefined && s.pattern !== '') {
    const compiled = compilePattern(s.pattern)
    if (!compiled.ok) return fail(m.failedPattern(path, `${s.pattern}, but pattern is invalid: ${compiled.error}`, data))
    if (!patternMatches(compiled.re, data)) return fail(m.failedPattern(path, s.pattern, data))
  }
  return newResult()
}

// For an integer value the reference compares with the bound truncated to an integer and
// prints it so (MaximumNativeType); a fractional value is compared and printed as float64.
function numberCheck (s: JSONSchemaProps, path: string, data: number): Result {
  const res = newResult()
  const whole = isInt64(data)
  if (s.multipleOf !== undefined && s.multipleOf !== 0) {
    const factor = s.multipleOf
    if (whole && Math.trunc(factor) !== 0) {
      if (data % Math.trunc(factor) !== 0) res.errors.push(m.notMultipleOf(path, goNumber(Math.trunc(factor)), data))
    } else {
      const mult = factor < 1 ? (1 / factor) * data : data / factor
      if (!isJSONInteger(mult)) res.errors.push(m.notMultipleOf(path, goFloat(factor), data))
    }
  }
  if (s.maximum !== undefined) {
    const max = whole ? Math.trunc(s.maximum) : s.maximum
    const exclusive = s.exclusiveMaximum === true
    if (exclusive ? data >= max : data > max) res.errors.push(m.exceedsMaximum(path, whole ? goNumber(max) : goFloat(max), exclusive, data))
  }
  if (s.minimum !== undefined) {
    const min = whole ? Math.trunc(s.minimum) : s.minimum
    const exclusive = s.exclusiveMinimum === true
    if (exclusive ? data <= min : data < min) res.errors.push(m.exceedsMinimum(path, whole ? goNumber(min) : goFloat(min), exclusive, data))
  }
  return res
}

function sliceCheck (s: JSONSchemaProps, path: string, data: unknown[]): Result {
  const res = newResult()
  const items = s.items
  if (items !== undefined && !Array.isArray(items)) {
    for (let i = 0; i < data.length; i++) merge(res, validateNode(items, `${path}[${i}]`, data[i]))
  } else if (Array.isArray(items)) {
    for (let i = 0; i < items.length && i < data.length; i++) merge(res, validateNode(items[i]!, `${path}[${i}]`, data[i]))
  }
  if (s.minItems !== undefined && data.length < s.minItems) res.errors.push(m.tooFewItems(path, s.minItems, data.length))
  if (s.maxItems !== undefined && data.length > s.maxItems) res.errors.push(m.tooManyItems(path, s.maxItems, data.length))
  if (s.uniqueItems === true && hasDuplicates(data)) res.errors.push(m.duplicateItems(path))
  res.matchCount++
  return res
}

function hasDuplicates (data: unknown[]): boolean {
  const seen = new Set<string>()
  for (const v of data) {
    const key = canonicalJSON(v)
    if (seen.has(key)) return true
    seen.add(key)
  }
  return false
}

/** JSON with object keys sorted, so equal values give equal text (as Go's json.Marshal of maps). */
export function canonicalJSON (v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`
  if (isObject(v)) return `{${Object.keys(v).sort().map(k => `${JSON.stringify(k)}:${canonicalJSON(v[k])}`).join(',')}}`
  return JSON.stringify(v) ?? 'null'
}

function enumCheck (s: JSONSchemaProps, path: string, data: unknown): Result {
  if (s.enum === undefined || s.enum.length === 0) return newResult()
  const text = canonicalJSON(data)
  // Go converts the value to each enum value's type before comparing, so 1 matches 1.0.
  if (s.enum.some(v => canonicalJSON(v) === text)) return newResult()
  return fail(m.enumFail(path, data, s.enum))
}

function objectCheck (s: JSONSchemaProps, path: string, data: Record<string, unknown>): Result {
  const keys = Object.keys(data)
  if (s.minProperties !== undefined && keys.length < s.minProperties) return fail(m.tooFewProperties(path, s.minProperties, keys.length))
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) return fail(m.tooManyProperties(path, s.maxProperties, keys.length))
  const res = newResult()
  const properties = s.properties ?? {}
  const known = (k: string): boolean => Object.hasOwn(properties, k)
  if (s.additionalProperties === false) {
    for (const k of keys) if (!known(k)) res.errors.push(m.propertyNotAllowed(path, k))
  } else if (isObject(s.additionalProperties)) {
    for (const k of keys) if (!known(k)) merge(res, validateNode(s.additionalProperties, `${path}.${k}`, data[k]))
  }
  for (const [name, schema] of Object.entries(properties)) {
    if (Object.hasOwn(data, name)) merge(res, validateNode(schema, path === '' ? name : `${path}.${name}`, data[name]))
  }
  for (const k of s.required ?? []) if (!Object.hasOwn(data, k)) res.errors.push(m.required(`${path}.${k}`))
  return res
}

/** Validates `data` at `path` (the reference's SchemaValidator.Validate). */
export function validateNode (s: JSONSchemaProps, path: string, data: unknown): Result {
  const result = newResult()
  if (typeof s !== 'object' || s === null) return result
  const types = typesOf(s)
  const format = effectiveFormat(s['x-kubernetes-int-or-string'] === true ? '' : s.type, s.format)
  const typed = types.length > 0 || format !== ''
  if (data === null || data === undefined) {
    if (typed) merge(result, typeCheck(s, types, format, path, null))
    merge(result, enumCheck(s, path, null))
    return result
  }
  const run = (r: Result): void => { merge(result, r); result.matchCount++ }
  if (typed) run(typeCheck(s, types, format, path, data))
  run(combinators(s, path, data))
  if (typeof data === 'string') run(stringCheck(s, path, data))
  if (typeof data === 'string' && format !== '') {
    const check = stringFormat(format)
    if (check !== undefined) run(check(data) ? newResult() : fail(m.invalidType(path, format, data)))
  }
  if (typeof data === 'number') run(numberCheck(s, path, data))
  if (Array.isArray(data)) run(sliceCheck(s, path, data))
  run(enumCheck(s, path, data))
  if (isObject(data)) run(objectCheck(s, path, data))
  result.matchCount++
  return result
}
