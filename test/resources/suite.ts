// Assertions on 422 Invalid answers: the cause for a field path, in the wire format.
import assert from 'node:assert/strict'
import { after, before } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import type { AppOptions } from '../../server/app.js'

export interface Cause { reason: string, message: string, field: string }

/** Asserts a 422 Invalid whose causes include `field` with `reason` (and `message` text, when given). */
export function assertInvalid (res: LightMyRequestResponse, field: string, reason?: string, message?: string): void {
  assert.equal(res.statusCode, 422, res.body)
  const status = res.json()
  assert.equal(status.kind, 'Status')
  assert.equal(status.reason, 'Invalid')
  const causes: Cause[] = status.details.causes
  const cause = causes.find(c => c.field === field && (reason === undefined || c.reason === reason))
  assert.ok(cause, `no ${reason ?? ''} cause for ${field} in ${JSON.stringify(causes)}`)
  if (message !== undefined) assert.ok(cause.message.includes(message), `"${cause.message}" lacks "${message}"`)
}

/** One app for a whole describe block: built before its tests, closed after them. */
export function suiteApp (opts: Partial<AppOptions> = {}): () => TestApp {
  let api: TestApp | undefined
  const cleanups: Array<() => unknown> = []
  before(async () => { api = await buildTestApp({ after: (fn) => { cleanups.push(fn) } }, opts) })
  after(async () => { for (const fn of cleanups.reverse()) await fn() })
  return () => api!
}
