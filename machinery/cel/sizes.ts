// Worst-case sizes of the values a schema allows, as the reference's DeclType model estimates them
// for cost estimation (apiserver/pkg/cel/common/schemas.go): a string's bytes (maxLength × 4, as a
// code point takes up to four; the longest enum value; else the request size), a list's items and a
// map's entries (maxItems / maxProperties, else as many of the smallest item as fit in a request),
// and the smallest JSON a value of the schema serializes to.
import { escapeFieldName, type StructuralSchema } from './schema.js'

/** The reference's DefaultMaxRequestSizeBytes: 3 MiB. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024

export interface SizeNode {
  kind: 'string' | 'list' | 'map' | 'object' | 'scalar' | 'dyn'
  /** bytes of a string, items of a list, entries of a map */
  maxElements: number
  minSerializedSize: number
  /** list items and map values */
  elem?: SizeNode
  /** map keys */
  key?: SizeNode
  /** object properties by their CEL (escaped) name */
  fields?: Map<string, SizeNode>
}

// Serialized sizes of the formatted strings (apiserver/pkg/cel/limits.go).
const MIN_STRING = 2
const MIN_BOOL = 4
const MIN_NUMBER = 1
const MIN_DURATION = 4
const MAX_DURATION = 32
const DATE = 12
const MIN_DATETIME = 21
const MAX_DATETIME = 37

const unboundedString = (): SizeNode => ({ kind: 'string', maxElements: MAX_REQUEST_SIZE_BYTES - 2, minSerializedSize: MIN_STRING })
const atLeastZero = (n: number): number => Math.max(0, Math.trunc(n))

function stringSize (s: StructuralSchema): SizeNode {
  const str = (max: number, min = MIN_STRING): SizeNode => ({ kind: 'string', maxElements: max, minSerializedSize: min })
  switch (s.format) {
    case 'byte': return str(s.maxLength !== undefined ? atLeastZero(s.maxLength) : MAX_REQUEST_SIZE_BYTES - 2)
    case 'duration': return str(MAX_DURATION, MIN_DURATION)
    case 'date': return str(DATE, DATE)
    case 'date-time': return str(MAX_DATETIME, MIN_DATETIME)
  }
  if (s.maxLength !== undefined) return str(atLeastZero(s.maxLength) * 4)
  if (s.enum !== undefined && s.enum.length > 0) {
    return str(Math.max(0, ...s.enum.map((e) => typeof e === 'string' ? Buffer.byteLength(e) : 0)))
  }
  return unboundedString()
}

const RESOURCE_ROOT: Record<string, StructuralSchema> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } }
}

/** The size model of a schema node; undefined where the CEL model has no type for it. */
export function sizeOf (s: StructuralSchema, resourceRoot = false): SizeNode | undefined {
  if (s['x-kubernetes-int-or-string'] === true) {
    return { kind: 'dyn', maxElements: s.maxLength !== undefined ? atLeastZero(s.maxLength) * 4 : MAX_REQUEST_SIZE_BYTES - 2, minSerializedSize: 1 }
  }
  if (resourceRoot) s = { ...s, properties: { ...RESOURCE_ROOT, ...s.properties } }
  switch (s.type) {
    case 'array': {
      if (s.items === undefined) return undefined
      const elem = sizeOf(s.items, s.items['x-kubernetes-embedded-resource'] === true)
      if (elem === undefined) return undefined
      const max = s.maxItems !== undefined ? atLeastZero(s.maxItems) : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 1))
      return { kind: 'list', maxElements: max, minSerializedSize: 2, elem }
    }
    case 'object': {
      const ap = s.additionalProperties
      if (typeof ap === 'object') {
        const elem = sizeOf(ap, ap['x-kubernetes-embedded-resource'] === true)
        if (elem === undefined) return undefined
        const max = s.maxProperties !== undefined ? atLeastZero(s.maxProperties) : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 6))
        // The reference declares map keys with the plain string type, whose size estimate is 0.
        return { kind: 'map', maxElements: max, minSerializedSize: 2, elem, key: { kind: 'string', maxElements: 0, minSerializedSize: MIN_STRING } }
      }
      const fields = new Map<string, SizeNode>()
      const required = new Set(s.required ?? [])
      let min = 2
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const t = sizeOf(prop, prop['x-kubernetes-embedded-resource'] === true)
        if (t === undefined) continue
        const escaped = escapeFieldName(name)
        if (escaped !== undefined) fields.set(escaped, t)
        // A required property without a default is in every serialization: "name": value,
        if (required.has(name) && prop.default === undefined) min += name.length + t.minSerializedSize + 4
      }
      return { kind: 'object', maxElements: 0, minSerializedSize: min, fields }
    }
    case 'string': return stringSize(s)
    case 'boolean': return { kind: 'scalar', maxElements: 0, minSerializedSize: MIN_BOOL }
    case 'number': case 'integer': return { kind: 'scalar', maxElements: 0, minSerializedSize: MIN_NUMBER }
  }
  return undefined
}

/**
 * How many times a node can occur in one object when a map or list above it has no bound: as
 * many as fit in a request, one comma apart (the reference's maxCardinality).
 */
export const cardinalityFromSize = (minSerializedSize: number): number => Math.floor(MAX_REQUEST_SIZE_BYTES / (minSerializedSize + 1))
