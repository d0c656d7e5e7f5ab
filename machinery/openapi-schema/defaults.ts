// Defaulting (the reference's defaulting.Default and PruneNonNullableNullsWithoutDefaults):
// nulls the schema does not allow and cannot default are dropped first, then defaults fill
// missing properties and non-nullable nulls, in objects, additionalProperties and array items.
// Defaults are deep-copied, so no two objects share one.
import type { JSONSchemaProps } from './types.js'
import { deepCopy, isObject, itemsOf, propertySchema, setKey } from './types.js'

type Node = JSONSchemaProps | undefined

const isNonNullableNull = (x: unknown, s: Node): boolean => x === null && s !== undefined && s.nullable !== true

/** Applies the schema's defaults to `x` in place (with the reference's null pruning first). */
export function applyDefaults (x: unknown, s: Node): void {
  pruneNonNullableNullsWithoutDefaults(x, s)
  defaultNode(x, s)
}

export function pruneNonNullableNullsWithoutDefaults (x: unknown, s: Node): void {
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      const sub = propertySchema(s, k)
      if (isNonNullableNull(x[k], sub) && sub!.default === undefined) delete x[k]
      else pruneNonNullableNullsWithoutDefaults(x[k], sub)
    }
  } else if (Array.isArray(x)) {
    const items = itemsOf(s)
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, items)
  }
}

function defaultNode (x: unknown, s: Node): void {
  if (s === undefined) return
  if (isObject(x)) {
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      if (prop.default === undefined) continue
      if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) setKey(x, k, deepCopy(prop.default))
    }
    const additional = isObject(s.additionalProperties) ? s.additionalProperties as JSONSchemaProps : undefined
    for (const k of Object.keys(x)) {
      if (s.properties !== undefined && Object.hasOwn(s.properties, k)) defaultNode(x[k], s.properties[k])
      else if (additional !== undefined) {
        if (isNonNullableNull(x[k], additional) && additional.default !== undefined) setKey(x, k, deepCopy(additional.default))
        defaultNode(x[k], additional)
      }
    }
  } else if (Array.isArray(x)) {
    const items = itemsOf(s)
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items) && items!.default !== undefined) x[i] = deepCopy(items!.default)
      defaultNode(x[i], items)
    }
  }
}
