import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { ENVELOPE_PREFIX } from '../../plugins/protobuf/codec.js'
import { GROUPS, MEDIA_TYPES } from '../../resources/naming.js'

const PB: string = MEDIA_TYPES.upstreamProtobuf

// Kinds whose messages are built from their schemas alone: a protobuf body creates them and a
// protobuf answer reads back as the JSON one (client-go writes Events in protobuf).
const CASES: Array<{ url: string, obj: Record<string, any> }> = [
  {
    url: '/api/v1/namespaces/default/events',
    obj: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'default' }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' }, reason: 'Pulled', message: 'pulled', source: { component: 'kubelet' }, firstTimestamp: '2026-01-02T03:04:05Z', lastTimestamp: '2026-01-02T03:04:05Z', count: 1, type: 'Normal' }
  },
  {
    url: `/apis/${GROUPS.events}/v1/namespaces/default/events`,
    obj: { apiVersion: `${GROUPS.events}/v1`, kind: 'Event', metadata: { name: 'e2', namespace: 'default' }, eventTime: '2026-01-02T03:04:05.123456Z', reportingController: 'svc.io/scheduler', reportingInstance: 'sched-1', action: 'Binding', reason: 'Scheduled', regarding: { kind: 'Pod', namespace: 'default', name: 'p' }, note: 'assigned', type: 'Normal' }
  },
  {
    url: `/apis/${GROUPS.scheduling}/v1/priorityclasses`,
    obj: { apiVersion: `${GROUPS.scheduling}/v1`, kind: 'PriorityClass', metadata: { name: 'pb-high' }, value: 1000, description: 'd' }
  },
  {
    url: `/apis/${GROUPS.admissionregistration}/v1/mutatingwebhookconfigurations`,
    obj: { apiVersion: `${GROUPS.admissionregistration}/v1`, kind: 'MutatingWebhookConfiguration', metadata: { name: 'pb-m' }, webhooks: [{ name: 'm.example.com', clientConfig: { url: 'https://hook.example.com/m' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Ignore', objectSelector: { matchLabels: { never: 'matches' } } }] }
  },
  {
    url: `/apis/${GROUPS.admissionregistration}/v1/validatingwebhookconfigurations`,
    obj: { apiVersion: `${GROUPS.admissionregistration}/v1`, kind: 'ValidatingWebhookConfiguration', metadata: { name: 'pb-v' }, webhooks: [{ name: 'v.example.com', clientConfig: { url: 'https://hook.example.com/v' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Ignore', objectSelector: { matchLabels: { never: 'matches' } } }] }
  }
]

for (const c of CASES) {
  test(`creates a ${c.obj.kind as string} (${c.obj.apiVersion as string}) from a protobuf body and answers it in protobuf`, async (t) => {
    const { app, request } = await buildTestApp(t)
    const created = await request({ method: 'POST', url: c.url, payload: app.protobuf.encode(c.obj), headers: { 'content-type': PB, accept: PB } })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.headers['content-type'], PB)
    assert.ok(created.rawPayload.subarray(0, 4).equals(ENVELOPE_PREFIX))
    const name = c.obj.metadata.name as string
    const json = (await request({ method: 'GET', url: `${c.url}/${name}` })).json()
    assert.deepEqual(app.protobuf.decode(created.rawPayload), json)
    const got = await request({ method: 'GET', url: `${c.url}/${name}`, headers: { accept: PB } })
    assert.equal(got.statusCode, 200)
    assert.deepEqual(app.protobuf.decode(got.rawPayload), json)
    const list = await request({ method: 'GET', url: c.url, headers: { accept: PB } })
    assert.equal(list.statusCode, 200)
    assert.equal(app.protobuf.decode(list.rawPayload).kind, `${c.obj.kind as string}List`)
  })
}
