// Field ownership (metadata.managedFields), as the reference field manager keeps it: an Apply
// entry per applier holds exactly what it last applied; an Update entry per manager, apiVersion
// and subresource gathers what its writes changed. Every write takes what it changes from the
// others; only an apply can fail for it (apply.ts).
import { isDeepStrictEqual } from 'node:util'
import type { AnyObject } from '../resources/define.js'
import type { FieldError } from '../resources/status.js'
import { FieldSet, fieldElement, type FieldPath } from './field-set.js'
import { compare, createdFields, shapeOf, type Comparison } from './typed-value.js'

type Schema = Record<string, any> | undefined

export interface ManagerInfo { manager: string, apiVersion: string, subresource: string, time: string }

/** One decoded entry. */
export interface Owner {
  manager: string
  operation: 'Apply' | 'Update'
  apiVersion: string
  subresource: string
  time?: string
  set: FieldSet
}

interface Entry { manager?: string, operation?: string, apiVersion?: string, time?: string, fieldsType?: string, fieldsV1?: unknown, subresource?: string }

/** Metadata the server sets: nobody owns it (the reference's stripped fields). */
const SERVER_METADATA = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'generation', 'managedFields', 'resourceVersion', 'deletionTimestamp', 'deletionGracePeriodSeconds']
const SERVER_ELEMENTS = SERVER_METADATA.map(fieldElement)
const [METADATA, API_VERSION, KIND, STATUS] = ['metadata', 'apiVersion', 'kind', 'status'].map(fieldElement) as [string, string, string, string]

