// The verbs of a subresource served as another kind (a Scale): the parent read and answered as
// its view, and a view written (or a patch applied to the current view) stored into the parent.
import type { AnyObject, SubresourceView } from '../../resources/define.js'
import { badRequest, unsupportedMediaType } from '../../resources/status.js'
import { applyPatch, PATCH_TYPES, type PatchType } from '../../machinery/patch.js'
import { sendDocument } from './encode.js'
import { parseWriteOptions, type WriteOptions } from './options.js'
import { decodeBody, decodeRequestObject, DEPTH_ERROR, mediaType } from './request-body.js'
import { callerOf, relay, type RestCall } from './rest-call.js'
import { checkTypeMeta } from './type-meta.js'
import type { Caller } from './store.js'
import { mentionsResourceVersion } from './write-verbs.js'
import { serverSideApply } from './apply-request.js'

const viewOf = (call: RestCall): SubresourceView => call.stored.subresources[call.subresource]!.view!

export async function getView (call: RestCall): Promise<unknown> {
  const found = await call.store.get(call.namespace, call.info.name, (call.query.resourceVersion as string | undefined) ?? undefined)
  return sendDocument(call.reply, 200, viewOf(call).toView(JSON.parse(found.json) as AnyObject), call.enc)
}

export async function updateView (call: RestCall): Promise<unknown> {
  const o = parseWriteOptions(call.query, 'UpdateOptions')
  const c = callerOf(call, o.fieldManager)
  const view = viewOf(call)
  const body = decodeRequestObject(call.request, view.kind, view.apiVersion)
  checkTypeMeta(body, view)
  return await writeView(call, o, c, () => body)
}

export async function patchView (call: RestCall): Promise<unknown> {
  const type = mediaType(call.request)
  const view = viewOf(call)
  // A view has no lists to merge by key: a strategic merge patch merges it as a merge patch does
  // (refused where the parent takes none, a custom resource's); an apply patch is applied to the
  // parent, its fields owned there.
  const served = Object.keys(PATCH_TYPES).filter(t => PATCH_TYPES[t] !== 'strategic' || call.stored.strategicMerge !== false)
  if (!served.includes(type)) throw unsupportedMediaType(type, served)
  const o = parseWriteOptions(call.query, 'PatchOptions', PATCH_TYPES[type] === 'apply')
  const c = callerOf(call, o.fieldManager)
  const patch = decodeBody(call.request, [type], () => badRequest(`error decoding patch: ${DEPTH_ERROR}`))
  if (PATCH_TYPES[type] === 'apply') return await applyView(call, o, c, patch)
  return await writeView(call, o, c, (current) => {
    const patched = applyPatch(PATCH_TYPES[type] as Exclude<PatchType, 'apply'>, current, patch, { type: 'object' } as never)
    checkTypeMeta(patched, view)
    // A patch naming no resourceVersion is unconditional.
    if (!mentionsResourceVersion(patch)) delete (patched.metadata as AnyObject | undefined)?.resourceVersion
    return patched
  })
}

/** Stores the view `next` makes of the current one into the parent; answers the view stored. */
async function writeView (call: RestCall, o: WriteOptions, c: Caller, next: (current: AnyObject) => AnyObject): Promise<unknown> {
  const view = viewOf(call)
  const result = await call.store.update(call.namespace, call.info.name, (parent) => {
    const written = next(view.toView(parent))
    const updated = view.fromView(written, parent)
    const rv = (written.metadata as AnyObject | undefined)?.resourceVersion
    updated.metadata = { ...updated.metadata }
    if (typeof rv === 'string' && rv !== '') updated.metadata.resourceVersion = rv
    else delete updated.metadata.resourceVersion
    return updated
  }, { ...o, subresource: call.subresource }, c)
  relay(call.reply, c)
  return sendDocument(call.reply, 200, view.toView(JSON.parse(result.json) as AnyObject), call.enc)
}

/**
 * Server-side apply of a view (a Scale): the configuration's fields written into a configuration
 * of the parent, which is applied through the subresource, so the manager owns the parent's
 * fields the view stands for (`spec.replicas` at the definition's path), as the reference maps
 * a Scale's managed fields onto its parent.
 */
async function applyView (call: RestCall, o: WriteOptions, c: Caller, patch: unknown): Promise<unknown> {
  const view = viewOf(call)
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw badRequest(`the object provided is unrecognized (must be of type ${view.kind})`)
  const config = patch as AnyObject
  checkTypeMeta(config, view)
  const { stored } = call
  const skeleton: AnyObject = { apiVersion: stored.apiVersion, kind: stored.kind, metadata: { name: call.info.name, ...(stored.namespaced ? { namespace: call.namespace } : {}) } }
  // A configuration without spec.replicas owns nothing of the parent's.
  const parentConfig = config.spec?.replicas === undefined ? skeleton : view.fromView(config, skeleton)
  const result = await serverSideApply(call.store, { namespace: call.namespace, name: call.info.name, subresource: call.subresource, body: parentConfig, options: o, caller: c })
  relay(call.reply, c)
  return sendDocument(call.reply, 200, view.toView(JSON.parse(result.json) as AnyObject), call.enc)
}
