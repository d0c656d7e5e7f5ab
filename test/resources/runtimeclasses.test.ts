// RuntimeClass (node.svc.io/v1): validation as the reference server's, the handler immutable,
// kubectl's columns.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { GROUPS } from '../../resources/naming.js'

const url = `/apis/${GROUPS.node}/v1/runtimeclasses`

describe('RuntimeClass', () => {
  it('stores a class with overhead and scheduling, and shows Name, Handler and Age', async (t) => {
    const { request } = await buildTestApp(t)
    const body = {
      metadata: { name: 'gvisor' },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
      scheduling: { nodeSelector: { 'sandbox.example.com/runtime': 'gvisor' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] }
    }
    const created = await request({ method: 'POST', url, payload: body })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.json().apiVersion, `${GROUPS.node}/v1`)
    assert.equal(created.json().kind, 'RuntimeClass')
    assert.deepEqual(created.json().scheduling, body.scheduling)
    const table = await request({ method: 'GET', url, headers: { accept: `application/json;as=Table;v=v1;g=${GROUPS.meta}` } })
    assert.equal(table.statusCode, 200, table.body)
    assert.deepEqual(table.json().columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Handler', 'Age'])
    assert.deepEqual(table.json().rows[0].cells.slice(0, 2), ['gvisor', 'runsc'])
  })

  it('refuses a handler that is not a DNS label, or missing, and bad overhead and scheduling', async (t) => {
    const { request } = await buildTestApp(t)
    const bad = await request({ method: 'POST', url, payload: { metadata: { name: 'bad' }, handler: 'Run_SC' } })
    assert.equal(bad.statusCode, 422, bad.body)
    assert.equal(bad.json().details.causes[0].field, 'handler')
    assert.match(bad.json().message, /handler: Invalid value: "Run_SC": a lowercase RFC 1123 label/)
    const missing = await request({ method: 'POST', url, payload: { metadata: { name: 'missing' } } })
    assert.equal(missing.statusCode, 422, missing.body)
    assert.ok(missing.json().details.causes.some((c: { field: string }) => c.field === 'handler'), missing.body)
    const negative = await request({ method: 'POST', url, payload: { metadata: { name: 'neg' }, handler: 'runc', overhead: { podFixed: { cpu: '-1' } } } })
    assert.equal(negative.statusCode, 422, negative.body)
    assert.equal(negative.json().details.causes[0].field, 'overhead.limits[cpu]')
    const selector = await request({ method: 'POST', url, payload: { metadata: { name: 'sel' }, handler: 'runc', scheduling: { nodeSelector: { 'bad key!': 'x' } } } })
    assert.equal(selector.statusCode, 422, selector.body)
    assert.equal(selector.json().details.causes[0].field, 'scheduling.nodeSelector')
    const toleration = await request({ method: 'POST', url, payload: { metadata: { name: 'tol' }, handler: 'runc', scheduling: { tolerations: [{ operator: 'Equal', value: 'x' }] } } })
    assert.equal(toleration.statusCode, 422, toleration.body)
    assert.equal(toleration.json().details.causes[0].field, 'scheduling.tolerations[0].operator')
  })

  it('keeps the handler immutable and lets the rest change', async (t) => {
    const { request } = await buildTestApp(t)
    const created = await request({ method: 'POST', url, payload: { metadata: { name: 'kata' }, handler: 'kata' } })
    assert.equal(created.statusCode, 201, created.body)
    const changed = await request({ method: 'PATCH', url: `${url}/kata`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { handler: 'kata-qemu' } })
    assert.equal(changed.statusCode, 422, changed.body)
    assert.match(changed.json().message, /handler: Invalid value: "kata-qemu": field is immutable/)
    const overhead = await request({ method: 'PATCH', url: `${url}/kata`, headers: { 'content-type': 'application/merge-patch+json' }, payload: { overhead: { podFixed: { memory: '64Mi' } } } })
    assert.equal(overhead.statusCode, 200, overhead.body)
    assert.deepEqual(overhead.json().overhead, { podFixed: { memory: '64Mi' } })
  })
})