/** An entry's identity: Apply entries are one per manager whatever the apiVersion. */
export const ownerKey = (o: Pick<Owner, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string =>
  JSON.stringify([o.manager, o.operation, o.operation === 'Apply' ? '' : o.apiVersion, o.subresource])

/** Entries as stored; undefined when they are malformed (the caller falls back to the live ones). */
export function decodeOwners (entries: unknown): Owner[] | undefined {
  if (entries === undefined || entries === null) return []
  if (!Array.isArray(entries)) return undefined
  const out: Owner[] = []
  for (const e of entries as Entry[]) {
    if (typeof e !== 'object' || e === null) return undefined
    const op = e.operation ?? ''
    if (op !== 'Apply' && op !== 'Update' && op !== '') return undefined
    if (e.fieldsType !== undefined && e.fieldsType !== 'FieldsV1') return undefined
    // One entry the reference cannot decode and it takes the live entries instead of the request's.
    const set = FieldSet.decodeFieldsV1(e.fieldsV1)
    if (set === undefined) return undefined
    out.push({
      manager: e.manager ?? '',
      operation: op === '' ? 'Update' : op,
      apiVersion: e.apiVersion ?? '',
      subresource: e.subresource ?? '',
      time: e.time,
      set
    })
  }
  return out
}

/** Entries to store: empty ones dropped, sorted as the reference sorts them (operation, time, manager). */
export function encodeOwners (owners: Owner[]): Entry[] | undefined {
  const kept = owners.filter(o => !o.set.empty())
  if (kept.length === 0) return undefined
  // One entry (every create) has no order to settle; the sort would still copy the array.
  if (kept.length > 1) kept.sort((a, b) => cmp(a.operation, b.operation) || seconds(a.time) - seconds(b.time) || cmp(a.manager, b.manager) ||
    cmp(a.apiVersion, b.apiVersion) || cmp(a.subresource, b.subresource))
  return kept.map(o => {
    const e: Entry = { manager: o.manager, operation: o.operation, apiVersion: o.apiVersion }
    if (o.time !== undefined) e.time = o.time
    e.fieldsType = 'FieldsV1'
    e.fieldsV1 = o.set.toFieldsV1()
    if (o.subresource !== '') e.subresource = o.subresource
    return e
  })
}

const cmp = (a: string, b: string): number => a < b ? -1 : a > b ? 1 : 0
/** An entry's time to the second, as the reference compares them. */
const seconds = (t?: string): number => t === undefined ? 0 : Math.floor(Date.parse(t) / 1000)

/**
 * What a write through `subresource` can own: never server-set metadata; through the main
 * resource of a kind with a status subresource not status; through status only status and the
 * metadata it does not reset (`resetMetadata`, the reference's reset fields).
 */
export function ownable (set: FieldSet, subresource: string, hasStatus: boolean, resetMetadata: readonly string[] = []): FieldSet {
  return restrictToOwnable(set.copy(), subresource, hasStatus, resetMetadata)
}

/** `ownable` in place, for sets the caller has just built. */
function restrictToOwnable (out: FieldSet, subresource: string, hasStatus: boolean, resetMetadata: readonly string[]): FieldSet {
  // Elements spelled once (SERVER_ELEMENTS): this runs on every write.
  const meta = out.children.get(METADATA)
  if (meta !== undefined) {
    for (const pe of SERVER_ELEMENTS) meta.deleteChild(pe)
    for (const f of resetMetadata) meta.deleteChild(fieldElement(f))
  }
  out.deleteChild(API_VERSION)
  out.deleteChild(KIND)
  if (subresource === '' && hasStatus) out.deleteChild(STATUS)
  if (subresource === 'status') {
    for (const pe of [...out.children.keys()]) if (pe !== STATUS && pe !== METADATA) out.deleteChild(pe)
  }
  return out
}

export const withoutManagedFields = (obj: AnyObject): AnyObject => {
  if (obj.metadata?.managedFields === undefined) return obj
  const { managedFields: _m, ...meta } = obj.metadata
  return { ...obj, metadata: meta }
}

/**
 * The object a create is compared with: the kind's empty object, whose top-level structs
 * (metadata, spec, status) exist already, as a typed empty object does in the reference.
 */
export function emptyObject (obj: AnyObject, schema: Schema): AnyObject {
  const base: AnyObject = {}
  const props = (schema?.properties ?? {}) as Record<string, Schema>
  for (const [k, v] of Object.entries(obj)) {
    const s = props[k]
    if (s === undefined) continue
    const shape = shapeOf(s, v)
    if (shape.kind === 'struct' && (shape.schema?.properties !== undefined) && typeof v === 'object' && v !== null && !Array.isArray(v)) base[k] = {}
  }
  return base
}

/** The changes a write made, limited to what its path can own. */
export function ownableChanges (before: AnyObject, after: AnyObject, schema: Schema, subresource: string, hasStatus: boolean, resetMetadata: readonly string[] = []): Comparison {
  const c = compare(withoutManagedFields(before), withoutManagedFields(after), schema)
  return {
    added: restrictToOwnable(c.added, subresource, hasStatus, resetMetadata),
    modified: restrictToOwnable(c.modified, subresource, hasStatus, resetMetadata),
    removed: restrictToOwnable(c.removed, subresource, hasStatus, resetMetadata)
  }
}

/**
 * Records a non-apply write in newObj.metadata.managedFields: the writer's Update entry gains
 * what the write changed, everybody loses what it changed or removed. Entries the request sets
 * itself (other than an empty list) replace the live ones; `[{}]` therefore clears them.
 */
export function recordManagedFields (newObj: AnyObject, oldObj: AnyObject | undefined, who: ManagerInfo, schema?: Schema, hasStatus = false, resetMetadata: readonly string[] = []): void {
  try {
    recordWrite(newObj, oldObj, who, schema, hasStatus, resetMetadata)
  } catch {
    // As the reference's UpdateNoErrors: a write is never refused for its bookkeeping (a list
    // item without its keys that validation let through); its record is dropped instead.
    delete newObj.metadata.managedFields
  }
}

function recordWrite (newObj: AnyObject, oldObj: AnyObject | undefined, who: ManagerInfo, schema: Schema, hasStatus: boolean, resetMetadata: readonly string[]): void {
  const incoming = sentEntries(newObj, oldObj)
  let owners: Owner[] | undefined
  if (incoming !== undefined) owners = decodeOwners(incoming)
  owners ??= decodeOwners(oldObj?.metadata?.managedFields) ?? []
  // A create changes what it sets and removes nothing: its set is built in one walk.
  const created = oldObj === undefined ? createdFields(withoutManagedFields(newObj), schema) : undefined
  let changed: FieldSet
  let removed: FieldSet | undefined
  if (created !== undefined) changed = restrictToOwnable(created, who.subresource, hasStatus, resetMetadata)
  else {
    const c = ownableChanges(oldObj ?? emptyObject(newObj, schema), newObj, schema, who.subresource, hasStatus, resetMetadata)
    changed = c.modified.union(c.added)
    removed = c.removed
  }
  for (const o of owners) o.set = removed === undefined ? o.set.difference(changed) : o.set.difference(changed).difference(removed)
  if (!changed.empty()) {
    const mine = { manager: who.manager, operation: 'Update' as const, apiVersion: who.apiVersion, subresource: who.subresource }
    const key = owners.length === 0 ? '' : ownerKey(mine)
    const previous = owners.length === 0 ? undefined : owners.find(o => ownerKey(o) === key)
    if (previous !== undefined) {
      previous.set = previous.set.union(changed)
      previous.time = who.time
    } else owners.push({ ...mine, time: who.time, set: changed })
  }
  setOwners(newObj, owners)
}

/** The entries a request sets itself, which replace the live ones: any but none, [] or the live ones again. */
function sentEntries (newObj: AnyObject, oldObj: AnyObject | undefined): unknown[] | undefined {
  const incoming: unknown = newObj.metadata?.managedFields
  return Array.isArray(incoming) && incoming.length > 0 && !isDeepStrictEqual(incoming, oldObj?.metadata?.managedFields) ? incoming : undefined
}

/**
 * What the reference's ValidateManagedFields refuses in entries a request sets (once its field
 * manager could decode them all): an operation other than Apply or Update, a fieldsType other
 * than FieldsV1. Entries owning nothing are dropped before validation, so `[{}]` still clears.
 */
export function sentEntryProblems (newObj: AnyObject, oldObj: AnyObject | undefined): FieldError[] {
  const sent = sentEntries(newObj, oldObj) as Entry[] | undefined
  if (sent === undefined || sent.some(e => typeof e !== 'object' || e === null || FieldSet.decodeFieldsV1(e.fieldsV1) === undefined)) return []
  const errors: FieldError[] = []
  sent.forEach((e, i) => {
    if (FieldSet.decodeFieldsV1(e.fieldsV1)!.empty()) return
    if (e.operation !== 'Apply' && e.operation !== 'Update') errors.push({ type: 'Invalid', field: `metadata.managedFields[${i}].operation`, value: e.operation ?? '', detail: 'must be `Apply` or `Update`' })
    if (e.fieldsType !== undefined && e.fieldsType !== '' && e.fieldsType !== 'FieldsV1') errors.push({ type: 'Invalid', field: `metadata.managedFields[${i}].fieldsType`, value: e.fieldsType, detail: 'must be `FieldsV1`' })
  })
  return errors
}

/** Update entries kept apart; older ones merge into one per apiVersion (the reference's cap). */
export const MAX_UPDATE_ENTRIES = 10
export const ANCIENT_CHANGES = 'ancient-changes'

/**
 * Past MAX_UPDATE_ENTRIES non-empty Update entries, the oldest are merged, per apiVersion, into
 * an `ancient-changes` entry carrying the time of the newest one merged.
 */
export function capUpdateEntries (owners: Owner[]): Owner[] {
  if (owners.length <= MAX_UPDATE_ENTRIES) return owners
  const updaters = owners.filter(o => o.operation === 'Update' && !o.set.empty())
  if (updaters.length <= MAX_UPDATE_ENTRIES) return owners
  updaters.sort((a, b) => seconds(a.time) - seconds(b.time) || cmp(ownerKey(a), ownerKey(b)))
  const live = new Map(owners.map(o => [ownerKey(o), o]))
  const firstOfVersion = new Map<string, Owner>()
  let count = updaters.length
  for (let i = 0; i < updaters.length && count > MAX_UPDATE_ENTRIES; i++) {
    const o = updaters[i]!
    const first = firstOfVersion.get(o.apiVersion)
    if (first === undefined) { firstOfVersion.set(o.apiVersion, o); continue }
    const key = ownerKey({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: o.apiVersion, subresource: '' })
    let bucket = live.get(key)
    if (bucket === undefined) {
      bucket = { manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: o.apiVersion, subresource: '', time: first.time, set: first.set }
      live.delete(ownerKey(first))
      live.set(key, bucket)
    }
    if (bucket === o) continue
    bucket.set = bucket.set.union(o.set)
    bucket.time = o.time
    live.delete(ownerKey(o))
    count--
  }
  return [...live.values()]
}

export function setOwners (obj: AnyObject, owners: Owner[]): void {
  const entries = encodeOwners(capUpdateEntries(owners))
  if (entries === undefined) delete obj.metadata.managedFields
  else obj.metadata.managedFields = entries
}

/** Paths of a set that lie under `prefix` (conflict reports). */
export function pathsOf (set: FieldSet): FieldPath[] { return set.paths() }

/** The manager name when the request gives none: the user agent's command name, as k8s does. */
export function defaultManager (userAgent: string | undefined): string {
  const name = (userAgent ?? '').split('/')[0]?.trim() ?? ''
  return name === '' ? 'unknown' : name.slice(0, 128)
}
