// MicroTime fields (Event eventTime and series.lastObservedTime, Lease acquireTime and
// renewTime): decoded as metav1.MicroTime decodes (time.Parse on 2006-01-02T15:04:05.000000Z07:00),
// so a value that does not parse is the decoder's 400, and one that does is stored as the
// reference re-encodes it.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from './suite.js'
import { decodeMicroTime } from '../../resources/micro-time.js'
import { GROUPS } from '../../resources/naming.js'

const CORE_EVENTS = '/api/v1/namespaces/default/events'
const V1_EVENTS = `/apis/${GROUPS.events}/v1/namespaces/default/events`
const LEASES = `/apis/${GROUPS.coordination}/v1/namespaces/default/leases`
const LAYOUT = '"2006-01-02T15:04:05.000000Z07:00"'

type Obj = Record<string, any>
const badRequest = (message: string): Obj => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 })
const parseError = (value: string, elem: string, as: string): string => `parsing time "${value}" as ${LAYOUT}: cannot parse "${elem}" as "${as}"`

const v1Event = (name: string, extra: Obj = {}): Obj => ({
  apiVersion: `${GROUPS.events}/v1`,
  kind: 'Event',
  metadata: { name },
  eventTime: '2026-01-01T00:00:00.123456Z',
  reportingController: 'example.com/scheduler',
  reportingInstance: 'scheduler-1',
  action: 'Binding',
  reason: 'Scheduled',
  regarding: { kind: 'Pod', namespace: 'default', name: 'web' },
  type: 'Normal',
  ...extra
})

