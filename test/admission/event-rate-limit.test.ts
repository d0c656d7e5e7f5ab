// EventRateLimit: each limit type's bucket (Server, Namespace, User, SourceAndObject), a burst
// then 429 TooManyRequests with Retry-After, refilling at qps on the test's own clock, the
// keyed buckets' LRU, dry runs and other kinds untouched, and the configuration's validation.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { Type } from '@sinclair/typebox'
import { buildTestApp, type TestApp, type TestUser } from '../helpers/app.js'
import { parseEventRateLimitConfiguration, DEFAULT_CACHE_SIZE } from '../../admission/event-rate-limit.js'
import { defineResource } from '../../resources/define.js'
import { objectSchema } from '../../resources/meta.js'
import { group } from '../../resources/naming.js'

type AnyObject = Record<string, any>
const API_VERSION = 'eventratelimit.admission.svc.io/v1alpha1'

/** An app with EventRateLimit on under `limits`, and the clock its buckets read. */
async function appWithLimits (t: { after (fn: () => unknown): void }, limits: AnyObject[], apiVersion = API_VERSION,
  beforeReady?: (app: FastifyInstance) => void): Promise<TestApp & { clock: { ms: number }, file: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'event-rate-limit-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'event-rate-limit.yaml'), stringify({ apiVersion, kind: 'Configuration', limits }))
  const file = join(dir, 'admission.yaml')
  writeFileSync(file, stringify({
    apiVersion: 'apiserver.config.svc.io/v1', kind: 'AdmissionConfiguration',
    plugins: [{ name: 'EventRateLimit', path: 'event-rate-limit.yaml' }]
  }))
  const clock = { ms: Date.parse('2026-01-01T00:00:00Z') }
  const app = await buildTestApp(t, { admission: { enable: ['EventRateLimit'], configFile: file, now: () => clock.ms } }, { beforeReady })
  return { ...app, clock, file }
}

let n = 0
const event = (over: AnyObject = {}): AnyObject => ({
  metadata: { name: `ev-${++n}` },
  involvedObject: { kind: 'Pod', name: 'web', apiVersion: 'v1' },
  reason: 'Started',
  message: 'started',
  source: { component: 'svclet', host: 'node-1' },
  ...over
})
const emit = (api: TestApp, namespace = 'default', over: AnyObject = {}, as: TestUser = 'admin', query = ''): Promise<LightMyRequestResponse> =>
  api.request({ method: 'POST', url: `/api/v1/namespaces/${namespace}/events${query}`, payload: event({ involvedObject: { kind: 'Pod', name: 'web', apiVersion: 'v1', namespace }, ...over }), as })

/** Sends `count` events; the status codes in order. */
async function burst (count: number, send: () => Promise<LightMyRequestResponse>): Promise<number[]> {
  const codes: number[] = []
  for (let i = 0; i < count; i++) codes.push((await send()).statusCode)
  return codes
}

function assertLimited (res: LightMyRequestResponse, message: string, retryAfter = '1'): void {
  assert.equal(res.statusCode, 429, res.body)
  const status = res.json()
  assert.equal(status.kind, 'Status')
  assert.equal(status.reason, 'TooManyRequests')
  assert.equal(status.message, `Too many requests: ${message}`)
  assert.equal(status.details.retryAfterSeconds, Number(retryAfter))
  assert.equal(res.headers['retry-after'], retryAfter)
}

