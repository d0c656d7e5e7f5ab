// The metadata a write may not choose, settled after mutating admission and before anything is
// checked or stored, as the reference's generic store and rest.BeforeCreate / BeforeUpdate do:
// whatever a webhook returns, the stored object's key, name, namespace, uid and timestamps agree
// and are the server's, or the request fails with nothing written.
import { randomUUID } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import { badRequest, conflict, invalid, OPTIMISTIC_LOCK_MESSAGE } from '../../resources/status.js'
import { fieldError, type AnyObject, type FieldError, type RequestContext, type Resource } from '../../resources/define.js'
import { randomNameSuffix } from '../../resources/meta.js'
import { decodedMetadata } from './object-identity.js'

/** Metadata the server sets on create, whatever the client or admission sent. */
const SERVER_SET_ON_CREATE = ['uid', 'resourceVersion', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink', 'generation', 'creationTimestamp']

const NAMESPACE_MISMATCH = 'the namespace of the provided object does not match the namespace sent on the request'

/**
 * The request's namespace on the object (ValidNamespace): a namespaced object's empty one
 * becomes the request's, another is refused; a cluster-scoped object has none.
 */
export function placeInNamespace (resource: Resource, meta: AnyObject, namespace: string): void {
  if (!resource.namespaced) {
    delete meta.namespace
    return
  }
  if (meta.namespace !== undefined && meta.namespace !== null && meta.namespace !== '' && meta.namespace !== namespace) throw badRequest(NAMESPACE_MISMATCH)
  meta.namespace = namespace
}

/** Before admission: what the client may not set on a create is gone, so webhooks never see it as the server's. */
export function clearServerSetMetadata (meta: AnyObject): void {
  for (const f of SERVER_SET_ON_CREATE) delete meta[f]
}

/**
 * After mutating admission on create: the namespace checked again, the server's uid and
 * timestamps set over anything admission wrote, and a generateName turned into a name (the
 * webhooks saw none, as upstream). Returns whether the name was generated.
 */
export function settleCreatedMetadata (resource: Resource, obj: AnyObject, namespace: string, now: string): boolean {
  const meta = obj.metadata = decodedMetadata(resource, obj.metadata)
  placeInNamespace(resource, meta, namespace)
  clearServerSetMetadata(meta)
  meta.uid = randomUUID()
  meta.creationTimestamp = now
  if (resource.generation) meta.generation = 1
  const generated = (meta.name === undefined || meta.name === null || meta.name === '') && typeof meta.generateName === 'string' && meta.generateName !== ''
  if (generated) meta.name = `${meta.generateName as string}${randomNameSuffix()}`
  return generated
}

/**
 * After mutating admission on update: a resourceVersion other than the stored one is a
 * conflict (one removed makes the write unconditional); the namespace is the request's; name,
 * uid, deletionTimestamp and deletionGracePeriodSeconds may not change (422, field is
 * immutable); creationTimestamp and generation stay the stored ones.
 */
export function settleUpdatedMetadata (resource: Resource, obj: AnyObject, old: AnyObject, namespace: string, gr: { group: string, resource: string }): void {
  const meta = obj.metadata = decodedMetadata(resource, obj.metadata)
  const was = old.metadata as AnyObject
  const name = String(was.name)
  if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' && meta.resourceVersion !== was.resourceVersion) {
    throw conflict(gr, name, OPTIMISTIC_LOCK_MESSAGE)
  }
  meta.resourceVersion = was.resourceVersion
  placeInNamespace(resource, meta, namespace)
  if (meta.uid === undefined || meta.uid === null || meta.uid === '') meta.uid = was.uid
  keepStored(meta, was, 'creationTimestamp')
  keepStored(meta, was, 'generation')
  // An update never removes or moves a deletion already under way; it cannot start one either.
  if (was.deletionTimestamp !== undefined) meta.deletionTimestamp = was.deletionTimestamp
  if (was.deletionGracePeriodSeconds !== undefined && (meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds === null)) {
    meta.deletionGracePeriodSeconds = was.deletionGracePeriodSeconds
  }
  const errors: FieldError[] = []
  for (const field of ['name', 'uid', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
    const value = meta[field] ?? undefined
    if (!isDeepStrictEqual(value, was[field])) errors.push(fieldError('Invalid', `metadata.${field}`, value ?? null, 'field is immutable'))
  }
  if (meta.deletionGracePeriodSeconds === undefined) delete meta.deletionGracePeriodSeconds
  if (meta.deletionTimestamp === undefined) delete meta.deletionTimestamp
  if (errors.length > 0) throw invalid({ group: resource.group, kind: resource.kind }, typeof meta.name === 'string' && meta.name !== '' ? meta.name : name, errors)
}

function keepStored (meta: AnyObject, was: AnyObject, field: string): void {
  if (was[field] === undefined) delete meta[field]
  else meta[field] = was[field]
}

/**
 * What the write's path does not own, as stored (the strategies' PrepareForUpdate, after
 * admission): through the main resource the status; through a subresource everything its
 * merge does not take, and the metadata it resets.
 */
export function keepUnowned (resource: Resource, obj: AnyObject, old: AnyObject, subresource: string, ctx: RequestContext): AnyObject {
  const metadata = decodedMetadata(resource, obj.metadata)
  if (subresource === '') {
    if (resource.subresources.status !== undefined) {
      if (old.status === undefined) delete obj.status
      else obj.status = old.status
    }
    obj.metadata = metadata
    return obj
  }
  const def = resource.subresources[subresource]!
  const merged = def.merge!(obj, old, ctx)
  const kept = { ...metadata }
  for (const f of def.resetMetadata ?? []) keepStored(kept, old.metadata, f)
  return { ...merged, metadata: kept }
}

/** The current time to the second, as metadata timestamps spell it; formatted once a second. */
export const now = (): string => {
  const second = Math.floor(Date.now() / 1000)
  if (second !== nowCache.second) nowCache = { second, text: new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') }
  return nowCache.text
}
let nowCache = { second: -1, text: '' }
