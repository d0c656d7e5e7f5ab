// Objects seen through their kind's schema markers, as server-side apply needs them: the field
// set of a value, the comparison of two values, the apply merge and the removal of field sets.
// Lists: x-kubernetes-list-type atomic (the default), set, or map with x-kubernetes-list-map-keys
// (a patch-merge-key without a list type counts as a map list keyed by it); maps and structs:
// x-kubernetes-map-type granular (the default) or atomic. Without a schema a value is
// unstructured: keys are fields, lists atomic.
import { isDeepStrictEqual } from 'node:util'
import { badRequest } from '../resources/status.js'
import { FieldSet, fieldElement, keyElement, valueElement, type FieldPath, type PathElement } from './field-set.js'

type Json = Record<string, unknown>
type Schema = Record<string, any> | undefined

export type Shape =
  | { kind: 'scalar' }
  | { kind: 'struct', atomic: boolean, schema: Schema }
  | { kind: 'list', type: 'atomic' | 'set' | 'map', keys: string[], item: Schema }
  | { kind: 'untyped' }

const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const own = (o: Json, k: string, v: unknown): void => { Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true }) }

const shapes = new WeakMap<object, Shape>()

/** A schema's shape, markers on a nullable union's wrapper included; memoised per schema node. */
export function shapeOf (s: Schema, value: unknown): Shape {
  if (s === undefined) return untypedShape(value)
  let found = shapes.get(s)
  if (found === undefined) {
    found = computeShape(s)
    shapes.set(s, found)
  }
  return found
}

function untypedShape (value: unknown): Exclude<Shape, { kind: 'untyped' }> {
  if (isMap(value)) return { kind: 'struct', atomic: false, schema: undefined }
  if (Array.isArray(value)) return { kind: 'list', type: 'atomic', keys: [], item: undefined }
  return { kind: 'scalar' }
}

function computeShape (outer: Record<string, any>): Shape {
  let s = outer
  if (Array.isArray(s.anyOf)) {
    const variant = (s.anyOf as Json[]).find(v => v.type === 'object' || v.type === 'array')
    if (variant === undefined) return { kind: 'scalar' }
    s = { ...variant, ...Object.fromEntries(Object.entries(outer).filter(([k]) => k.startsWith('x-kubernetes-'))) }
  }
  if (s.type === 'array') {
    const listType = s['x-kubernetes-list-type'] as string | undefined
    const mapKeys = s['x-kubernetes-list-map-keys'] as string[] | undefined
    const mergeKey = s['x-kubernetes-patch-merge-key'] as string | undefined
    if (listType === 'map' && Array.isArray(mapKeys) && mapKeys.length > 0) return { kind: 'list', type: 'map', keys: mapKeys, item: s.items }
    if (listType === 'set') return { kind: 'list', type: 'set', keys: [], item: s.items }
    if (listType === undefined && typeof mergeKey === 'string') return { kind: 'list', type: 'map', keys: [mergeKey], item: s.items }
    return { kind: 'list', type: 'atomic', keys: [], item: s.items }
  }
  if (s.type === 'object') return { kind: 'struct', atomic: s['x-kubernetes-map-type'] === 'atomic', schema: s }
  if (s.type === undefined) return { kind: 'untyped' }
  return { kind: 'scalar' }
}

const isEmptyMap = (v: Json): boolean => { for (const _ in v) return false; return true }

const entrySchemas = new WeakMap<object, Schema | null>()

/** The schema of a field or map entry; undefined (unstructured) when the schema says nothing. */
function fieldSchema (s: Schema, key: string): Schema {
  if (s === undefined) return undefined
  const props = s.properties as Record<string, Schema> | undefined
  if (props !== undefined && Object.prototype.hasOwnProperty.call(props, key)) return props[key]
  let entry = entrySchemas.get(s)
  if (entry === undefined) {
    entry = (s.patternProperties !== undefined ? Object.values(s.patternProperties)[0] as Schema : isMap(s.additionalProperties) ? s.additionalProperties : undefined) ?? null
    entrySchemas.set(s, entry)
  }
  return entry ?? undefined
}

