// The write verbs: create, update, patch and server-side apply, the body read in the path's form
// and written in the stored one.
import { ApiError, badRequest, unsupportedMediaType } from '../../resources/status.js'
import type { AnyObject } from '../../resources/define.js'
import { applyPatch, PATCH_TYPES, type PatchType } from '../../machinery/patch.js'
import { serverSideApply } from './apply-request.js'
import { sendDocument, sendObject } from './encode.js'
import { parseWriteOptions, type WriteOptions } from './options.js'
import { checkDuplicates, decodeBody, decodeRequestObject, DEPTH_ERROR, mediaType } from './request-body.js'
import { callerOf, relay, type RestCall } from './rest-call.js'
import { answerJson, decodeServed, servedObject, toStored } from './served-form.js'
import type { Caller } from './store.js'
import { checkTypeMeta } from './type-meta.js'
import { convertsOutOfProcess, inPathVersion, inStoredVersion } from './version-conversion.js'

/** How often a patch through a converting webhook is tried again when the object changed meanwhile. */
const PATCH_ATTEMPTS = 8

export async function create (call: RestCall): Promise<unknown> {
  const o = parseWriteOptions(call.query, 'CreateOptions')
  const c = callerOf(call, o.fieldManager)
  const decoded = decodeServed(call, call.served.kind)
  const name = (decoded.metadata as AnyObject | undefined)?.name ?? ''
  checkDuplicates(call.request, o.fieldValidation, c, false)
  const outOfProcess = convertsOutOfProcess(call)
  const body = outOfProcess ? await inStoredVersion(call, decoded) : toStored(call, decoded, o.fieldValidation, c, name)
  const created = await call.store.create(call.namespace, body, o, c)
  relay(call.reply, c)
  return sendObject(call.reply, 201, call.served, await answerOf(call, created.json, outOfProcess), call.enc)
}

/** A stored object's JSON as the path's version answers it. */
async function answerOf (call: RestCall, json: string, outOfProcess = convertsOutOfProcess(call)): Promise<string> {
  return outOfProcess ? (await inPathVersion(call, [json]))[0]! : answerJson(call, json)
}

/** POST on a named object's subresource: the kind answers a request object (a token for a service account). */
export async function createOnSubresource (call: RestCall): Promise<unknown> {
  const o = parseWriteOptions(call.query, 'CreateOptions')
  const c = callerOf(call, o.fieldManager)
  const requestKind = call.stored.subresources[call.subresource]!.requestKind
  const body = requestKind === undefined ? decodeServed(call, call.stored.kind) : decodeRequestObject(call.request, requestKind.kind, requestKind.apiVersion, requestKind.alsoAccepted)
  if (requestKind !== undefined) {
    const other = typeof body.apiVersion === 'string' && requestKind.alsoAccepted?.includes(body.apiVersion) === true
    checkTypeMeta(body, other ? { apiVersion: body.apiVersion, kind: requestKind.kind } : requestKind)
  }
  if (call.stored.subresources[call.subresource]!.changeParent !== undefined) {
    await call.store.changeThroughSubresource(call.namespace, call.info.name, call.subresource, body, o, c)
    relay(call.reply, c)
    return sendDocument(call.reply, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }, call.enc)
  }
  const answer = await call.store.createOnSubresource(call.namespace, call.info.name, call.subresource, body, o, c)
  relay(call.reply, c)
  return sendDocument(call.reply, 201, answer, call.enc)
}

export async function update (call: RestCall): Promise<unknown> {
  const o = parseWriteOptions(call.query, 'UpdateOptions')
  const c = callerOf(call, o.fieldManager)
  // Decoded first: the duplicate scan expects a body that parses.
  const decoded = decodeServed(call, call.served.kind)
  checkDuplicates(call.request, o.fieldValidation, c, false)
  const outOfProcess = convertsOutOfProcess(call)
  const body = outOfProcess ? await inStoredVersion(call, decoded) : toStored(call, decoded, o.fieldValidation, c, call.info.name)
  const result = await call.store.update(call.namespace, call.info.name, () => body, { ...o, subresource: call.subresource, createBody: body }, c)
  relay(call.reply, c)
  return sendObject(call.reply, result.created ? 201 : 200, call.served, await answerOf(call, result.json, outOfProcess), call.enc)
}

