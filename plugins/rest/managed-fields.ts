// Field ownership records (metadata.managedFields): which manager last set which fields.
// Lists are owned whole (atomic); server-side apply's finer list semantics are not modelled here.
import type { AnyObject } from '../../resources/define.js'

type FieldSet = Record<string, unknown>
interface Entry { manager?: string, operation?: string, apiVersion?: string, time?: string, fieldsType?: string, fieldsV1?: FieldSet, subresource?: string }

const SYSTEM_META = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink', 'generateName'])
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Leaf paths (as key arrays) of every field set in the object, skipping server-owned metadata. */
function leaves (value: unknown, path: string[], out: string[][], atRoot: boolean): void {
  if (!isObject(value) || (Object.keys(value).length === 0 && path.length > 0)) { out.push(path); return }
  for (const key of Object.keys(value)) {
    if (atRoot && (key === 'apiVersion' || key === 'kind')) continue
    if (path.length === 1 && path[0] === 'metadata' && SYSTEM_META.has(key)) continue
    leaves(value[key], [...path, key], out, false)
  }
}

/** The field set of every field in `obj`: what toFieldSet(leaves(obj)) builds, without the paths. */
function fieldSetOf (obj: Record<string, unknown>, atRoot: boolean, isMetadata: boolean): FieldSet | undefined {
  let set: FieldSet | undefined
  for (const key of Object.keys(obj)) {
    if (atRoot && (key === 'apiVersion' || key === 'kind')) continue
    if (isMetadata && SYSTEM_META.has(key)) continue
    const value = obj[key]
    let child: FieldSet | undefined = {}
    if (isObject(value) && Object.keys(value).length > 0) {
      child = fieldSetOf(value, false, atRoot && key === 'metadata')
      if (child === undefined) continue
    }
    set ??= {}
    set[`f:${key}`] = child
  }
  return set
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)
const at = (obj: unknown, path: string[]): unknown => path.reduce<unknown>((o, k) => isObject(o) ? o[k] : undefined, obj)

function toFieldSet (paths: string[][]): FieldSet {
  const root: FieldSet = {}
  for (const p of paths) {
    let node = root
    for (const k of p) {
      const f = `f:${k}`
      if (!isObject(node[f])) Object.defineProperty(node, f, { value: {}, enumerable: true, writable: true, configurable: true })
      node = node[f] as FieldSet
    }
  }
  return root
}

function fromFieldSet (set: FieldSet | undefined, prefix: string[] = [], out: string[][] = []): string[][] {
  if (set === undefined) return out
  const keys = Object.keys(set).filter(k => k.startsWith('f:'))
  if (keys.length === 0 && prefix.length > 0) out.push(prefix)
  for (const k of keys) fromFieldSet(set[k] as FieldSet, [...prefix, k.slice(2)], out)
  return out
}

const key = (p: string[]): string => JSON.stringify(p)

export interface ManagerInfo { manager: string, apiVersion: string, subresource: string, time: string }

/**
 * Records a write by `who` in newObj.metadata.managedFields: it owns what it changed (everything
 * on create), and other managers lose those fields. A body managedFields of `[{}]` resets them.
 */
export function recordManagedFields (newObj: AnyObject, oldObj: AnyObject | undefined, who: ManagerInfo): void {
  const incoming = newObj.metadata?.managedFields as Entry[] | undefined
  const reset = Array.isArray(incoming) && incoming.length === 1 && Object.keys(incoming[0] ?? {}).length === 0
  const previous: Entry[] = reset ? [] : ((oldObj?.metadata?.managedFields as Entry[] | undefined) ?? (oldObj === undefined ? incoming ?? [] : []))
  if (oldObj === undefined && !reset && previous.length === 0) {
    // A plain create: the writer owns every field, and nobody else is left to lose any.
    const fields = fieldSetOf(newObj, true, false)
    if (fields === undefined) {
      delete newObj.metadata.managedFields
      return
    }
    const entry: Entry = { manager: who.manager, operation: 'Update', apiVersion: who.apiVersion, time: who.time, fieldsType: 'FieldsV1', fieldsV1: fields }
    if (who.subresource !== '') entry.subresource = who.subresource
    newObj.metadata.managedFields = [entry]
    return
  }
  const newLeaves: string[][] = []
  leaves(newObj, [], newLeaves, true)
  const changed = oldObj === undefined || reset
    ? newLeaves
    : newLeaves.filter(p => !same(at(newObj, p), at(oldObj, p)))
  const removed = oldObj === undefined ? [] : (() => { const o: string[][] = []; leaves(oldObj, [], o, true); return o.filter(p => at(newObj, p) === undefined) })()
  const touched = new Set([...changed, ...removed].map(key))
  const entries: Entry[] = []
  let mine: Entry | undefined
  for (const e of previous) {
    const isMine = e.manager === who.manager && e.operation === 'Update' && (e.subresource ?? '') === who.subresource
    const kept = fromFieldSet(e.fieldsV1).filter(p => !touched.has(key(p)) && at(newObj, p) !== undefined)
    if (isMine) { mine = { ...e, fieldsV1: toFieldSet(kept) }; continue }
    if (kept.length > 0) entries.push({ ...e, fieldsV1: toFieldSet(kept) })
  }
  if (changed.length === 0 && mine === undefined && !reset) {
    newObj.metadata.managedFields = entries.length > 0 ? entries : undefined
    if (newObj.metadata.managedFields === undefined) delete newObj.metadata.managedFields
    return
  }
  const owned = [...fromFieldSet(mine?.fieldsV1), ...changed]
  const entry: Entry = { manager: who.manager, operation: 'Update', apiVersion: who.apiVersion, time: changed.length > 0 || mine?.time === undefined ? who.time : mine.time, fieldsType: 'FieldsV1', fieldsV1: toFieldSet(owned) }
  if (who.subresource !== '') entry.subresource = who.subresource
  entries.push(entry)
  newObj.metadata.managedFields = entries
}

/** The manager name when the request gives none: the user agent's command name, as k8s does. */
export function defaultManager (userAgent: string | undefined): string {
  const name = (userAgent ?? '').split('/')[0]?.trim() ?? ''
  return name === '' ? 'unknown' : name.slice(0, 128)
}