const isClosed = (s: Schema): boolean => s !== undefined && s.properties !== undefined && s.additionalProperties === false && s.patternProperties === undefined

const isField = (s: Schema, key: string): boolean => s?.properties !== undefined && Object.prototype.hasOwnProperty.call(s.properties, key)

/** The shape to walk a value with: unstructured values and schema-less nodes follow the value. */
function resolve (s: Schema, value: unknown): Exclude<Shape, { kind: 'untyped' }> {
  const shape = shapeOf(s, value)
  return shape.kind === 'untyped' ? untypedShape(value) as Exclude<Shape, { kind: 'untyped' }> : shape
}

/** The path element of a list item; a map-list key field left out takes its schema default. */
export function itemElement (shape: Shape & { kind: 'list' }, item: unknown): PathElement {
  if (shape.type === 'set') {
    if (isMap(item) || Array.isArray(item) || item === null) throw badRequest('associative list without keys has an element that is not a scalar')
    return valueElement(item)
  }
  if (!isMap(item)) throw badRequest('associative list with keys may not have non-map elements')
  const fields: Array<[string, unknown]> = []
  for (const k of shape.keys) {
    if (item[k] !== undefined) fields.push([k, item[k]])
    else {
      const def = (fieldSchema(resolveItem(shape), k) as Json | undefined)?.default
      if (def !== undefined) fields.push([k, def])
    }
  }
  if (fields.length === 0) throw badRequest(`associative list with keys has an element that omits all key fields ${JSON.stringify(shape.keys)} (and doesn't have default values for any key fields)`)
  return keyElement(fields)
}

function resolveItem (shape: Shape & { kind: 'list' }): Schema {
  const s = shape.item
  if (s === undefined || !Array.isArray(s.anyOf)) return s
  return (s.anyOf as Json[]).find(v => v.type === 'object') ?? s
}

function itemSchema (shape: Shape & { kind: 'list' }): Schema { return shape.item }

// ---- field sets ----------------------------------------------------------------------------

/** Every field a value sets, as the reference's ToFieldSet: leaves, atomic nodes, list items. */
export function toFieldSet (value: unknown, schema: Schema): FieldSet {
  const set = new FieldSet()
  walkFields(value, schema, [], set)
  return set
}

function walkFields (value: unknown, s: Schema, path: FieldPath, set: FieldSet): void {
  const shape = resolve(s, value)
  if (shape.kind === 'scalar') { if (path.length > 0) set.insert(path); return }
  if (shape.kind === 'list') {
    if (shape.type === 'atomic' || !Array.isArray(value)) { if (path.length > 0) set.insert(path); return }
    const seen = new Set<PathElement>()
    for (const item of value) {
      const pe = itemElement(shape, item)
      path.push(pe)
      if (!seen.has(pe)) walkFields(item, itemSchema(shape), path, set)
      seen.add(pe)
      set.insert(path)
      path.pop()
    }
    return
  }
  if (shape.atomic || !isMap(value)) { if (path.length > 0) set.insert(path); return }
  const closed = isClosed(shape.schema)
  for (const k in value) {
    const v = value[k]
    // A field a closed struct does not declare is dropped before storing: nobody owns it.
    if (closed && !isField(shape.schema, k)) continue
    path.push(fieldElement(k))
    walkFields(v, fieldSchema(shape.schema, k), path, set)
    if (v === null || (isMap(v) && isEmptyMap(v)) || !isField(shape.schema, k)) set.insert(path)
    path.pop()
  }
}

// ---- comparison ----------------------------------------------------------------------------

export interface Comparison { added: FieldSet, modified: FieldSet, removed: FieldSet }

