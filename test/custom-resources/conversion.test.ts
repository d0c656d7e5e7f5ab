// A definition with Webhook conversion, served through a real HTTPS conversion webhook: objects
// are stored in the storage version and every read and write through the other version goes
// through the webhook (one call per list), in order on a watch; a failing webhook is a 500.
import { after, describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { suiteApp } from '../resources/suite.js'
import { converting, startConversionWebhook, type ConversionWebhookServer } from '../helpers/conversion-webhook.js'
import { patchOf, startAdmissionWebhook } from '../helpers/admission-webhook.js'

type Obj = Record<string, any>
const crdUrl = '/apis/apiextensions.svc.io/v1/customresourcedefinitions'
const v1 = '/apis/shapes.example.com/v1/namespaces/default/boxes'
const v2 = '/apis/shapes.example.com/v2/namespaces/default/boxes'
const cleanups: Array<() => unknown> = []

/** v1 calls it spec.replicas, v2 spec.size: the webhook renames it each way. */
function rename (o: Obj): Obj {
  const spec = { ...(o.spec ?? {}) }
  if (o.apiVersion === 'shapes.example.com/v2' && 'replicas' in spec) { spec.size = spec.replicas; delete spec.replicas }
  if (o.apiVersion === 'shapes.example.com/v1' && 'size' in spec) { spec.replicas = spec.size; delete spec.size }
  return { ...o, spec }
}

const version = (name: string, storage: boolean, field: string): Obj => ({
  name,
  served: true,
  storage,
  schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { [field]: { type: 'integer' }, color: { type: 'string' } } } } } }
})