describe('MicroTime', () => {
  const decodes: Array<[string, string | null | { error: string }]> = [
    ['2026-01-01T00:00:00.123456Z', '2026-01-01T00:00:00.123456Z'],
    ['2026-01-01T02:00:00.123456+02:00', '2026-01-01T00:00:00.123456Z'],
    ['2026-01-01T00:00:00,000001Z', '2026-01-01T00:00:00.000001Z'],
    ['0001-01-01T00:00:00.000000Z', null],
    ['0001-01-01T00:00:00.000001Z', '0001-01-01T00:00:00.000001Z'],
    ['0000-01-01T00:00:00.000000+01:00', '-0001-12-31T23:00:00.000000Z'],
    ['2026-01-01T00:00:00Z', { error: parseError('2026-01-01T00:00:00Z', 'Z', '.000000') }],
    ['2026-01-01T00:00:00.123Z', { error: parseError('2026-01-01T00:00:00.123Z', '.123Z', '.000000') }],
    ['2026-01-01T00:00:00.1234567Z', { error: parseError('2026-01-01T00:00:00.1234567Z', '7Z', 'Z07:00') }],
    ['2026-01-01 00:00:00.000000Z', { error: parseError('2026-01-01 00:00:00.000000Z', ' 00:00:00.000000Z', 'T') }],
    ['yesterday', { error: parseError('yesterday', 'yesterday', '2006') }],
    ['2026-13-01T00:00:00.000000Z', { error: 'parsing time "2026-13-01T00:00:00.000000Z": month out of range' }],
    ['2026-02-29T00:00:00.000000Z', { error: 'parsing time "2026-02-29T00:00:00.000000Z": day out of range' }],
    ['2026-01-01T00:00:00.000000Z+', { error: 'parsing time "2026-01-01T00:00:00.000000Z+": extra text: "+"' }]
  ]
  for (const [text, want] of decodes) {
    it(`decodes ${JSON.stringify(text)} as time.Parse does`, () => {
      assert.deepEqual(decodeMicroTime(text), typeof want === 'object' && want !== null ? want : { value: want })
    })
  }

  const app = suiteApp()

  it('refuses an events.svc.io/v1 eventTime without microseconds with the decoder\'s 400', async () => {
    const res = await app().request({ method: 'POST', url: V1_EVENTS, payload: v1Event('seconds', { eventTime: '2026-01-01T00:00:00Z' }) })
    assert.deepEqual(res.json(), badRequest(`Event in version "v1" cannot be handled as a Event: ${parseError('2026-01-01T00:00:00Z', 'Z', '.000000')}`))
    assert.equal(res.statusCode, 400)
  })

  it('refuses a core v1 eventTime that does not parse, ahead of unknown fields under Strict', async () => {
    const res = await app().request({
      method: 'POST',
      url: `${CORE_EVENTS}?fieldValidation=Strict`,
      payload: { metadata: { name: 'core' }, bogus: 1, involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' }, eventTime: 'yesterday' }
    })
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().message, `Event in version "v1" cannot be handled as a Event: ${parseError('yesterday', 'yesterday', '2006')}`)
  })

  it('stores eventTime and series.lastObservedTime in UTC with six digits, and refuses a bad one on update', async () => {
    const created = await app().request({ method: 'POST', url: V1_EVENTS, payload: v1Event('zoned', { eventTime: '2026-01-01T02:00:00.500000+02:00' }) })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.json().eventTime, '2026-01-01T00:00:00.500000Z')
    const core = await app().request({ method: 'GET', url: `${CORE_EVENTS}/zoned` })
    assert.equal(core.json().eventTime, '2026-01-01T00:00:00.500000Z')
    const current = created.json()
    const series = await app().request({ method: 'PUT', url: `${V1_EVENTS}/zoned`, payload: { ...current, series: { count: 2, lastObservedTime: '2026-01-01T01:01:00.000001+01:00' } } })
    assert.equal(series.statusCode, 200, series.body)
    assert.deepEqual(series.json().series, { count: 2, lastObservedTime: '2026-01-01T00:01:00.000001Z' })
    const bad = await app().request({ method: 'PUT', url: `${V1_EVENTS}/zoned`, payload: { ...(series.json() as Obj), series: { count: 3, lastObservedTime: '2026-01-01T00:02:00Z' } } })
    assert.equal(bad.statusCode, 400, bad.body)
    assert.equal(bad.json().message, `Event in version "v1" cannot be handled as a Event: ${parseError('2026-01-01T00:02:00Z', 'Z', '.000000')}`)
  })

  it('refuses Lease times that are not MicroTimes on create and update, and stores good ones re-encoded', async () => {
    const seconds = await app().request({ method: 'POST', url: LEASES, payload: { metadata: { name: 'l1' }, spec: { holderIdentity: 'a', renewTime: '2026-01-01T00:00:00Z' } } })
    assert.deepEqual(seconds.json(), badRequest(`Lease in version "v1" cannot be handled as a Lease: ${parseError('2026-01-01T00:00:00Z', 'Z', '.000000')}`))
    const millis = await app().request({ method: 'POST', url: LEASES, payload: { metadata: { name: 'l1' }, spec: { holderIdentity: 'a', acquireTime: '2026-01-01T00:00:00.123Z' } } })
    assert.equal(millis.statusCode, 400, millis.body)
    assert.equal(millis.json().message, `Lease in version "v1" cannot be handled as a Lease: ${parseError('2026-01-01T00:00:00.123Z', '.123Z', '.000000')}`)

    const good = await app().request({ method: 'POST', url: LEASES, payload: { metadata: { name: 'l1' }, spec: { holderIdentity: 'a', acquireTime: '2026-01-01T05:30:00.000001+05:30', renewTime: '0001-01-01T00:00:00.000000Z' } } })
    assert.equal(good.statusCode, 201, good.body)
    assert.equal(good.json().spec.acquireTime, '2026-01-01T00:00:00.000001Z')
    assert.equal(good.json().spec.renewTime, null)

    const update = await app().request({ method: 'PUT', url: `${LEASES}/l1`, payload: { ...(good.json() as Obj), spec: { ...(good.json() as Obj).spec, renewTime: '2026-01-01T00:00:10Z' } } })
    assert.equal(update.statusCode, 400, update.body)
    assert.equal(update.json().message, `Lease in version "v1" cannot be handled as a Lease: ${parseError('2026-01-01T00:00:10Z', 'Z', '.000000')}`)
    const stored = await app().request({ method: 'GET', url: `${LEASES}/l1` })
    assert.equal(stored.json().spec.renewTime, null)
  })

  it('refuses a patch that leaves a MicroTime undecodable as the reference\'s patch handler does: 422 on "patch"', async () => {
    const created = await app().request({ method: 'POST', url: LEASES, payload: { metadata: { name: 'patched' }, spec: { holderIdentity: 'a' } } })
    assert.equal(created.statusCode, 201, created.body)
    const forms: Array<[string, unknown]> = [
      ['application/merge-patch+json', { spec: { renewTime: '2026-01-01T00:00:00Z' } }],
      ['application/strategic-merge-patch+json', { spec: { renewTime: '2026-01-01T00:00:00Z' } }],
      ['application/json-patch+json', [{ op: 'add', path: '/spec/renewTime', value: '2026-01-01T00:00:00Z' }]]
    ]
    for (const [type, patch] of forms) {
      const res = await app().request({ method: 'PATCH', url: `${LEASES}/patched`, headers: { 'content-type': type }, payload: JSON.stringify(patch) })
      assert.equal(res.statusCode, 422, `${type}: ${res.body}`)
      const status = res.json()
      assert.equal(status.reason, 'Invalid')
      assert.equal(status.details.causes.length, 1)
      const cause = status.details.causes[0]
      assert.equal(cause.field, 'patch')
      assert.equal(cause.reason, 'FieldValueInvalid')
      assert.ok(cause.message.startsWith('Invalid value: "'), cause.message)
      assert.ok(cause.message.endsWith(`: ${parseError('2026-01-01T00:00:00Z', 'Z', '.000000')}`), cause.message)
      assert.ok(status.message.startsWith(' "" is invalid: patch: Invalid value: '), status.message)
    }
    const good = await app().request({ method: 'PATCH', url: `${LEASES}/patched`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { spec: { renewTime: '2026-01-01T01:00:00.000002+01:00' } } })
    assert.equal(good.statusCode, 200, good.body)
    assert.equal(good.json().spec.renewTime, '2026-01-01T00:00:00.000002Z')
  })
})
