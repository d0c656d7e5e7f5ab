// Property-based fuzzing of request bodies, patches, query strings and headers (fast-check,
// seeded, bounded). Invariants for every generated request: never a 5xx, every error a Status
// of its own code, Warning headers distinct and within 4 KiB, and no partial write: a refused
// request leaves the target object exactly as it was, an accepted one leaves a whole object.
// FUZZ_RUNS (default 60 per property) and FUZZ_SEED (default 23) widen a run: `npm run fuzz`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { GROUPS, MEDIA_TYPES } from '../../resources/naming.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 60)
const SEED = Number(process.env.FUZZ_SEED ?? 23)
const CM = '/api/v1/namespaces/default/configmaps'
const TARGET = `${CM}/target`

/** Keys a hostile client reaches for: object built-ins, directives, identity fields, nonsense. */
const KEY = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '$patch', '$retainKeys',
    '$setElementOrder/data', '$deleteFromPrimitiveList/finalizers', 'metadata', 'name', 'namespace', 'uid', 'resourceVersion',
    'generation', 'labels', 'annotations', 'finalizers', 'ownerReferences', 'managedFields', 'data', 'binaryData', 'immutable',
    'kind', 'apiVersion', 'spec', 'status', 'a', ''),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 })
)

/** JSON values with hostile keys, numbers at the edges, and the odd deep chain. */
const VALUE: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>(tie => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, -1, 1e308, -1e-308, 2 ** 53 + 1, 9.5, '', 'target', 'default', '1', '0'),
    fc.string({ maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.double(),
    fc.integer(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(KEY, tie('value'), { maxKeys: 5 }),
    fc.integer({ min: 900, max: 1100 }).map(depth => ({ deep: JSON.parse('['.repeat(depth) + ']'.repeat(depth)) }))
  )
})).value

const OBJECT = fc.record({
  apiVersion: fc.constantFrom(undefined, 'v1', 'v2', 7),
  kind: fc.constantFrom(undefined, 'ConfigMap', 'Secret', null),
  metadata: fc.oneof(fc.constant(undefined), VALUE, fc.record({ name: fc.constantFrom('target', 'fuzz', '', 'UPPER', 7, null, undefined), resourceVersion: VALUE, labels: VALUE, annotations: VALUE, uid: VALUE }, { requiredKeys: [] })),
  data: VALUE,
  extra: fc.dictionary(KEY, VALUE, { maxKeys: 3 })
}, { requiredKeys: [] }).map(({ extra, ...o }) => {
  // Define, never assign: `__proto__` must arrive as a key.
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries({ ...o })) if (v !== undefined) Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true })
  for (const [k, v] of Object.entries(extra ?? {})) Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true })
  return out
})

/** A text body: valid JSON of a generated object, cut short, or not JSON at all. */
const BODY = fc.oneof(
  OBJECT.map(o => JSON.stringify(o)),
  fc.tuple(OBJECT, fc.nat()).map(([o, cut]) => { const s = JSON.stringify(o); return s.slice(0, cut % (s.length + 1)) }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }).map(b => Buffer.from(b).toString('latin1'))
)

const CONTENT_TYPE = fc.constantFrom('application/json', 'application/yaml', MEDIA_TYPES.protobuf, 'application/json; charset=utf-8', 'text/plain', '')

async function send (app: TestApp, o: { method: string, url: string, headers?: Record<string, string>, payload?: string | Buffer, as?: null }): Promise<LightMyRequestResponse> {
  const res = await app.request({ method: o.method as 'GET', url: o.url, headers: o.headers, payload: o.payload, ...(o.as === null ? { as: null } : {}) })
  const what = `${o.method} ${o.url.slice(0, 200)} ${JSON.stringify(o.headers ?? {}).slice(0, 200)} ${String(o.payload ?? '').slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 300)}`
  // The one 5xx the spec sanctions: a resourceVersion the store has not reached (504 Timeout).
  assert.ok(res.statusCode < 500 || (res.statusCode === 504 && res.json().reason === 'Timeout'), what)
  if (res.statusCode >= 400) {
    const status = JSON.parse(res.body)
    assert.equal(status.kind, 'Status', what)
    assert.equal(status.code, res.statusCode, what)
  }
  const warnings = [res.headers.warning ?? []].flat() as string[]
  assert.equal(new Set(warnings).size, warnings.length, what)
  assert.ok(warnings.reduce((n, w) => n + w.length, 0) <= 4096, what)
  return res
}

/** Runs `req` against the target: refused means untouched; accepted means a whole object (or gone). */
async function againstTarget (app: TestApp, req: Parameters<typeof send>[1]): Promise<void> {
  const before = (await app.request({ method: 'GET', url: TARGET })).json()
  const res = await send(app, req)
  const after = await app.request({ method: 'GET', url: TARGET })
  if (res.statusCode >= 400 || req.method === 'GET') {
    assert.equal(after.statusCode, 200)
    assert.deepEqual(after.json(), before, `refused yet written: ${req.method} ${req.url} ${String(req.payload).slice(0, 300)}`)
  } else if (after.statusCode === 200) {
    const obj = after.json()
    assert.equal(obj.kind, 'ConfigMap')
    assert.equal(obj.apiVersion, 'v1')
    assert.equal(obj.metadata.name, 'target')
    assert.equal(obj.metadata.namespace, 'default')
    assert.equal(obj.metadata.uid, before.metadata.uid)
    for (const v of Object.values(obj.data ?? {})) assert.equal(typeof v, 'string')
  }
  if (after.statusCode === 404) await resetTarget(app)
}

async function resetTarget (app: TestApp): Promise<void> {
  const res = await app.request({ method: 'POST', url: CM, payload: { metadata: { name: 'target', labels: { a: 'b' } }, data: { a: 'b' } } })
  assert.equal(res.statusCode, 201)
}

