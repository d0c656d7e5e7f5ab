// x-kubernetes-list-type set and map: items, or the map keys of items, must be unique (the
// reference's listtype.ValidateListSetsAndMaps). Each value seen twice is reported once, at
// its second index.
import type { FieldError } from '../../resources/status.js'
import type { JSONSchemaProps } from './types.js'
import { isObject, itemsOf } from './types.js'
import { canonicalJSON } from './validate.js'
import { child, index, key } from './field-path.js'

export function validateListSetsAndMaps (path: string, s: JSONSchemaProps | undefined, obj: unknown): FieldError[] {
  if (s === undefined || !isObject(obj)) return []
  const errs: FieldError[] = []
  if (isObject(s.additionalProperties)) {
    for (const [k, v] of Object.entries(obj)) errs.push(...walk(key(path, k), s.additionalProperties, v))
  }
  if (s.properties !== undefined) {
    for (const [k, v] of Object.entries(obj)) {
      if (Object.hasOwn(s.properties, k)) errs.push(...walk(child(path, k), s.properties[k]!, v))
    }
  }
  return errs
}

function walk (path: string, s: JSONSchemaProps, v: unknown): FieldError[] {
  if (Array.isArray(v)) return array(path, s, v)
  if (isObject(v)) return validateListSetsAndMaps(path, s, v)
  return []
}

function array (path: string, s: JSONSchemaProps, list: unknown[]): FieldError[] {
  const errs: FieldError[] = []
  if (s['x-kubernetes-list-type'] === 'set') {
    for (const i of secondAppearances(list)) errs.push({ type: 'Duplicate', field: index(path, i), value: list[i] })
  } else if (s['x-kubernetes-list-type'] === 'map') {
    errs.push(...listMap(path, s['x-kubernetes-list-map-keys'] ?? [], list))
  }
  const items = itemsOf(s)
  if (items !== undefined) list.forEach((v, i) => errs.push(...walk(index(path, i), items, v)))
  return errs
}

// A missing key and a null key differ: the marker keeps them apart.
const UNSPECIFIED = '\u0000unspecified'

function secondAppearances (values: unknown[]): number[] {
  const seen = new Map<string, number>()
  const out: number[] = []
  values.forEach((v, i) => {
    const k = v === UNSPECIFIED ? UNSPECIFIED : canonicalJSON(v)
    const times = seen.get(k) ?? 0
    seen.set(k, times + 1)
    if (times === 1) out.push(i)
  })
  return out
}

function listMap (path: string, keys: string[], list: unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    if (list[i] !== null && !isObject(list[i])) {
      return [{ type: 'Invalid', field: index(path, i), value: list[i], detail: 'must be an object for an array of list-type map' }]
    }
  }
  if (list.length <= 1) return []
  if (keys.length === 1) {
    const k = keys[0]!
    const values = list.map(x => isObject(x) && Object.hasOwn(x, k) ? x[k] : UNSPECIFIED)
    return secondAppearances(values).map(i => ({
      type: 'Duplicate' as const,
      field: index(path, i),
      value: values[i] === UNSPECIFIED ? {} : { [k]: values[i] }
    }))
  }
  // Go marshals map keys sorted; the value shown is the same.
  const tuples = list.map(x => {
    const tuple: Record<string, unknown> = {}
    if (isObject(x)) for (const k of [...keys].sort()) if (Object.hasOwn(x, k)) tuple[k] = x[k]
    return tuple
  })
  return secondAppearances(tuples).map(i => ({ type: 'Duplicate' as const, field: index(path, i), value: tuples[i] }))
}
