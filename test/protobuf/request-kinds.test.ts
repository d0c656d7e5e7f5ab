// The bodies of pods/binding, core bindings and pods/eviction in protobuf, as client-go sends them
// (a scheduler's Binding, kubectl drain's Eviction), and kubectl drain's older policy/v1beta1
// Eviction in either encoding.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { MEDIA_TYPES } from '../../resources/naming.js'

const PB: string = MEDIA_TYPES.upstreamProtobuf
const PODS = '/api/v1/namespaces/default/pods'

async function pod (api: TestApp, name: string): Promise<void> {
  const res = await api.request({ method: 'POST', url: PODS, payload: { metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } })
  assert.equal(res.statusCode, 201, res.body)
}
const nodeOf = async (api: TestApp, name: string): Promise<unknown> => (await api.request({ method: 'GET', url: `${PODS}/${name}` })).json().spec.nodeName

test('Binding bodies in protobuf bind through pods/binding and core bindings', async (t) => {
  const api = await buildTestApp(t)
  const codec = api.app.protobuf
  await pod(api, 'a')
  await pod(api, 'b')
  const binding = (name: string, node: string) => codec.encode({ apiVersion: 'v1', kind: 'Binding', metadata: { name, annotations: { 'example.com/x': 'y' } }, target: { kind: 'Node', name: node } })
  const sub = await api.request({ method: 'POST', url: `${PODS}/a/binding`, payload: binding('a', 'node-1'), headers: { 'content-type': PB, accept: 'application/json' } })
  assert.equal(sub.statusCode, 201, sub.body)
  assert.equal(await nodeOf(api, 'a'), 'node-1')
  const core = await api.request({ method: 'POST', url: '/api/v1/namespaces/default/bindings', payload: binding('b', 'node-2'), headers: { 'content-type': PB, accept: PB } })
  assert.equal(core.statusCode, 201, core.body)
  assert.equal(codec.decode(core.rawPayload).status, 'Success')
  assert.equal(await nodeOf(api, 'b'), 'node-2')
})

test('Eviction bodies in protobuf, and policy/v1beta1 Evictions, evict', async (t) => {
  const api = await buildTestApp(t, { controllers: ['*', '-disruption'] })
  const codec = api.app.protobuf
  for (const name of ['v1-pb', 'beta-pb', 'beta-json']) await pod(api, name)
  const gone = async (name: string) => {
    const res = await api.request({ method: 'GET', url: `${PODS}/${name}` })
    return res.statusCode === 404 || res.json().metadata.deletionTimestamp !== undefined
  }
  const pb = (apiVersion: string, name: string) => codec.encode({ apiVersion, kind: 'Eviction', metadata: { name, namespace: 'default' }, deleteOptions: { gracePeriodSeconds: 0 } })
  const v1 = await api.request({ method: 'POST', url: `${PODS}/v1-pb/eviction`, payload: pb('policy/v1', 'v1-pb'), headers: { 'content-type': PB } })
  assert.equal(v1.statusCode, 201, v1.body)
  assert.ok(await gone('v1-pb'))
  const beta = await api.request({ method: 'POST', url: `${PODS}/beta-pb/eviction`, payload: pb('policy/v1beta1', 'beta-pb'), headers: { 'content-type': PB } })
  assert.equal(beta.statusCode, 201, beta.body)
  assert.ok(await gone('beta-pb'))
  const json = await api.request({ method: 'POST', url: `${PODS}/beta-json/eviction`, payload: { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'beta-json' } } })
  assert.equal(json.statusCode, 201, json.body)
  assert.ok(await gone('beta-json'))
  // Other versions and kinds are still refused.
  const wrong = await api.request({ method: 'POST', url: `${PODS}/x/eviction`, payload: { apiVersion: 'policy/v2', kind: 'Eviction', metadata: { name: 'x' } } })
  assert.equal(wrong.statusCode, 400, wrong.body)
  assert.match(wrong.json().message, /does not match the expected API version \(policy\/v1\)/)
  const wrongKind = await api.request({ method: 'POST', url: `${PODS}/x/eviction`, payload: { apiVersion: 'policy/v1beta1', kind: 'Binding', metadata: { name: 'x' } } })
  assert.equal(wrongKind.statusCode, 400, wrongKind.body)
})