/** What changed from `lhs` to `rhs`: every node on one side only, and changed leaves. */
export function compare (lhs: unknown, rhs: unknown, schema: Schema): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() }
  walkCompare(lhs, rhs, schema, [], c)
  return c
}

function compareLeaf (l: unknown, r: unknown, path: FieldPath, c: Comparison): void {
  if (l === undefined) c.added.insert(path)
  else if (r === undefined) c.removed.insert(path)
  else if (l !== r && (typeof l !== 'object' || typeof r !== 'object' || !isDeepStrictEqual(l, r))) c.modified.insert(path)
}

function walkCompare (l: unknown, r: unknown, s: Schema, path: FieldPath, c: Comparison): void {
  const shape = resolve(s, r ?? l)
  if (shape.kind === 'scalar' || (shape.kind === 'list' && shape.type === 'atomic') || (shape.kind === 'struct' && shape.atomic)) return compareLeaf(l, r, path, c)
  if (shape.kind === 'list') {
    if ((l !== undefined && !Array.isArray(l)) || (r !== undefined && !Array.isArray(r))) return compareLeaf(l, r, path, c)
    const left = indexItems(shape, l as unknown[] | undefined)
    const right = indexItems(shape, r as unknown[] | undefined)
    const s = itemSchema(shape)
    for (const [pe, item] of left) { path.push(pe); walkCompare(item, right.get(pe), s, path, c); path.pop() }
    for (const [pe, item] of right) if (!left.has(pe)) { path.push(pe); walkCompare(undefined, item, s, path, c); path.pop() }
  } else {
    if ((l !== undefined && !isMap(l)) || (r !== undefined && !isMap(r))) return compareLeaf(l, r, path, c)
    const lm = (l ?? {}) as Json
    const rm = (r ?? {}) as Json
    for (const k in lm) { path.push(fieldElement(k)); walkCompare(lm[k], ownValue(rm, k), fieldSchema(shape.schema, k), path, c); path.pop() }
    for (const k in rm) if (!Object.hasOwn(lm, k)) { path.push(fieldElement(k)); walkCompare(undefined, rm[k], fieldSchema(shape.schema, k), path, c); path.pop() }
  }
  if (path.length === 0) return
  if (l === undefined) c.added.insert(path)
  else if (r === undefined) c.removed.insert(path)
}

/** A map's own entry: keys such as `constructor` or `__proto__` are data, never inherited members. */
const ownValue = (m: Json, k: string): unknown => Object.hasOwn(m, k) ? m[k] : undefined

function indexItems (shape: Shape & { kind: 'list' }, list: unknown[] | undefined): Map<PathElement, unknown> {
  const out = new Map<PathElement, unknown>()
  for (const item of list ?? []) {
    const pe = itemElement(shape, item)
    if (!out.has(pe)) out.set(pe, item)
  }
  return out
}

/**
 * What `compare(emptyObject(obj), obj)` finds added or modified (it finds nothing removed), in one
 * walk that builds the set directly: the fields a create sets, which its writer comes to own.
 * Every create passes here, and the comparison's index Maps, three sets and union copies were a
 * good part of a create's garbage. The empty object holds `{}` for each top-level struct with
 * declared properties that `obj` sets as a map; such a field is then not itself added, only its
 * fields are (or, for an atomic struct, it is modified unless `obj` leaves it empty too).
 * Undefined when `obj` is not seen as a granular struct.
 */
export function createdFields (obj: Json, schema: Schema): FieldSet | undefined {
  const shape = resolve(schema, obj)
  // Not a kind's object (no schema has an atomic root): the caller compares instead.
  if (shape.kind !== 'struct' || shape.atomic) return undefined
  const root = new FieldSet()
  const props = schema?.properties as Record<string, Schema> | undefined
  for (const k in obj) {
    const v = obj[k]
    const s = fieldSchema(shape.schema, k)
    const top = props?.[k] !== undefined ? shapeOf(props[k], v) : undefined
    const inEmpty = top?.kind === 'struct' && top.schema?.properties !== undefined && isMap(v)
    if (!inEmpty) { addAll(v, s, child(root, fieldElement(k))); continue }
    const inner = resolve(s, v)
    if (inner.kind === 'struct' && !inner.atomic) {
      for (const f in v) {
        const node = child(child(root, fieldElement(k)), fieldElement(f))
        addAll(v[f], fieldSchema(inner.schema, f), node)
      }
    } else if (!isEmptyMap(v)) child(root, fieldElement(k)).member = true
  }
  return root
}

