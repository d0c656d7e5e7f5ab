// Server-side apply (application/apply-patch+yaml): the applied configuration merged into the
// live object, fields its manager applied before and now leaves out removed, and conflicts with
// other managers refused unless forced. As the reference's structured-merge-diff Updater.Apply.
import { isDeepStrictEqual } from 'node:util'
import type { AnyObject, Resource } from '../resources/define.js'
import { ApiError, badRequest, type StatusCause } from '../resources/status.js'
import { ANNOTATIONS } from '../resources/naming.js'
import { pathString, type FieldPath, type FieldSet } from './field-set.js'
import { compare, mergeApplied, removeFields, toFieldSet } from './typed-value.js'
import { decodeOwners, emptyObject, ownable, ownableChanges, ownerKey, setOwners, withoutManagedFields, type ManagerInfo, type Owner } from './managed-fields.js'

/** The checks the reference makes of an apply body before merging it. */
export function checkApplyBody (body: unknown, r: Resource, alias?: string): AnyObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the object provided is unrecognized (must be of type ${r.kind})`)
  }
  const config = body as AnyObject
  const meta = config.metadata
  if (meta !== undefined && (typeof meta !== 'object' || meta === null || Array.isArray(meta))) throw badRequest('metadata must be an object')
  if (meta?.managedFields !== undefined && meta.managedFields !== null) throw badRequest('metadata.managedFields must be nil')
  if (alias !== undefined && config.apiVersion === alias) config.apiVersion = r.apiVersion
  if (config.apiVersion !== r.apiVersion) {
    throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${typeof config.apiVersion === 'string' ? config.apiVersion : ''}, expected: ${r.apiVersion}`)
  }
  if (config.kind !== r.kind) {
    throw badRequest(`Incorrect kind specified in apply patch. Specified patch kind: ${typeof config.kind === 'string' ? config.kind : ''}, expected: ${r.kind}`)
  }
  return config
}

export interface ApplyContext {
  resource: Resource
  who: ManagerInfo
  force: boolean
  hasStatus: boolean
  /** The metadata the subresource applied through keeps as stored. */
  resetMetadata?: readonly string[]
}

/**
 * The object an apply leaves, managedFields included; `live` undefined for a create. Throws
 * 409 with one FieldManagerConflict cause per field another manager owns and this apply
 * would change, unless forced (then the others lose those fields).
 */
export function applyConfiguration (live: AnyObject | undefined, config: AnyObject, ctx: ApplyContext): AnyObject {
  const schema = ctx.resource.schema as Record<string, any>
  const { who, hasStatus, resetMetadata } = ctx
  const owners = decodeOwners(live?.metadata?.managedFields) ?? []
  const before = live === undefined ? emptyObject(config, schema) : withoutManagedFields(live)
  const applied = ownable(toFieldSet(config, schema), who.subresource, hasStatus, resetMetadata)
  let merged = mergeApplied(before, config, schema) as AnyObject
  const mine = { manager: who.manager, operation: 'Apply' as const, apiVersion: who.apiVersion, subresource: who.subresource }
  const key = ownerKey(mine)
  const last = owners.find(o => ownerKey(o) === key)
  const applier: Owner = { ...mine, time: last?.time, set: applied }
  const others = owners.filter(o => o !== last)

  if (last !== undefined && !last.set.empty()) {
    // Prune what this manager applied last time and no longer does, unless somebody owns it.
    const everyone = others.reduce((acc, o) => acc.union(o.set), applied)
    const drop = last.set.difference(applied).difference(everyone)
    if (!drop.empty()) merged = removeFields(merged, drop, everyone, schema) as AnyObject
  }

  const c = ownableChanges(before, merged, schema, who.subresource, hasStatus, resetMetadata)
  const changed = c.modified.union(c.added)
  const conflicts: Array<{ owner: Owner, paths: FieldPath[] }> = []
  for (const o of others) {
    const clash = o.set.intersection(changed)
    if (!clash.empty()) conflicts.push({ owner: o, paths: clash.paths() })
  }
  if (conflicts.length > 0 && !ctx.force) {
    // kubectl taking over from its client-side apply may change what that apply set, as long
    // as nobody changed it since (the reference's last-applied manager).
    const allowed = who.manager === KUBECTL_MANAGER ? allowedByLastApplied(before, schema) : undefined
    const remaining = conflicts
      .map(({ owner, paths }) => ({ owner, paths: paths.filter(p => allowed === undefined || !allowed.has(p)) }))
      .filter(c => c.paths.length > 0)
    if (remaining.length > 0) throw applyConflict(remaining)
  }
  for (const o of others) o.set = o.set.difference(changed).difference(c.removed)

  const changedObject = !isDeepStrictEqual(before, merged)
  if (changedObject || applier.time === undefined) applier.time = who.time
  merged.metadata = { ...(merged.metadata ?? {}) }
  syncLastApplied(merged, config, who.manager)
  setOwners(merged, [...others, applier])
  return merged
}

