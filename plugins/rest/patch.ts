// Patch forms applied to the stored object: JSON Patch (RFC 6902), JSON Merge Patch (RFC 7386)
// and strategic merge patch (strategic-merge.ts).
import jsonpatch from 'fast-json-patch'
import { ApiError, badRequest } from '../../resources/status.js'
import { MEDIA_TYPES } from '../../resources/naming.js'
import type { TSchema } from '@sinclair/typebox'
import { strategicMergePatch } from './strategic-merge.js'

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

/** Applies a parsed patch document to a copy of `current`. */
export function applyPatch (type: Exclude<PatchType, 'apply'>, current: Record<string, unknown>, patch: unknown, schema: TSchema): Record<string, unknown> {
  if (type === 'strategic') return strategicMergePatch(current, patch, schema)
  if (type === 'merge') {
    if (!isObject(patch)) throw badRequest('the body of a merge patch must be a JSON object')
    return mergePatch(current, patch) as Record<string, unknown>
  }
  if (!Array.isArray(patch)) throw badRequest('the body of a JSON patch must be a JSON array of operations')
  const problem = jsonpatch.validate(patch as jsonpatch.Operation[], undefined)
  if (problem !== undefined) throw badRequest(`invalid JSON patch: ${problem.message.split('\n')[0]}`)
  try {
    const result = jsonpatch.applyPatch(structuredClone(current), patch as jsonpatch.Operation[], false, true).newDocument
    if (!isObject(result)) throw new Error('the patch must leave an object')
    return result
  } catch (err) {
    if (err instanceof ApiError) throw err
    const text = (err as Error).message.split('\n')[0] ?? 'patch failed'
    throw new ApiError(422, 'Invalid', text, {})
  }
}