const child = (node: FieldSet, pe: PathElement): FieldSet => {
  let c = node.children.get(pe)
  if (c === undefined) { c = new FieldSet(); node.setChild(pe, c) }
  return c
}

/** `compare(undefined, value)` from `node` down: the node and everything under it is added. */
function addAll (value: unknown, s: Schema, node: FieldSet): void {
  const shape = resolve(s, value)
  if (shape.kind === 'list' && shape.type !== 'atomic' && Array.isArray(value)) {
    const item = itemSchema(shape)
    for (const v of value) {
      const pe = itemElement(shape, v)
      // A repeated key: the comparison indexes the first item of each.
      if (node.children.has(pe)) continue
      const c = new FieldSet()
      node.setChild(pe, c)
      addAll(v, item, c)
    }
  } else if (shape.kind === 'struct' && !shape.atomic && isMap(value)) {
    for (const k in value) addAll(value[k], fieldSchema(shape.schema, k), child(node, fieldElement(k)))
  }
  node.member = true
}

// ---- apply merge ---------------------------------------------------------------------------

/**
 * The applied configuration merged into the live object: granular maps and structs merge field
 * by field, set and map lists item by item (live-only items keep their places, the rest follow
 * the configuration's order), everything else is replaced; an explicit null removes the field.
 */
export function mergeApplied (live: unknown, config: unknown, schema: Schema): unknown {
  if (config === undefined) return live
  if (live === undefined || live === null || config === null) return stripNulls(config, schema)
  const shape = resolve(schema, config)
  if (shape.kind === 'scalar' || (shape.kind === 'list' && shape.type === 'atomic') || (shape.kind === 'struct' && shape.atomic)) return stripNulls(config, schema)
  if (shape.kind === 'list') {
    if (!Array.isArray(live) || !Array.isArray(config)) return stripNulls(config, schema)
    return mergeLists(shape, live, config)
  }
  if (!isMap(live) || !isMap(config)) return stripNulls(config, schema)
  const out: Json = {}
  for (const [k, v] of Object.entries(live)) own(out, k, v)
  for (const [k, v] of Object.entries(config)) {
    if (v === null) { delete out[k]; continue }
    own(out, k, mergeApplied(ownValue(live, k), v, fieldSchema(shape.schema, k)))
  }
  return out
}

/** A configured value as stored: fields set to null are left out. */
function stripNulls (v: unknown, s: Schema): unknown {
  if (Array.isArray(v)) return v.map(item => stripNulls(item, undefined))
  if (!isMap(v)) return v
  const out: Json = {}
  for (const [k, x] of Object.entries(v)) if (x !== null) own(out, k, stripNulls(x, fieldSchema(s, k)))
  return out
}