/** kubectl's own manager name: its server-side applies keep a client-side annotation current. */
const KUBECTL_MANAGER = 'kubectl'

/**
 * As the reference does, a server-side apply by kubectl rewrites the last-applied annotation
 * that client-side apply left, so that going back to client-side apply stays possible.
 */
function syncLastApplied (merged: AnyObject, config: AnyObject, manager: string): void {
  const key = ANNOTATIONS.lastAppliedConfiguration
  const annotations = merged.metadata.annotations as Record<string, string> | undefined
  if (manager !== KUBECTL_MANAGER || annotations?.[key] === undefined) return
  const copy = structuredClone(config)
  if (copy.metadata?.annotations !== undefined && copy.metadata.annotations !== null) {
    delete copy.metadata.annotations[key]
    if (Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations
  }
  merged.metadata.annotations = { ...annotations, [key]: JSON.stringify(sortedKeys(copy)) + '\n' }
}

/** Keys in byte order at every level, as the reference encodes an unstructured object. */
function sortedKeys (v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys)
  if (typeof v !== 'object' || v === null) return v
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(v).sort()) Object.defineProperty(out, k, { value: sortedKeys((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true })
  return out
}

/**
 * The fields of kubectl's last-applied annotation when the live object still holds every value
 * it names; undefined when there is no annotation or it no longer matches.
 */
function allowedByLastApplied (live: AnyObject, schema: Record<string, any>): FieldSet | undefined {
  const text = (live.metadata?.annotations as Record<string, string> | undefined)?.[ANNOTATIONS.lastAppliedConfiguration]
  if (text === undefined || text === '') return undefined
  let lastApplied: unknown
  try { lastApplied = JSON.parse(text) } catch { return undefined }
  if (typeof lastApplied !== 'object' || lastApplied === null || Array.isArray(lastApplied)) return undefined
  try {
    if (!compare(lastApplied, live, schema).modified.empty()) return undefined
    return toFieldSet(lastApplied, schema)
  } catch {
    return undefined
  }
}

/** How the reference names a manager in conflict messages. */
function printManager (o: Owner): string {
  let s = JSON.stringify(o.manager)
  if (o.subresource !== '') s += ` with subresource ${JSON.stringify(o.subresource)}`
  if (o.operation === 'Update') s += ` using ${o.apiVersion}`
  return s
}

function applyConflict (conflicts: Array<{ owner: Owner, paths: FieldPath[] }>): ApiError {
  const causes: StatusCause[] = []
  for (const { owner, paths } of conflicts) {
    for (const p of paths) causes.push({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(owner)}`, field: pathString(p) })
  }
  let message: string
  if (causes.length === 1) {
    message = `Apply failed with 1 conflict: ${causes[0]!.message!}: ${causes[0]!.field!}`
  } else {
    const byManager = new Map<string, string[]>()
    for (const { owner, paths } of conflicts) {
      const name = printManager(owner)
      byManager.set(name, [...(byManager.get(name) ?? []), ...paths.map(pathString)])
    }
    const lines: string[] = []
    for (const name of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${name}:`)
      for (const p of byManager.get(name)!) lines.push(`- ${p}`)
    }
    message = `Apply failed with ${causes.length} conflicts: ${lines.join('\n')}`
  }
  return new ApiError(409, 'Conflict', message, { causes })
}