test('fuzz: no generated request is a 5xx, a non-Status error, a Warning storm or a partial write', async (t) => {
  const app = await buildTestApp(t)
  await resetTarget(app)
  let cases = 0
  const params = { seed: SEED, numRuns: RUNS, endOnFailure: true }

  // Request bodies on every write path.
  await fc.assert(fc.asyncProperty(
    fc.constantFrom(['POST', CM], ['PUT', TARGET], ['POST', `/apis/${GROUPS.authentication}/v1/tokenreviews`], ['POST', '/api/v1/namespaces'], ['DELETE', TARGET]),
    fc.constantFrom('', '?fieldValidation=Strict', '?fieldValidation=Ignore', '?dryRun=All'),
    CONTENT_TYPE, BODY,
    async ([method, url], query, contentType, payload) => {
      cases++
      // A delete's body is only ever a dry run here, so the target survives to be checked.
      const q = method === 'DELETE' ? '?dryRun=All' : query
      await againstTarget(app, { method: method!, url: url! + q, headers: contentType === '' ? {} : { 'content-type': contentType }, payload })
    }), params)

  // Patches of every type.
  const OP = fc.record({
    op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
    path: fc.oneof(fc.constantFrom('', '/', '/data', '/data/a', '/data/-', '/metadata', '/metadata/name', '/metadata/resourceVersion', '/metadata/labels/a',
      '/metadata/uid', '/kind', '/__proto__', '/__proto__/x', '/constructor/prototype/x', '/data/~1', '/data/~2', '/metadata/finalizers/0'), fc.string({ maxLength: 10 })),
    from: fc.constantFrom('/data', '/metadata', '/', '/nope', '/metadata/labels'),
    value: VALUE
  }, { requiredKeys: ['op'] })
  const PATCH = fc.oneof(
    fc.tuple(fc.constant('application/json-patch+json'), fc.array(OP, { maxLength: 30 }).map(ops => JSON.stringify(ops))),
    fc.tuple(fc.constantFrom('application/merge-patch+json', 'application/strategic-merge-patch+json'), BODY),
    fc.tuple(fc.constantFrom('application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'), fc.string({ maxLength: 60 }))
  )
  await fc.assert(fc.asyncProperty(PATCH, fc.constantFrom('', '?fieldValidation=Strict', '?dryRun=All', '?fieldManager=fuzz'), async ([type, payload], query) => {
    cases++
    await againstTarget(app, { method: 'PATCH', url: TARGET + query, headers: { 'content-type': type }, payload })
  }), params)

  // Query strings on reads and deletes (deletes as dry runs).
  const PARAM = fc.tuple(
    fc.constantFrom('labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'timeoutSeconds', 'gracePeriodSeconds',
      'propagationPolicy', 'fieldValidation', 'pretty', 'includeObject', 'allowWatchBookmarks', 'sendInitialEvents', 'fieldManager', 'orphanDependents', 'watch'),
    fc.oneof(fc.constantFrom('', '0', '1', '-1', 'true', 'a', 'a=b', 'a in ()', 'a in (b', '!a', 'metadata.name==a==b', 'metadata.name=target', 'a\\,b',
      '99999999999999999999', 'Exact', 'NotOlderThan', 'Orphan', 'Foreground', 'Strict', 'Object'), fc.string({ maxLength: 16 }), fc.string({ unit: 'binary', maxLength: 8 }))
  ).map(([k, v]) => k === 'watch' ? 'watch=false' : `${k}=${encodeURIComponent(v)}`)
  await fc.assert(fc.asyncProperty(fc.constantFrom(['GET', CM], ['GET', TARGET], ['DELETE', TARGET], ['DELETE', CM], ['GET', '/api/v1/namespaces']), fc.array(PARAM, { maxLength: 5 }),
    async ([method, url], parts) => {
      cases++
      const dry = method === 'DELETE' ? ['dryRun=All'] : []
      await againstTarget(app, { method: method!, url: `${url!}?${[...parts, ...dry].join('&')}` })
    }), params)

  // Headers: credentials, impersonation, negotiation.
  const HEADER = fc.tuple(
    fc.oneof(fc.constantFrom('authorization', 'impersonate-user', 'impersonate-group', 'impersonate-uid', 'accept', 'content-type', 'x-remote-user'),
      KEY.map(k => `impersonate-extra-${encodeURIComponent(k).toLowerCase().replace(/[^a-z0-9%_.-]/g, '')}`)),
    fc.oneof(fc.constantFrom('Bearer a b c', 'Bearer ', 'Bearer \tx', 'bearer admin-token', 'Basic eDp5', 'admin', 'system:masters', 'application/json;as=Table;v=v1;g=meta.k8s.io', '*/*', 'application/bogus'),
      fc.string({ maxLength: 30 }).map(s => s.replace(/[^\x20-\x7e\t]/g, '').trim()))
  )
  await fc.assert(fc.asyncProperty(fc.array(HEADER, { maxLength: 4 }), fc.boolean(), fc.constantFrom(['GET', TARGET], ['GET', CM], ['DELETE', TARGET]), async (pairs, anonymous, [method, url]) => {
    cases++
    const headers: Record<string, string> = {}
    for (const [k, v] of pairs) headers[k] = v
    await againstTarget(app, { method: method!, url: `${url!}${method === 'DELETE' ? '?dryRun=All' : ''}`, headers, ...(anonymous ? { as: null } : {}) })
  }), params)

  assert.equal((await app.request({ method: 'GET', url: '/readyz' })).statusCode, 200)
  t.diagnostic(`fuzz: ${cases} generated requests, seed ${SEED}, 0 5xx, 0 partial writes`)
})
