// Old values matched to new ones while walking an update, two ways as in the reference:
// - `oldSelf` of a rule (schema/cel/validation.go): object properties and map values by key,
//   items of `x-kubernetes-list-type: map` lists by their map keys, nothing below other lists;
// - ratcheting (apiserver/pkg/cel/common/equality.go, CRDValidationRatcheting, on and locked
//   since 1.33): as above, but items of lists without a list type also by index. A rule that
//   does not read oldSelf and fails on a value deep-equal to its correlated old value (or, below
//   an uncorrelatable point, whose nearest correlatable ancestor is unchanged) is reported as a
//   warning, not an error.
import type { StructuralSchema } from './schema.js'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Items of a map-list by the JSON of their key values; the first item with a key wins. */
export class MapList {
  private readonly byKey = new Map<string, unknown>()
  constructor (private readonly keys: string[], items: unknown[]) {
    for (const item of items) {
      const k = this.keyOf(item)
      if (k !== undefined && !this.byKey.has(k)) this.byKey.set(k, item)
    }
  }

  /** Every key must hold a scalar, else the item correlates with nothing (as the reference's maplist). */
  private keyOf (item: unknown): string | undefined {
    if (!isObject(item)) return undefined
    const values = this.keys.map((k) => item[k])
    if (!values.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) return undefined
    return JSON.stringify(values)
  }

  get (item: unknown): unknown {
    const k = this.keyOf(item)
    return k === undefined ? undefined : this.byKey.get(k)
  }
}

/** The old items a list's items are correlated with for `oldSelf`: only map-lists have any. */
export function oldItemsForRules (schema: StructuralSchema, old: unknown): MapList | undefined {
  if (schema['x-kubernetes-list-type'] !== 'map' || !Array.isArray(old)) return undefined
  return new MapList(schema['x-kubernetes-list-map-keys'] ?? [], old)
}

export function jsonEqual (a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
  if (!isObject(a) || !isObject(b)) return false
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]))
}

/** One value of the new object with its correlated old value, for ratcheting. */
export class Correlated {
  private equal: boolean | undefined
  private mapList: MapList | undefined
  constructor (readonly value: unknown, readonly old: unknown, readonly schema: StructuralSchema) {}

  key (field: string): Correlated | undefined {
    if (!isObject(this.value) || !isObject(this.old)) return undefined
    if (!Object.hasOwn(this.value, field) || !Object.hasOwn(this.old, field)) return undefined
    const s = this.schema.properties !== undefined && Object.hasOwn(this.schema.properties, field)
      ? this.schema.properties[field]
      : typeof this.schema.additionalProperties === 'object' ? this.schema.additionalProperties : undefined
    return s === undefined ? undefined : new Correlated(this.value[field], this.old[field], s)
  }

  index (i: number): Correlated | undefined {
    if (!Array.isArray(this.value) || !Array.isArray(this.old) || i >= this.value.length || this.schema.items === undefined) return undefined
    let old: unknown
    switch (this.schema['x-kubernetes-list-type']) {
      case 'map':
        this.mapList ??= new MapList(this.schema['x-kubernetes-list-map-keys'] ?? [], this.old)
        old = this.mapList.get(this.value[i])
        break
      case 'set': case 'atomic': return undefined
      default: old = this.old[i]
    }
    return old === undefined || old === null ? undefined : new Correlated(this.value[i], old, this.schema.items)
  }

  unchanged (): boolean {
    this.equal ??= this.old !== undefined && jsonEqual(this.value, this.old)
    return this.equal
  }
}

/** Where the walk is for ratcheting: the correlated node, else its nearest correlated ancestor. */
export interface Ratchet { current?: Correlated, parent?: Correlated }

export function ratchetKey (r: Ratchet, field: string): Ratchet {
  if (r.current === undefined) return r
  // apiVersion and kind of the root are not compared: both objects are read at the same version.
  if (r.parent === undefined && (field === 'apiVersion' || field === 'kind')) return {}
  return { current: r.current.key(field), parent: r.current }
}

export function ratchetIndex (r: Ratchet, i: number): Ratchet {
  if (r.current === undefined) return r
  return { current: r.current.index(i), parent: r.current }
}

export function shouldRatchet (r: Ratchet): boolean {
  return (r.current ?? r.parent)?.unchanged() ?? false
}
