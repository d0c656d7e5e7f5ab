// Strategic merge patch (application/strategic-merge-patch+json), driven by the kind's schema
// markers: x-kubernetes-patch-strategy (merge, retainKeys, replace) and x-kubernetes-patch-merge-key,
// falling back to x-kubernetes-list-type set/map. Directives: $patch (replace, delete, merge),
// $retainKeys, $deleteFromPrimitiveList/<field>, $setElementOrder/<field>.
import type { TSchema } from '@sinclair/typebox'
import { badRequest } from '../resources/status.js'

type Json = Record<string, unknown>
type Schema = Record<string, any> | undefined

const DIRECTIVE = '$patch'
const RETAIN_KEYS = '$retainKeys'
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/'
const SET_ELEMENT_ORDER = '$setElementOrder/'

const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const setKey = (o: Json, k: string, v: unknown): void => {
  // Keys such as __proto__ are ordinary data here.
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
}

/** The object or array variant of a union (nullable fields are anyOf [T, null]). */
function resolve (s: Schema): Schema {
  if (s === undefined || !Array.isArray(s.anyOf)) return s
  return (s.anyOf as Json[]).find(v => v.type === 'object' || v.type === 'array') ?? s
}

function fieldSchema (s: Schema, key: string): Schema {
  const r = resolve(s)
  if (r === undefined || r.type !== 'object') return undefined
  if (r.properties !== undefined && Object.hasOwn(r.properties, key)) return r.properties[key]
  if (r.patternProperties !== undefined) return Object.values(r.patternProperties)[0] as Schema
  return isMap(r.additionalProperties) ? r.additionalProperties : undefined
}

interface ListMeta { strategies: string[], mergeKey?: string }

function patchMeta (s: Schema): ListMeta {
  const r = s === undefined ? undefined : (s['x-kubernetes-patch-strategy'] !== undefined || s['x-kubernetes-list-type'] !== undefined ? s : resolve(s))
  const strategies = typeof r?.['x-kubernetes-patch-strategy'] === 'string' ? (r['x-kubernetes-patch-strategy'] as string).split(',').map(x => x.trim()) : []
  let mergeKey = r?.['x-kubernetes-patch-merge-key'] as string | undefined
  if (strategies.length === 0 && r !== undefined) {
    if (r['x-kubernetes-list-type'] === 'set') strategies.push('merge')
    const keys = r['x-kubernetes-list-map-keys']
    if (r['x-kubernetes-list-type'] === 'map' && Array.isArray(keys) && keys.length === 1) {
      strategies.push('merge')
      mergeKey = keys[0]
    }
  }
  return { strategies, mergeKey }
}

const fail = (message: string): never => { throw badRequest(message) }

/** Applies a strategic merge patch to a copy of `current`, following `schema`'s markers. */
export function strategicMergePatch (current: Json, patch: unknown, schema: TSchema): Json {
  if (!isMap(patch)) throw badRequest('the body of a strategic merge patch must be a JSON object')
  return mergeMap(structuredClone(current), structuredClone(patch), schema as Schema)
}

function mergeMap (original: Json, patch: Json, schema: Schema): Json {
  const directive = patch[DIRECTIVE]
  if (directive !== undefined) {
    if (directive === 'replace') return stripDirectives(withoutKey(patch, DIRECTIVE)) as Json
    if (directive === 'delete') return {}
    if (directive !== 'merge') fail(`invalid patch type: ${JSON.stringify(directive)} in map: ${JSON.stringify(patch)}`)
    patch = withoutKey(patch, DIRECTIVE)
  }
  applyRetainKeys(original, patch)
  applySetElementOrder(original, patch, schema)

  for (const [rawKey, patchValue] of Object.entries(patch)) {
    let key = rawKey
    let deleteList = false
    if (rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = rawKey.slice(DELETE_FROM_PRIMITIVE_LIST.length)
      deleteList = true
      if (!Array.isArray(patchValue)) fail(`invalid patch: ${rawKey} must be a list of primitives`)
    }
    if (patchValue === null) { delete original[key]; continue }
    const has = Object.prototype.hasOwnProperty.call(original, key)
    if (!has) {
      if (!deleteList) setKey(original, key, stripDirectives(patchValue))
      continue
    }
    const originalValue = original[key]
    const sub = fieldSchema(schema, key)
    const meta = patchMeta(sub)
    if (deleteList) {
      if (Array.isArray(originalValue)) setKey(original, key, originalValue.filter(v => !(patchValue as unknown[]).some(d => primitiveEqual(d, v))))
      continue
    }
    if (isMap(originalValue) && isMap(patchValue)) {
      setKey(original, key, meta.strategies.includes('replace') ? stripDirectives(withoutKey(patchValue, DIRECTIVE)) : mergeMap(originalValue, patchValue, sub))
    } else if (Array.isArray(originalValue) && Array.isArray(patchValue)) {
      setKey(original, key, meta.strategies.includes('merge') ? mergeList(originalValue, patchValue, resolve(sub)?.items, meta.mergeKey) : stripDirectives(patchValue))
    } else {
      setKey(original, key, stripDirectives(patchValue))
    }
  }
  return original
}

function withoutKey (o: Json, key: string): Json {
  const out: Json = {}
  for (const [k, v] of Object.entries(o)) if (k !== key) setKey(out, k, v)
  return out
}

/**
 * Values added wholesale carry no directives into the stored object, nor nulls: a null for a key
 * the object does not have deletes nothing and is dropped (the reference's IgnoreUnmatchedNulls).
 */
