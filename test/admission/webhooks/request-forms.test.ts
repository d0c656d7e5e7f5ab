// Webhooks are matched by the API the request came through, as the reference matches them: a
// rule names a group (in either spelling), version and resource; under matchPolicy Exact only the
// request's own form matches, under Equivalent any form of the same stored kind does, and the
// webhook then gets the object in the form its rule named, requestKind saying what was asked.
import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../../resources/suite.js'
import { patchOf, startAdmissionWebhook, type AdmissionWebhookServer } from '../../helpers/admission-webhook.js'
import { GROUPS, upstreamGroup } from '../../../resources/naming.js'

type AnyObject = Record<string, any>
const MUTATING = `/apis/${GROUPS.admissionregistration}/v1/mutatingwebhookconfigurations`
const EVENTS_V1 = `/apis/${GROUPS.events}/v1/namespaces/default/events`
const CORE_EVENTS = '/api/v1/namespaces/default/events'

describe('webhook rules match the API a request came through', () => {
  const app = suiteApp()
  let hooks: AdmissionWebhookServer
  before(async () => { hooks = await startAdmissionWebhook({ after: () => {} }) })
  let n = 0

  const rule = (apiGroups: string[], resources: string[]): AnyObject[] => [{ operations: ['CREATE'], apiGroups, apiVersions: ['v1'], resources }]
  const configure = async (c: string, entries: Array<{ path: string, rules: AnyObject[], matchPolicy?: string }>): Promise<void> => {
    for (const e of entries) hooks.handle(e.path, () => patchOf([{ op: 'add', path: '/metadata/annotations', value: { seen: e.path } }]))
    const res = await app().request({
      method: 'POST', url: MUTATING,
      payload: {
        metadata: { name: `forms-${++n}` },
        webhooks: entries.map(e => ({
          name: `${e.path.slice(1)}.forms.example.com`,
          clientConfig: { url: `${hooks.base}${e.path}`, caBundle: hooks.caBundle },
          rules: e.rules,
          ...(e.matchPolicy === undefined ? {} : { matchPolicy: e.matchPolicy }),
          objectSelector: { matchLabels: { case: c } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          reinvocationPolicy: 'Never'
        }))
      }
    })
    assert.equal(res.statusCode, 201, res.body)
  }
  const eventsV1Body = (c: string, name: string): AnyObject => ({
    apiVersion: `${GROUPS.events}/v1`, kind: 'Event', metadata: { name, labels: { case: c } },
    eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'example.com/forms', reportingInstance: 'i', action: 'Test', reason: 'Tested', type: 'Normal',
    regarding: { kind: 'Node', name: 'n1' }, note: 'through events/v1'
  })

  it('a rule naming events.svc.io fires for events created through that API, with the object in its form', async () => {
    await configure('events-v1', [{ path: '/events-v1', rules: rule([GROUPS.events], ['events']) }])
    const res = await app().request({ method: 'POST', url: EVENTS_V1, payload: eventsV1Body('events-v1', 'e1') })
    assert.equal(res.statusCode, 201, res.body)
    const [call] = hooks.on('/events-v1')
    assert.ok(call !== undefined, 'the webhook was called')
    const rq = call.review.request
    assert.deepEqual(rq.kind, { group: GROUPS.events, version: 'v1', kind: 'Event' })
    assert.deepEqual(rq.requestKind, { group: GROUPS.events, version: 'v1', kind: 'Event' })
    assert.deepEqual(rq.requestResource, { group: GROUPS.events, version: 'v1', resource: 'events' })
    assert.equal(rq.object.apiVersion, `${GROUPS.events}/v1`)
    assert.equal(rq.object.note, 'through events/v1', 'the object in the events.svc.io form')
    assert.equal(rq.object.message, undefined)
    assert.deepEqual(res.json().metadata.annotations, { seen: '/events-v1' }, 'its patch, written against that form, is applied')
  })

  it('an Exact rule on core v1 events does not fire for them; an Equivalent one does, in the core form', async () => {
    await configure('core-rules', [
      { path: '/core-exact', rules: rule([''], ['events']), matchPolicy: 'Exact' },
      { path: '/core-equivalent', rules: rule([''], ['events']) }
    ])
    const res = await app().request({ method: 'POST', url: EVENTS_V1, payload: eventsV1Body('core-rules', 'e2') })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(hooks.on('/core-exact').length, 0)
    const rq = hooks.on('/core-equivalent')[0]!.review.request
    assert.deepEqual(rq.kind, { group: '', version: 'v1', kind: 'Event' })
    assert.deepEqual(rq.resource, { group: '', version: 'v1', resource: 'events' })
    assert.deepEqual(rq.requestKind, { group: GROUPS.events, version: 'v1', kind: 'Event' })
    assert.equal(rq.object.apiVersion, 'v1')
    assert.equal(rq.object.message, 'through events/v1')

    // And the other way round: a core create reaches an Exact events.svc.io rule never.
    await configure('core-create', [{ path: '/v1-exact', rules: rule([GROUPS.events], ['events']), matchPolicy: 'Exact' }])
    const core = await app().request({ method: 'POST', url: CORE_EVENTS, payload: { metadata: { name: 'e3', labels: { case: 'core-create' } }, involvedObject: { kind: 'Node', name: 'n1' }, reason: 'R', message: 'm' } })
    assert.equal(core.statusCode, 201, core.body)
    assert.equal(hooks.on('/v1-exact').length, 0)
  })

  it('a rule naming the upstream spelling matches requests through it exactly, and ours as equivalent', async () => {
    const upstream = upstreamGroup('coordination')
    await configure('lease-rules', [
      { path: '/upstream-exact', rules: rule([upstream], ['leases']), matchPolicy: 'Exact' },
      { path: '/upstream-equivalent', rules: rule([upstream], ['leases']) }
    ])
    const lease = (name: string, group: string): AnyObject => ({ apiVersion: `${group}/v1`, kind: 'Lease', metadata: { name, labels: { case: 'lease-rules' } } })
    const ours = await app().request({ method: 'POST', url: `/apis/${GROUPS.coordination}/v1/namespaces/default/leases`, payload: lease('l1', GROUPS.coordination) })
    assert.equal(ours.statusCode, 201, ours.body)
    assert.equal(hooks.on('/upstream-exact').length, 0)
    const equivalent = hooks.on('/upstream-equivalent')[0]!.review.request
    assert.deepEqual(equivalent.kind, { group: upstream, version: 'v1', kind: 'Lease' })
    assert.deepEqual(equivalent.requestKind, { group: GROUPS.coordination, version: 'v1', kind: 'Lease' })
    assert.equal(equivalent.object.apiVersion, `${upstream}/v1`)

    const theirs = await app().request({ method: 'POST', url: `/apis/${upstream}/v1/namespaces/default/leases`, payload: lease('l2', upstream) })
    assert.equal(theirs.statusCode, 201, theirs.body)
    assert.equal(theirs.json().apiVersion, `${upstream}/v1`)
    const exact = hooks.on('/upstream-exact')[0]!.review.request
    assert.deepEqual(exact.kind, exact.requestKind)
    assert.deepEqual(exact.requestResource, { group: upstream, version: 'v1', resource: 'leases' })
  })
})
