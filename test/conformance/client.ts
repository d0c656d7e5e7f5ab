// Requests the behaviours share: JSON in and out, the patch media types, waiting for a deletion.
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import type { TestApp } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { GROUPS, MEDIA_TYPES } from '../../resources/naming.js'
import type { AnyObject } from '../../resources/define.js'

export type PatchType = 'jsonPatch' | 'mergePatch' | 'strategicMergePatch' | 'applyPatch'

export const TABLE_ACCEPT = `application/json;as=Table;v=v1;g=${GROUPS.meta}`

/** The field manager the suite's writes name. */
export const FIELD_MANAGER = 'conformance'

/** Asserts the answer's code, showing its body when it differs. */
export function expectCode (res: LightMyRequestResponse, ...codes: number[]): void {
  assert.ok(codes.includes(res.statusCode), `expected ${codes.join(' or ')}, got ${res.statusCode}: ${res.body}`)
}

export async function getJson (api: TestApp, url: string, code = 200): Promise<AnyObject> {
  const res = await api.request({ method: 'GET', url })
  expectCode(res, code)
  return res.json()
}

export const patch = (api: TestApp, url: string, type: PatchType, body: unknown): Promise<LightMyRequestResponse> =>
  api.request({ method: 'PATCH', url, headers: { 'content-type': MEDIA_TYPES[type] }, payload: JSON.stringify(body) })

/**
 * Reads `url` and writes what `write` makes of it, reading again when the write conflicts: the
 * server's controllers may change the object in between (a quota's status is recounted).
 */
export async function readThenWrite (api: TestApp, url: string, write: (current: AnyObject) => Promise<LightMyRequestResponse>): Promise<{ current: AnyObject, res: LightMyRequestResponse }> {
  for (let attempt = 1; ; attempt++) {
    const current = await getJson(api, url)
    const res = await write(current)
    if (res.statusCode !== 409 || attempt === 5) return { current, res }
  }
}

/** Appends query parameters to a URL that may have some already. */
export const withQuery = (url: string, query: Record<string, string>): string =>
  `${url}${url.includes('?') ? '&' : '?'}${new URLSearchParams(query).toString()}`

/** Waits until `url` answers 404: a deletion has finished (finalizers run by controllers included). */
export async function expectGone (api: TestApp, url: string): Promise<void> {
  await eventually(async () => {
    const res = await api.request({ method: 'GET', url })
    assert.equal(res.statusCode, 404, `${url} is still there: ${res.body}`)
  }, 20_000, 200)
}

/** The names of a list's items. */
export const itemNames = (list: AnyObject): string[] => (list.items as AnyObject[]).map(i => i.metadata.name)

/**
 * Whether `actual` holds everything `expected` has: objects may have more keys (defaults the
 * server fills), arrays the same length with each element contained in turn.
 */
export function contains (actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => contains(actual[i], e))
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false
    return Object.entries(expected).every(([k, v]) => contains((actual as AnyObject)[k], v))
  }
  return actual === expected
}