describe('custom resources with a conversion webhook', () => {
  const app = suiteApp()
  let hook: ConversionWebhookServer
  const req = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    await app().request({ method: method as 'GET', url, payload: payload as Obj, headers })

  before(async () => {
    hook = await startConversionWebhook({ after: fn => { cleanups.push(fn) } })
    hook.handle(converting(rename))
    const res = await req('POST', crdUrl, {
      metadata: { name: 'boxes.shapes.example.com' },
      spec: {
        group: 'shapes.example.com',
        scope: 'Namespaced',
        names: { plural: 'boxes', singular: 'box', kind: 'Box' },
        versions: [version('v1', true, 'replicas'), version('v2', false, 'size')],
        conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: `${hook.base}/convert`, caBundle: hook.caBundle }, conversionReviewVersions: ['v1'] } }
      }
    })
    assert.equal(res.statusCode, 201, res.body)
    for (const end = Date.now() + 8000; Date.now() < end; await sleep(50)) if ((await req('GET', v1)).statusCode === 200) return
    assert.fail('never served')
  })
  after(async () => { for (const fn of cleanups) await fn() })

  it('stores a v2 create in v1 and answers it in v2', async () => {
    const created = await req('POST', v2, { apiVersion: 'shapes.example.com/v2', kind: 'Box', metadata: { name: 'a' }, spec: { size: 3 } })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.json().apiVersion, 'shapes.example.com/v2')
    assert.deepEqual(created.json().spec, { size: 3 })
    const stored = (await req('GET', `${v1}/a`)).json()
    assert.equal(stored.apiVersion, 'shapes.example.com/v1')
    assert.deepEqual(stored.spec, { replicas: 3 })
    const review = hook.received.at(-1)!.review
    assert.equal(review.apiVersion, 'apiextensions.k8s.io/v1')
    assert.equal(review.kind, 'ConversionReview')
  })

  it('converts a list in one call, and a patch through v2', async () => {
    await req('POST', v1, { apiVersion: 'shapes.example.com/v1', kind: 'Box', metadata: { name: 'b' }, spec: { replicas: 1 } })
    const before = hook.received.length
    const list = (await req('GET', v2)).json()
    assert.equal(hook.received.length, before + 1)
    assert.deepEqual(list.items.map((o: Obj) => [o.apiVersion, o.metadata.name, o.spec.size]), [['shapes.example.com/v2', 'a', 3], ['shapes.example.com/v2', 'b', 1]])
    const patched = await req('PATCH', `${v2}/b`, { spec: { size: 7 } }, { 'content-type': 'application/merge-patch+json' })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.deepEqual(patched.json().spec, { size: 7 })
    assert.deepEqual((await req('GET', `${v1}/b`)).json().spec, { replicas: 7 })
    const put = await req('PUT', `${v2}/b`, { ...(patched.json() as Obj), spec: { size: 8, color: 'red' } })
    assert.equal(put.statusCode, 200, put.body)
    assert.deepEqual((await req('GET', `${v1}/b`)).json().spec, { replicas: 8, color: 'red' })
  })

  it('watches through v2 with the objects converted, in order', async () => {
    const res = await req('GET', `${v2}?watch=1&timeoutSeconds=1`)
    const events = res.body.trim().split('\n').map(l => JSON.parse(l) as Obj)
    assert.deepEqual(events.map(e => [e.type, e.object.apiVersion, e.object.metadata.name]), [['ADDED', 'shapes.example.com/v2', 'a'], ['ADDED', 'shapes.example.com/v2', 'b']])
    assert.equal(events[1]!.object.spec.size, 8)
  })

  it('lists the group\'s versions by priority, the highest preferred, whichever is stored', async () => {
    const group = (await req('GET', '/apis/shapes.example.com')).json()
    assert.deepEqual(group.versions.map((v: Obj) => v.version), ['v2', 'v1'])
    assert.equal(group.preferredVersion.version, 'v2')
    const aggregated = (await req('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })).json()
    const entry = aggregated.items.find((i: Obj) => i.metadata.name === 'shapes.example.com')
    assert.deepEqual(entry.versions.map((v: Obj) => v.version), ['v2', 'v1'])
  })

  it('publishes each version with its own schema', async () => {
    const spec = async (version: string): Promise<Obj> => {
      const doc = (await req('GET', `/openapi/v3/apis/shapes.example.com/${version}`)).json()
      const found = Object.values(doc.components.schemas).find(d => (d as Obj)['x-kubernetes-group-version-kind']?.[0]?.kind === 'Box') as Obj
      return found.properties.spec.properties
    }
    assert.deepEqual(Object.keys(await spec('v1')).sort(), ['color', 'replicas'])
    assert.deepEqual(Object.keys(await spec('v2')).sort(), ['color', 'size'])
  })

  it('sends admission webhooks whose rules name v2 the objects converted to v2, and converts their patch back', async () => {
    const admission = await startAdmissionWebhook({ after: fn => { cleanups.push(fn) } })
    const reviews: Obj[] = []
    admission.handle('/boxes', (review) => {
      reviews.push(review.request)
      return patchOf([{ op: 'add', path: '/spec/color', value: 'blue' }, { op: 'replace', path: '/spec/size', value: review.request.object.spec.size * 2 }])
    })
    const config = await req('POST', '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations', {
      metadata: { name: 'double-boxes' },
      webhooks: [{
        name: 'double.boxes.example.com',
        clientConfig: { url: `${admission.base}/boxes`, caBundle: admission.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: ['shapes.example.com'], apiVersions: ['v2'], resources: ['boxes'] }],
        matchPolicy: 'Exact',
        sideEffects: 'None',
        admissionReviewVersions: ['v1']
      }]
    })
    assert.equal(config.statusCode, 201, config.body)
    try {
      const created = await req('POST', v2, { apiVersion: 'shapes.example.com/v2', kind: 'Box', metadata: { name: 'admitted' }, spec: { size: 5 } })
      assert.equal(created.statusCode, 201, created.body)
      assert.deepEqual(created.json().spec, { size: 10, color: 'blue' })
      const seen = reviews.at(-1)!
      assert.deepEqual(seen.kind, { group: 'shapes.example.com', version: 'v2', kind: 'Box' })
      assert.equal(seen.object.apiVersion, 'shapes.example.com/v2')
      assert.deepEqual(seen.object.spec, { size: 5 })
      assert.deepEqual((await req('GET', `${v1}/admitted`)).json().spec, { replicas: 10, color: 'blue' })
    } finally {
      await req('DELETE', '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations/double-boxes')
    }
  })

  it('answers 500 with the reference message when the webhook fails', async () => {
    hook.handle(review => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure', message: 'cannot convert boxes today' } } }))
    try {
      const res = await req('GET', `${v2}/a`)
      assert.equal(res.statusCode, 500, res.body)
      assert.match(res.json().message, /^Internal error occurred: conversion webhook for shapes\.example\.com\/v1, Kind=Box failed: cannot convert boxes today/)
      // The stored version needs no conversion.
      assert.equal((await req('GET', `${v1}/a`)).statusCode, 200)
    } finally {
      hook.handle(converting(rename))
    }
  })
})