function stripDirectives (v: unknown): unknown {
  if (Array.isArray(v)) return v.filter(e => !(isMap(e) && e[DIRECTIVE] !== undefined && Object.keys(e).length === 1)).map(stripDirectives)
  if (!isMap(v)) return v
  const out: Json = {}
  for (const [k, val] of Object.entries(v)) {
    if (val === null || k === DIRECTIVE || k === RETAIN_KEYS || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue
    setKey(out, k, stripDirectives(val))
  }
  return out
}

function applyRetainKeys (original: Json, patch: Json): void {
  if (!(RETAIN_KEYS in patch)) return
  const retain = patch[RETAIN_KEYS]
  delete patch[RETAIN_KEYS]
  if (!Array.isArray(retain)) return fail('invalid patch: $retainKeys must be a list of field names')
  const keep = new Set(retain)
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue
    if (!keep.has(k)) fail(`invalid patch: field "${k}" is not listed in $retainKeys`)
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k]
}

const primitiveEqual = (a: unknown, b: unknown): boolean => a === b

function keyOf (item: unknown, mergeKey: string | undefined): unknown {
  return mergeKey === undefined ? item : (isMap(item) ? item[mergeKey] : undefined)
}

const indexIn = (list: unknown[], item: unknown, mergeKey: string | undefined): number => {
  const k = keyOf(item, mergeKey)
  return list.findIndex(v => keyOf(v, mergeKey) === k)
}

function mergeList (original: unknown[], patch: unknown[], itemSchema: Schema, mergeKey: string | undefined): unknown[] {
  if (original.length === 0 && patch.length === 0) return original
  const maps = [...original, ...patch].some(isMap)
  let merged: unknown[]
  let patchItems = patch
  if (!maps) {
    merged = [...original]
    for (const v of patch) if (!merged.some(m => primitiveEqual(m, v))) merged.push(v)
  } else {
    if (mergeKey === undefined) return fail('cannot merge lists without merge key')
    let base = [...original]
    const plain: unknown[] = []
    let replace = false
    for (const item of patch) {
      if (!isMap(item)) return fail(`invalid patch: list element ${JSON.stringify(item)} is not a map`)
      const d = item[DIRECTIVE]
      if (d === undefined) { plain.push(item); continue }
      if (d === 'delete') {
        if (!(mergeKey in item)) fail(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`)
        base = base.filter(o => keyOf(o, mergeKey) !== item[mergeKey])
      } else if (d === 'replace') replace = true
      else if (d === 'merge') plain.push(withoutKey(item, DIRECTIVE))
      else fail(`invalid patch type: ${JSON.stringify(d)} in list element: ${JSON.stringify(item)}`)
    }
    if (replace) return stripDirectives(plain) as unknown[]
    merged = base
    for (const item of plain as Json[]) {
      if (!(mergeKey in item)) fail(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`)
      const i = indexIn(merged, item, mergeKey)
      if (i >= 0 && isMap(merged[i])) merged[i] = mergeMap(merged[i] as Json, item, itemSchema)
      else merged.push(stripDirectives(item))
    }
    patchItems = plain
  }
  return normalizeOrder(merged, patchItems, original, mergeKey)
}

/**
 * Items named in the patch come in the patch's order, the server's other items keep theirs,
 * and the two interleave by their positions in the live list (upstream's normalizeElementOrder).
 */
function normalizeOrder (merged: unknown[], order: unknown[], live: unknown[], mergeKey: string | undefined): unknown[] {
  const named = merged.filter(v => indexIn(order, v, mergeKey) >= 0)
  const serverOnly = merged.filter(v => indexIn(order, v, mergeKey) < 0)
  const byOrder = (list: unknown[], ord: unknown[]): unknown[] => list
    .map((v, i) => ({ v, i, at: indexIn(ord, v, mergeKey) }))
    .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : 0) || a.i - b.i)
    .map(x => x.v)
  const left = byOrder(serverOnly, live)
  const right = byOrder(named, order)
  const out: unknown[] = []
  let i = 0
  let j = 0
  while (i < left.length || j < right.length) {
    if (i >= left.length) { out.push(right[j++]); continue }
    if (j >= right.length) { out.push(left[i++]); continue }
    const li = indexIn(live, left[i], mergeKey)
    const ri = indexIn(live, right[j], mergeKey)
    if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++])
    else out.push(right[j++])
  }
  return out
}

/** $setElementOrder/<field>: merges that field's list now, then orders it by the given list. */
function applySetElementOrder (original: Json, patch: Json, schema: Schema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue
    const order = patch[key]
    delete patch[key]
    if (!Array.isArray(order)) return fail(`invalid patch: ${key} must be a list`)
    const field = key.slice(SET_ELEMENT_ORDER.length)
    const sub = fieldSchema(schema, field)
    const meta = patchMeta(sub)
    const had = Array.isArray(original[field])
    const inPatch = Array.isArray(patch[field])
    if (!had && !inPatch) continue
    const live = had ? original[field] as unknown[] : []
    let merged: unknown[]
    if (had && inPatch) merged = meta.strategies.includes('merge') ? mergeList(live, patch[field] as unknown[], resolve(sub)?.items, meta.mergeKey) : stripDirectives(patch[field]) as unknown[]
    else merged = had ? live : stripDirectives(patch[field]) as unknown[]
    setKey(original, field, normalizeOrder(merged, order, live, meta.mergeKey))
    delete patch[field]
  }
}