/** PATCH in any of its types; an apply patch is server-side apply. */
export async function patch (call: RestCall): Promise<unknown> {
  const type = mediaType(call.request)
  const patchType = PATCH_TYPES[type]
  const served = call.served.strategicMerge === false ? Object.keys(PATCH_TYPES).filter(t => PATCH_TYPES[t] !== 'strategic') : Object.keys(PATCH_TYPES)
  if (patchType === undefined || !served.includes(type)) throw unsupportedMediaType(type, served)
  const o = parseWriteOptions(call.query, 'PatchOptions', patchType === 'apply')
  const c = callerOf(call, o.fieldManager)
  const document = decodeBody(call.request, [type], () => badRequest(`error decoding patch: ${DEPTH_ERROR}`))
  checkDuplicates(call.request, o.fieldValidation, c, true, patchType !== 'apply')
  if (patchType === 'apply') return await apply(call, o, c, document)
  if (convertsOutOfProcess(call)) return await patchThroughConversion(call, patchType, o, c, document)
  return await mergePatch(call, patchType, o, c, document)
}

async function apply (call: RestCall, o: WriteOptions, c: Caller, patch: unknown): Promise<unknown> {
  const { converted, alias } = call
  // Through another group's form the applied configuration is converted first: field
  // ownership is recorded in the stored form's names.
  const isObject = typeof patch === 'object' && patch !== null && !Array.isArray(patch)
  const outOfProcess = convertsOutOfProcess(call)
  let body = patch
  // Field ownership is recorded in the stored form's names: the configuration is converted first.
  if (isObject && outOfProcess && (patch as AnyObject).apiVersion === alias) body = await inStoredVersion(call, { ...(patch as AnyObject), apiVersion: undefined })
  else if (isObject && converted !== undefined) body = toStored(call, (patch as AnyObject).apiVersion === alias ? { ...(patch as AnyObject), apiVersion: call.served.apiVersion } : patch as AnyObject, o.fieldValidation, c, call.info.name)
  const result = await serverSideApply(call.store, { namespace: call.namespace, name: call.info.name, subresource: call.subresource, body, alias: converted === undefined && !outOfProcess ? alias : undefined, options: o, caller: c })
  relay(call.reply, c)
  return sendObject(call.reply, result.created ? 201 : 200, call.served, await answerOf(call, result.json, outOfProcess), call.enc)
}

/**
 * A JSON or merge patch through a version the kind's webhook converts: applied to the object as
 * that version shows it, then converted back. The conversions happen outside the store's
 * read-modify-write, so a patch without its own resourceVersion retries when the object changed
 * in between, as an unconditional update does.
 */
async function patchThroughConversion (call: RestCall, patchType: Exclude<PatchType, 'apply'>, o: WriteOptions, c: Caller, patch: unknown): Promise<unknown> {
  const conditional = mentionsResourceVersion(patch)
  for (let attempt = 1; ; attempt++) {
    const current = await call.store.get(call.namespace, call.info.name)
    const old = JSON.parse((await inPathVersion(call, [current.json]))[0]!) as AnyObject
    const patched = applyPatch(patchType, old, patch, call.served.schema)
    const body = await inStoredVersion(call, { ...patched, apiVersion: patched.apiVersion === call.alias ? undefined : patched.apiVersion })
    if (!conditional) body.metadata = { ...body.metadata, resourceVersion: old.metadata.resourceVersion }
    try {
      const result = await call.store.update(call.namespace, call.info.name, () => body, { ...o, subresource: call.subresource }, c)
      relay(call.reply, c)
      return sendObject(call.reply, 200, call.served, await answerOf(call, result.json, true), call.enc)
    } catch (err) {
      if (conditional || !(err instanceof ApiError && err.code === 409 && err.status.reason === 'Conflict') || attempt >= PATCH_ATTEMPTS) throw err
    }
  }
}

async function mergePatch (call: RestCall, patchType: Exclude<PatchType, 'apply'>, o: WriteOptions, c: Caller, patch: unknown): Promise<unknown> {
  const result = await call.store.update(call.namespace, call.info.name, (stored) => {
    // A patch through another group's form applies to the object in that form.
    const old = servedObject(call, stored)
    const patchedForm = applyPatch(patchType, old, patch, call.served.schema)
    const patched = call.converted === undefined ? patchedForm : toStored(call, patchedForm, o.fieldValidation, c, call.info.name)
    // A patch that names no resourceVersion is unconditional, whatever the stored one is.
    if ((patched.metadata as AnyObject | undefined)?.resourceVersion === old.metadata.resourceVersion && !mentionsResourceVersion(patch)) {
      delete (patched.metadata as AnyObject).resourceVersion
    }
    return patched
  }, { ...o, subresource: call.subresource }, c)
  relay(call.reply, c)
  return sendObject(call.reply, 200, call.served, answerJson(call, result.json), call.enc)
}

/** Whether a patch document sets metadata.resourceVersion itself (a precondition). */
export function mentionsResourceVersion (patch: unknown): boolean {
  if (Array.isArray(patch)) return patch.some(op => typeof op?.path === 'string' && op.path === '/metadata/resourceVersion')
  const meta = (patch as AnyObject | null)?.metadata
  return typeof meta === 'object' && meta !== null && 'resourceVersion' in meta
}
