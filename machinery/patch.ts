// Patch forms applied to the stored object: JSON Patch (RFC 6902), JSON Merge Patch (RFC 7386)
// and strategic merge patch (strategic-merge.ts).
import jsonpatch from 'fast-json-patch'
import { ApiError, badRequest, invalid } from '../resources/status.js'
import { MEDIA_TYPES } from '../resources/naming.js'
import type { TSchema } from '@sinclair/typebox'
import { strategicMergePatch } from './strategic-merge.js'
import { firstUndecodable } from './schema-check.js'

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply'

/** Every patch media type PATCH accepts; apply patches are server-side apply (apply.ts). */
export const PATCH_TYPES: Record<string, PatchType> = {
  [MEDIA_TYPES.jsonPatch]: 'json',
  [MEDIA_TYPES.mergePatch]: 'merge',
  [MEDIA_TYPES.strategicMergePatch]: 'strategic',
  [MEDIA_TYPES.applyPatch]: 'apply'
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** RFC 7386: null deletes, objects merge, everything else replaces. */
export function mergePatch (target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {}
  for (const key of Object.keys(patch)) {
    const value = patch[key]
    if (value === null) delete out[key]
    else Object.defineProperty(out, key, { value: mergePatch(out[key], value), enumerable: true, writable: true, configurable: true })
  }
  return out
}

/**
 * Applies a parsed patch document to a copy of `current`. A result the reference's decoder
 * would refuse is its patch handler's 422 on the field `patch`, whose value is the patched
 * object (the patch itself for a strategic merge patch), never the create decoder's 400.
 */
export function applyPatch (type: Exclude<PatchType, 'apply'>, current: Record<string, unknown>, patch: unknown, schema: TSchema): Record<string, unknown> {
  const patched = patchedObject(type, current, patch, schema)
  const undecodable = firstUndecodable(schema as Record<string, any>, patched)
  if (undecodable !== undefined) {
    throw invalid({ group: '', kind: '' }, '', [{ type: 'Invalid', field: 'patch', value: JSON.stringify(type === 'strategic' ? patch : patched), detail: undecodable }])
  }
  return patched
}

function patchedObject (type: Exclude<PatchType, 'apply'>, current: Record<string, unknown>, patch: unknown, schema: TSchema): Record<string, unknown> {
  if (type === 'strategic') return strategicMergePatch(current, patch, schema)
  if (type === 'merge') {
    if (!isObject(patch)) throw badRequest('the body of a merge patch must be a JSON object')
    return mergePatch(current, patch) as Record<string, unknown>
  }
  if (!Array.isArray(patch)) throw badRequest('the body of a JSON patch must be a JSON array of operations')
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`)
  }
  // An operation the library finds malformed (unknown op, a path without its slash, no value)
  // is, as in the reference, a patch that does not apply: its generic 422, never the library's text.
  if (jsonpatch.validate(patch as jsonpatch.Operation[], undefined) !== undefined) throw doesNotApply()
  return applyJsonPatch(structuredClone(current), patch as jsonpatch.Operation[])
}

/** The reference server's bounds on a JSON patch: its operations, and what its copies may add. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024

/**
 * A JSON patch that does not apply, as the reference server answers it (a generic 422 whose
 * message says nothing of the document: no JavaScript error text reaches the client).
 */
const doesNotApply = (): ApiError => new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {})

/** Applies operations one at a time, weighing each copy before it runs. */
function applyJsonPatch (doc: Record<string, unknown>, ops: jsonpatch.Operation[]): Record<string, unknown> {
  let copied = 0
  let result: unknown = doc
  for (const op of ops) {
    try {
      if (op.op === 'copy') {
        // A patch that copies a path into itself doubles the document each time.
        copied += JSON.stringify(jsonpatch.getValueByPointer(result, op.from) ?? null).length
        if (copied > MAX_JSON_PATCH_COPY_BYTES) throw doesNotApply()
      }
      result = jsonpatch.applyOperation(result, op, true, true, true).newDocument
    } catch {
      throw doesNotApply()
    }
  }
  if (!isObject(result)) throw doesNotApply()
  return result
}