describe('EventRateLimit', () => {
  it('Server: one bucket for every event; refused past the burst, refilled at qps', async (t) => {
    const api = await appWithLimits(t, [{ type: 'Server', qps: 2, burst: 3 }])
    assert.equal((await api.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'other' } } })).statusCode, 201)
    assert.deepEqual([(await emit(api)).statusCode, (await emit(api, 'other')).statusCode, (await emit(api, 'default', {}, 'alice')).statusCode], [201, 201, 201])
    const refused = await emit(api, 'other')
    assertLimited(refused, 'limit reached on type Server for key ')
    // Half a second at 2 qps is one token; the next takes another half second.
    api.clock.ms += 500
    assert.equal((await emit(api)).statusCode, 201)
    assertLimited(await emit(api), 'limit reached on type Server for key ')
    // A long quiet time fills the bucket to its burst, no further.
    api.clock.ms += 60_000
    assert.deepEqual(await burst(4, () => emit(api)), [201, 201, 201, 429])
    // Other kinds are not counted, nor dry runs.
    assert.equal((await api.request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: 'cm' } } })).statusCode, 201)
    api.clock.ms += 500
    assert.equal((await emit(api, 'default', {}, 'admin', '?dryRun=All')).statusCode, 201)
    assert.equal((await emit(api)).statusCode, 201, 'the dry run took no token')
  })

  it('Retry-After says how long until the next token at a slow rate', async (t) => {
    const api = await appWithLimits(t, [{ type: 'Server', qps: 1, burst: 1 }])
    assert.equal((await emit(api)).statusCode, 201)
    assertLimited(await emit(api), 'limit reached on type Server for key ', '1')
    api.clock.ms += 1000
    assert.equal((await emit(api)).statusCode, 201)
  })

  it('Namespace: a bucket per namespace, the least recently used dropped past cacheSize', async (t) => {
    const api = await appWithLimits(t, [{ type: 'Namespace', qps: 1, burst: 2, cacheSize: 1 }])
    assert.equal((await api.request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'other' } } })).statusCode, 201)
    assert.deepEqual(await burst(3, () => emit(api)), [201, 201, 429])
    assertLimited(await emit(api), 'limit reached on type Namespace for key default')
    assert.deepEqual(await burst(3, () => emit(api, 'other')), [201, 201, 429], 'another namespace has its own bucket')
    // With room for one bucket, `other` pushed out `default`'s, which starts full again.
    assert.deepEqual(await burst(3, () => emit(api)), [201, 201, 429])
  })

  it('Namespace: updates of events count too', async (t) => {
    const api = await appWithLimits(t, [{ type: 'Namespace', qps: 1, burst: 2 }])
    const created = await emit(api)
    assert.equal(created.statusCode, 201)
    const name = created.json().metadata.name as string
    const patch = (): Promise<LightMyRequestResponse> => api.request({ method: 'PATCH', url: `/api/v1/namespaces/default/events/${name}`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ count: 2 }) })
    assert.equal((await patch()).statusCode, 200)
    assertLimited(await patch(), 'limit reached on type Namespace for key default')
  })

  it('User: a bucket per user name', async (t) => {
    const api = await appWithLimits(t, [{ type: 'User', qps: 1, burst: 1 }])
    assert.equal((await emit(api, 'default', {}, 'alice')).statusCode, 201)
    assertLimited(await emit(api, 'default', {}, 'alice'), 'limit reached on type User for key alice')
    assert.equal((await emit(api, 'default', {}, 'bob')).statusCode, 201)
    assertLimited(await emit(api, 'default', {}, 'bob'), 'limit reached on type User for key bob')
    api.clock.ms += 1000
    assert.equal((await emit(api, 'default', {}, 'alice')).statusCode, 201)
  })

  it('SourceAndObject: a bucket per reporting source and involved object; several limits at once', async (t) => {
    const api = await appWithLimits(t, [{ type: 'SourceAndObject', qps: 1, burst: 1 }, { type: 'Namespace', qps: 1, burst: 4 }], 'eventratelimit.admission.k8s.io/v1alpha1')
    assert.equal((await emit(api)).statusCode, 201)
    assertLimited(await emit(api), 'limit reached on type SourceAndObject for key svcletnode-1Poddefaultwebv1')
    assert.equal((await emit(api, 'default', { involvedObject: { kind: 'Pod', name: 'db', apiVersion: 'v1' } })).statusCode, 201, 'another object')
    assert.equal((await emit(api, 'default', { source: { component: 'scheduler' } })).statusCode, 201, 'another source')
    // The namespace's four tokens went on the first, the refused one and the two others: both limits refuse now.
    const both = await emit(api)
    assertLimited(both, '[limit reached on type SourceAndObject for key svcletnode-1Poddefaultwebv1, limit reached on type Namespace for key default]')
  })

  it('counts events of the events group too, keyed by their regarding object (a new event has no source)', async (t) => {
    const EVENTS = group('events')
    // A test-only stand-in when this server does not serve the events group itself.
    const standIn = (app: FastifyInstance): void => {
      if (app.resources.find({ group: EVENTS, resource: 'events' }) !== undefined) return
      const anything = Type.Optional(Type.Record(Type.String(), Type.Unknown()))
      app.resources.add(defineResource({
        group: EVENTS, version: 'v1', kind: 'Event', plural: 'events', singular: 'event', scope: 'Namespaced',
        schema: objectSchema(`${EVENTS}/v1`, 'Event', {
          eventTime: Type.Optional(Type.String()), reportingController: Type.Optional(Type.String()), reportingInstance: Type.Optional(Type.String()),
          action: Type.Optional(Type.String()), reason: Type.Optional(Type.String()), type: Type.Optional(Type.String()), note: Type.Optional(Type.String()),
          regarding: anything, deprecatedSource: anything
        })
      }))
    }
    const api = await appWithLimits(t, [{ type: 'SourceAndObject', qps: 1, burst: 1 }], API_VERSION, standIn)
    const newEvent = (regarding: string): Promise<LightMyRequestResponse> => api.request({
      method: 'POST', url: `/apis/${EVENTS}/v1/namespaces/default/events`,
      payload: {
        metadata: { name: `ev-${++n}` }, eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'example.com/svclet', reportingInstance: 'svclet-node-1',
        action: 'Pulling', reason: 'Pulling', type: 'Normal', note: 'pulling', regarding: { kind: 'Pod', name: regarding, apiVersion: 'v1' }
      }
    })
    const first = await newEvent('web')
    assert.equal(first.statusCode, 201, first.body)
    assertLimited(await newEvent('web'), 'limit reached on type SourceAndObject for key Podwebv1')
    assert.equal((await newEvent('db')).statusCode, 201)
  })

  it('validates its configuration as upstream does, and stops start-up naming the file', async (t) => {
    assert.deepEqual(parseEventRateLimitConfiguration({ apiVersion: API_VERSION, kind: 'Configuration', limits: [{ type: 'User', qps: 5, burst: 10 }, { type: 'Server', qps: 1, burst: 1 }] }), {
      limits: [{ type: 'User', qps: 5, burst: 10, cacheSize: DEFAULT_CACHE_SIZE }, { type: 'Server', qps: 1, burst: 1, cacheSize: DEFAULT_CACHE_SIZE }],
      errors: []
    })
    const errorsOf = (c: AnyObject): string[] => parseEventRateLimitConfiguration({ apiVersion: API_VERSION, kind: 'Configuration', ...c }).errors
    assert.deepEqual(errorsOf({ limits: [] }), ['limits: Invalid value: null: must not be empty'])
    assert.deepEqual(errorsOf({}), ['limits: Invalid value: null: must not be empty'])
    assert.deepEqual(errorsOf({ limits: [{ type: 'Pod', qps: 1, burst: 1 }] }), ['limits[0].type: Unsupported value: "Pod": supported values: "Namespace", "Server", "SourceAndObject", "User"'])
    assert.deepEqual(errorsOf({ limits: [{ type: 'Namespace', qps: 0, burst: -1, cacheSize: -2 }] }), [
      'limits[0].burst: Invalid value: -1: must be positive',
      'limits[0].qps: Invalid value: 0: must be positive',
      'limits[0].cacheSize: Invalid value: -2: must not be negative'
    ])
    assert.deepEqual(errorsOf({ limits: [{ type: 'Server', qps: 1, burst: 1, cacheSize: -2 }] }), [], 'the server bucket has no cache')
    assert.deepEqual(errorsOf({ limits: [{ type: 'User', qps: 1.5, burst: 1 }] }), ['limits[0].qps: Invalid value: 1.5: must be an integer'])
    assert.deepEqual(parseEventRateLimitConfiguration({ apiVersion: 'v1', kind: 'Configuration', limits: [] }).errors,
      ['apiVersion must be one of eventratelimit.admission.svc.io/v1alpha1, eventratelimit.admission.k8s.io/v1alpha1, not "v1"'])

    await assert.rejects(appWithLimits(t, [{ type: 'Namespace', qps: 0, burst: 5 }]),
      /--admission-control-config-file \/.*\/event-rate-limit\.yaml: EventRateLimit: limits\[0\]\.qps: Invalid value: 0: must be positive/)
    await assert.rejects(buildTestApp(t, { admission: { enable: ['EventRateLimit'] } }), /EventRateLimit needs a configuration \(kind Configuration/)
  })
})