/** The reference's interleave: live items not configured stay in place, shared ones follow the configuration. */
function mergeLists (shape: Shape & { kind: 'list' }, live: unknown[], config: unknown[]): unknown[] {
  const lpe = live.map(i => itemElement(shape, i))
  const rpe = config.map(i => itemElement(shape, i))
  const lByPe = new Map<PathElement, unknown>()
  lpe.forEach((pe, i) => { if (!lByPe.has(pe)) lByPe.set(pe, live[i]) })
  const rSet = new Set(rpe)
  const shared = rpe.filter(pe => lByPe.has(pe))
  let next = 0
  const done = new Set<PathElement>()
  const out: unknown[] = []
  const mergeItem = (pe: PathElement, r: unknown): void => {
    done.add(pe)
    out.push(shape.type === 'set' ? r : mergeApplied(lByPe.get(pe), r, itemSchema(shape)))
  }
  let li = 0
  let ri = 0
  while (li < live.length || ri < config.length) {
    if (li < live.length && ri < config.length) {
      if (lpe[li] === rpe[ri]) {
        if (!done.has(rpe[ri]!)) mergeItem(rpe[ri]!, config[ri])
        if (shared[next] === rpe[ri]) next++
        li++; ri++
        continue
      }
      if (rSet.has(lpe[li]!) && shared[next] !== undefined && shared[next] !== lpe[li]) { li++; continue }
    }
    if (li < live.length) {
      const pe = lpe[li]!
      if (!rSet.has(pe)) { out.push(live[li]); li++; continue }
      if (done.has(pe)) { li++; continue }
    }
    if (ri < config.length) {
      const pe = rpe[ri]!
      if (!done.has(pe)) mergeItem(pe, config[ri])
      if (shared[next] === pe) next++
      ri++
    }
  }
  return out
}

// ---- removal -------------------------------------------------------------------------------

/**
 * `value` without the members of `remove`; a member some path of `keep` lies under is kept and
 * only its own removable descendants go. Maps and lists emptied by a removal go with it.
 */
export function removeFields (value: unknown, remove: FieldSet, keep: FieldSet | undefined, schema: Schema): unknown {
  const shape = resolve(schema, value)
  if (shape.kind === 'scalar' || (shape.kind === 'list' && shape.type === 'atomic') || (shape.kind === 'struct' && shape.atomic)) return value
  if (shape.kind === 'list') {
    if (!Array.isArray(value)) return value
    const out: unknown[] = []
    for (const item of value) {
      const pe = itemElement(shape, item)
      const r = remove.child(pe)
      if (r === undefined) { out.push(item); continue }
      const k = keep?.child(pe)
      if (r.member && (k === undefined || k.empty())) continue
      out.push(removeFields(item, r, k, itemSchema(shape)))
    }
    return out
  }
  if (!isMap(value)) return value
  const out: Json = {}
  for (const [key, v] of Object.entries(value)) {
    const pe = fieldElement(key)
    const r = remove.child(pe)
    if (r === undefined) { own(out, key, v); continue }
    const k = keep?.child(pe)
    if (r.member && (k === undefined || k.empty())) continue
    const pruned = removeFields(v, r, k, fieldSchema(shape.schema, key))
    const emptied = (isMap(pruned) && Object.keys(pruned).length === 0 && isMap(v) && Object.keys(v).length > 0) ||
      (Array.isArray(pruned) && pruned.length === 0 && Array.isArray(v) && v.length > 0)
    if (!emptied || (k !== undefined && k.member)) own(out, key, pruned)
  }
  return out
}

// ---- atomics -------------------------------------------------------------------------------

/**
 * The paths (`.spec.selector`, `.spec.containers[0].args`) of the atomic lists, maps and structs
 * a configuration sets, as the reference's findAtomics: an apply configuration of a mutating
 * admission policy may not set them, since every field it leaves out of one would be dropped.
 */
export function atomicPaths (value: unknown, schema: Schema, path = ''): string[] {
  if (schema === undefined) return []
  const shape = resolve(schema, value)
  const out: string[] = []
  if (shape.kind === 'struct' && isMap(value)) {
    if (shape.atomic) out.push(path)
    for (const [k, v] of Object.entries(value)) {
      if (isField(shape.schema, k)) out.push(...atomicPaths(v, fieldSchema(shape.schema, k), `${path}.${k}`))
    }
  } else if (shape.kind === 'list' && Array.isArray(value)) {
    if (shape.type === 'atomic') out.push(path)
    value.forEach((item, i) => out.push(...atomicPaths(item, itemSchema(shape), `${path}[${i}]`)))
  }
  return out
}
