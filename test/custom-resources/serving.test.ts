// Custom objects served from an established CustomResourceDefinition: discovery, every verb,
// defaulting, pruning and validation against the version's schema, the status subresource,
// printer columns, selectable fields, versions, and the instances deleted with the definition.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { suiteApp } from '../resources/suite.js'
import { cronTabs } from './fixtures.js'

type Obj = Record<string, any>
const crdUrl = '/apis/apiextensions.svc.io/v1/customresourcedefinitions'
const base = '/apis/stable.example.com/v1/namespaces/default/crontabs'

const cronTab = (name: string, spec: Obj = {}): Obj =>
  ({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name }, spec: { cronSpec: '* * * * */5', image: 'img', ...spec } })

describe('custom resources', () => {
  const app = suiteApp()
  const req = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    await app().request({ method: method as 'GET', url, payload: payload as Obj, headers })

  /** Waits until the kind is served (the definition established and picked up). */
  async function served (url = `${base}`, ms = 8000): Promise<void> {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) {
      if ((await req('GET', url)).statusCode === 200) return
    }
    assert.fail(`${url} never served`)
  }

  it('serves a new definition: discovery, create with defaults, get, list', async () => {
    const created = await req('POST', crdUrl, cronTabs())
    assert.equal(created.statusCode, 201, created.body)
    await served()
    const disco = (await req('GET', '/apis/stable.example.com/v1')).json()
    const entry = disco.resources.find((r: Obj) => r.name === 'crontabs')
    assert.equal(entry.kind, 'CronTab')
    assert.deepEqual(entry.shortNames, ['ct'])
    assert.deepEqual(entry.categories, ['all'])
    assert.ok(disco.resources.some((r: Obj) => r.name === 'crontabs/status'))
    const group = (await req('GET', '/apis/stable.example.com')).json()
    assert.equal(group.preferredVersion.version, 'v1')

    const res = await req('POST', base, cronTab('first', { unknownField: 1 }))
    assert.equal(res.statusCode, 201, res.body)
    const obj = res.json()
    assert.equal(obj.spec.replicas, 1, 'defaulted')
    assert.equal(obj.spec.unknownField, undefined, 'pruned')
    assert.equal(obj.metadata.generation, 1)
    const got = (await req('GET', `${base}/first`)).json()
    assert.equal(got.metadata.uid, obj.metadata.uid)
    const list = (await req('GET', base)).json()
    assert.equal(list.kind, 'CronTabList')
    assert.equal(list.items.length, 1)
  })

  it('refuses what the schema refuses, with one field error per violation', async () => {
    await served()
    const res = await req('POST', base, cronTab('bad', { cronSpec: 'nope', replicas: 20, color: 'green' }))
    assert.equal(res.statusCode, 422, res.body)
    const causes = res.json().details.causes.map((c: Obj) => c.field).sort()
    assert.deepEqual(causes, ['spec.color', 'spec.cronSpec', 'spec.replicas'])
    assert.match(res.json().message, /^CronTab\.stable\.example\.com "bad" is invalid: /)
    const missing = await req('POST', base, { ...cronTab('bad2'), spec: { image: 'x' } })
    assert.equal(missing.statusCode, 422)
    assert.equal(missing.json().details.causes[0].field, 'spec.cronSpec')
    assert.equal(missing.json().details.causes[0].reason, 'FieldValueRequired')
  })

  it('reports unknown fields under fieldValidation Strict and Warn', async () => {
    await served()
    const strict = await req('POST', `${base}?fieldValidation=Strict`, cronTab('strict', { extra: true }))
    assert.equal(strict.statusCode, 400, strict.body)
    assert.match(strict.json().message, /unknown field "spec.extra"/)
    const warn = await req('POST', `${base}?fieldValidation=Warn`, cronTab('warned', { extra: true }))
    assert.equal(warn.statusCode, 201)
    assert.match(String(warn.headers.warning), /unknown field \\"spec.extra\\"/)
  })

  it('bumps generation on spec changes only, and changes status only through /status', async () => {
    await served()
    await req('POST', base, cronTab('gen'))
    const withStatus = await req('PATCH', `${base}/gen`, { spec: { image: 'next' }, status: { phase: 'Ignored' } }, { 'content-type': 'application/merge-patch+json' })
    assert.equal(withStatus.statusCode, 200, withStatus.body)
    assert.equal(withStatus.json().metadata.generation, 2)
    assert.equal(withStatus.json().status, undefined)
    const status = await req('PATCH', `${base}/gen/status`, { status: { phase: 'Running' }, metadata: { labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' })
    assert.equal(status.statusCode, 200, status.body)
    assert.equal(status.json().status.phase, 'Running')
    assert.equal(status.json().metadata.generation, 2)
    assert.equal(status.json().metadata.labels, undefined)
  })

  it('serves the scale subresource as autoscaling/v1 Scale', async () => {
    await served()
    await req('POST', base, cronTab('scaled', { replicas: 2 }))
    await req('PATCH', `${base}/scaled/status`, { status: { replicas: 2, labelSelector: 'app=web' } }, { 'content-type': 'application/merge-patch+json' })
    const disco = (await req('GET', '/apis/stable.example.com/v1')).json()
    const entry = disco.resources.find((r: Obj) => r.name === 'crontabs/scale')
    assert.deepEqual({ group: entry.group, version: entry.version, kind: entry.kind }, { group: 'autoscaling', version: 'v1', kind: 'Scale' })
    const scale = (await req('GET', `${base}/scaled/scale`)).json()
    assert.equal(scale.kind, 'Scale')
    assert.equal(scale.apiVersion, 'autoscaling/v1')
    assert.deepEqual(scale.spec, { replicas: 2 })
    assert.deepEqual(scale.status, { replicas: 2, selector: 'app=web' })
    const patched = await req('PATCH', `${base}/scaled/scale`, { spec: { replicas: 5 } }, { 'content-type': 'application/merge-patch+json' })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal(patched.json().spec.replicas, 5)
    const obj = (await req('GET', `${base}/scaled`)).json()
    assert.equal(obj.spec.replicas, 5)
    assert.equal(obj.metadata.generation, 2)
    const put = await req('PUT', `${base}/scaled/scale`, { ...(patched.json() as Obj), spec: { replicas: 4 } })
    assert.equal(put.statusCode, 200, put.body)
    const stale = await req('PUT', `${base}/scaled/scale`, { ...(patched.json() as Obj), spec: { replicas: 3 } })
    assert.equal(stale.statusCode, 409)
    const negative = await req('PATCH', `${base}/scaled/scale`, { spec: { replicas: -1 } }, { 'content-type': 'application/merge-patch+json' })
    assert.equal(negative.statusCode, 422)
    assert.equal(negative.json().message, 'Scale.autoscaling "scaled" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0')
    // The object's own schema still holds (maximum 10).
    const tooMany = await req('PATCH', `${base}/scaled/scale`, { spec: { replicas: 11 } }, { 'content-type': 'application/merge-patch+json' })
    assert.equal(tooMany.statusCode, 422)
  })

  it('answers protobuf requests as the reference does for types without a protobuf form', async () => {
    await served()
    const only = await req('GET', `${base}/first`, undefined, { accept: 'application/vnd.kubernetes.protobuf' })
    assert.equal(only.statusCode, 406, only.body)
    const either = await req('GET', `${base}/first`, undefined, { accept: 'application/vnd.kubernetes.protobuf,application/json' })
    assert.equal(either.statusCode, 200)
    assert.match(String(either.headers['content-type']), /^application\/json/)
    const body = await app().request({ method: 'POST', url: base, payload: Buffer.from([0x6b, 0x38, 0x73, 0x00]), headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } })
    assert.equal(body.statusCode, 415, body.body)
  })

  it('applies a Scale server-side: the manager owns the parent\'s replicas through the subresource', async () => {
    await served()
    await req('POST', base, cronTab('applied-scale', { replicas: 1 }))
    const apply = async (manager: string, replicas: number, force = false) => await req('PATCH', `${base}/applied-scale/scale?fieldManager=${manager}${force ? '&force=true' : ''}`,
      JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'applied-scale' }, spec: { replicas } }), { 'content-type': 'application/apply-patch+yaml' })
    // The creator owns spec.replicas: taking it over is a conflict, as with any other apply.
    const conflicting = await apply('autoscaler', 4)
    assert.equal(conflicting.statusCode, 409, conflicting.body)
    assert.match(conflicting.json().message, /^Apply failed with 1 conflict: conflict with ".*" using stable\.example\.com\/v1: \.spec\.replicas$/)
    const first = await apply('autoscaler', 4, true)
    assert.equal(first.statusCode, 200, first.body)
    assert.equal(first.json().kind, 'Scale')
    assert.equal(first.json().spec.replicas, 4)
    const obj = (await req('GET', `${base}/applied-scale`)).json()
    assert.equal(obj.spec.replicas, 4)
    const entry = obj.metadata.managedFields.find((e: Obj) => e.manager === 'autoscaler')
    assert.equal(entry.subresource, 'scale')
    assert.deepEqual(entry.fieldsV1, { 'f:spec': { 'f:replicas': {} } })
    const other = await apply('someone-else', 2)
    assert.equal(other.statusCode, 409, other.body)
    assert.equal((await apply('someone-else', 2, true)).statusCode, 200)
    const noManager = await req('PATCH', `${base}/applied-scale/scale`, JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 3 } }), { 'content-type': 'application/apply-patch+yaml' })
    assert.equal(noManager.statusCode, 422)
    assert.match(noManager.json().message, /fieldManager: Required value/)
  })

  it('refuses strategic merge patches as the reference does for custom resources', async () => {
    await served()
    await req('POST', base, cronTab('smp'))
    const res = await req('PATCH', `${base}/smp`, { spec: { image: 'x' } }, { 'content-type': 'application/strategic-merge-patch+json' })
    assert.equal(res.statusCode, 415)
    assert.equal(res.json().message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml')
  })

  it('answers a Table with the printer columns, and selects on selectable fields', async () => {
    await served()
    await req('POST', base, cronTab('red', { color: 'red', replicas: 3 }))
    await req('POST', base, cronTab('blue', { color: 'blue' }))
    const table = (await req('GET', `${base}/red`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json()
    assert.deepEqual(table.columnDefinitions.map((c: Obj) => c.name), ['Name', 'Spec', 'Replicas', 'Age'])
    assert.deepEqual(table.rows[0].cells.slice(0, 3), ['red', '* * * * */5', 3])
    // A date column shows the age, once: not an age read again as a timestamp ("NaNy").
    assert.match(table.rows[0].cells[3], /^\d+s$/)
    assert.equal(table.columnDefinitions[1].description, 'Custom resource definition column (in JSONPath format): .spec.cronSpec')
    const reds = (await req('GET', `${base}?fieldSelector=spec.color%3Dred`)).json()
    assert.deepEqual(reds.items.map((o: Obj) => o.metadata.name), ['red'])
    const bad = await req('GET', `${base}?fieldSelector=spec.size%3D1`)
    assert.equal(bad.statusCode, 400)
  })

  it('serves every served version over the same objects, a deprecated one with its warning', async () => {
    await served()
    const res = await req('GET', '/apis/stable.example.com/v1beta1/namespaces/default/crontabs/first')
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().apiVersion, 'stable.example.com/v1beta1')
    assert.equal(res.headers.warning, '299 - "stable.example.com/v1beta1 CronTab is deprecated"')
    // Each version's own printer columns: v1beta1 has none, so Name and Age.
    const table = (await req('GET', '/apis/stable.example.com/v1beta1/namespaces/default/crontabs', undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })).json()
    assert.deepEqual(table.columnDefinitions.map((c: Obj) => c.name), ['Name', 'Age'])
    const watched = await req('GET', '/apis/stable.example.com/v1beta1/namespaces/default/crontabs?watch=1&timeoutSeconds=1', undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })
    const first = JSON.parse(watched.body.split('\n')[0]!)
    assert.deepEqual(first.object.columnDefinitions.map((c: Obj) => c.name), ['Name', 'Age'])
  })

  it('publishes the schema in OpenAPI v3', async () => {
    await served()
    const index = (await req('GET', '/openapi/v3')).json()
    assert.ok(index.paths['apis/stable.example.com/v1'], Object.keys(index.paths).join(' '))
    const doc = (await req('GET', '/openapi/v3/apis/stable.example.com/v1')).json()
    const found = Object.entries(doc.components.schemas).find(([, s]) => (s as Obj)['x-kubernetes-group-version-kind']?.[0]?.kind === 'CronTab')
    assert.ok(found)
    const spec = (found![1] as Obj).properties.spec
    assert.deepEqual(spec.properties.color.enum, ['red', 'blue'])
  })

  it('holds an embedded resource\'s metadata to the ObjectMeta rules', async () => {
    const crd = {
      metadata: { name: 'templates.stable.example.com' },
      spec: {
        group: 'stable.example.com',
        scope: 'Cluster',
        names: { plural: 'templates', kind: 'Template' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } } } } } }]
      }
    }
    assert.equal((await req('POST', crdUrl, crd)).statusCode, 201)
    const url = '/apis/stable.example.com/v1/templates'
    await served(url)
    const embedded = (labels: Obj): Obj => ({ apiVersion: 'stable.example.com/v1', kind: 'Template', metadata: { name: 't' }, spec: { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels } } } })
    const bad = await req('POST', url, embedded({ 'bad key!': 'x' }))
    assert.equal(bad.statusCode, 422, bad.body)
    assert.equal(bad.json().details.causes[0].field, 'spec.template.metadata.labels')
    assert.equal((await req('POST', url, embedded({ app: 'web' }))).statusCode, 201)
  })

  it('ends open watches cleanly when the definition changes, and serves the new one', async () => {
    await served()
    const watching = req('GET', `${base}?watch=1&timeoutSeconds=30`)
    await sleep(200)
    const patched = await req('PATCH', `${crdUrl}/crontabs.stable.example.com`, { spec: { names: { shortNames: ['ct', 'cts'] } } }, { 'content-type': 'application/merge-patch+json' })
    assert.equal(patched.statusCode, 200, patched.body)
    const started = Date.now()
    const ended = await watching
    assert.ok(Date.now() - started < 10_000, 'the watch ended with the change, not at its timeout')
    assert.ok(!ended.body.includes('"ERROR"'), ended.body.slice(-300))
    for (const end = Date.now() + 5000; Date.now() < end; await sleep(50)) {
      const entry = (await req('GET', '/apis/stable.example.com/v1')).json().resources?.find((r: Obj) => r.name === 'crontabs')
      if (entry?.shortNames?.includes('cts') === true) return
    }
    assert.fail('the new short name never showed in discovery')
  })

  it('fills on read a default added after an object was stored', async () => {
    const gadgets = (withDefault: boolean): Obj => ({
      metadata: { name: 'gadgets.stable.example.com' },
      spec: {
        group: 'stable.example.com',
        scope: 'Cluster',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, tier: { type: 'string', ...(withDefault ? { default: 'web' } : {}) } } } } } } }]
      }
    })
    assert.equal((await req('POST', crdUrl, gadgets(false))).statusCode, 201)
    const url = '/apis/stable.example.com/v1/gadgets'
    await served(url)
    assert.equal((await req('POST', url, { apiVersion: 'stable.example.com/v1', kind: 'Gadget', metadata: { name: 'old' }, spec: { size: 1 } })).statusCode, 201)
    const crd = (await req('GET', `${crdUrl}/gadgets.stable.example.com`)).json()
    const updated = await req('PUT', `${crdUrl}/gadgets.stable.example.com`, { ...gadgets(true), metadata: crd.metadata })
    assert.equal(updated.statusCode, 200, updated.body)
    let spec: Obj = {}
    for (const end = Date.now() + 5000; Date.now() < end; await sleep(50)) {
      spec = (await req('GET', `${url}/old`)).json().spec ?? {}
      if (spec.tier !== undefined) break
    }
    assert.deepEqual(spec, { size: 1, tier: 'web' })
    assert.equal((await req('GET', url)).json().items[0].spec.tier, 'web')
  })

  it('deletes the instances with the definition, and a recreated one starts empty', async () => {
    await served()
    const del = await req('DELETE', `${crdUrl}/crontabs.stable.example.com`)
    assert.equal(del.statusCode, 200, del.body)
    for (const end = Date.now() + 10_000; Date.now() < end; await sleep(100)) {
      if ((await req('GET', `${crdUrl}/crontabs.stable.example.com`)).statusCode === 404) break
    }
    assert.equal((await req('GET', `${crdUrl}/crontabs.stable.example.com`)).statusCode, 404)
    for (const end = Date.now() + 5000; Date.now() < end; await sleep(50)) {
      if ((await req('GET', base)).statusCode === 404) break
    }
    assert.equal((await req('GET', base)).statusCode, 404)
    const left = (await req('GET', '/apis/stable.example.com/v1')).json()
    assert.deepEqual(left.resources.map((r: Obj) => r.name).sort(), ['gadgets', 'templates'])
    assert.equal((await req('POST', crdUrl, cronTabs())).statusCode, 201)
    await served()
    assert.deepEqual((await req('GET', base)).json().items, [])
  })
})

describe('custom resources whose storage version is not served', () => {
  const app = suiteApp()
  it('serves the other versions only, over objects stored in the storage version', async () => {
    const req = async (method: string, url: string, payload?: unknown) => await app().request({ method: method as 'GET', url, payload: payload as Obj })
    const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } }
    const res = await req('POST', '/apis/apiextensions.svc.io/v1/customresourcedefinitions', {
      metadata: { name: 'crates.stable.example.com' },
      spec: { group: 'stable.example.com', scope: 'Cluster', names: { plural: 'crates', kind: 'Crate' }, versions: [{ name: 'v1', served: true, storage: false, schema }, { name: 'v1beta1', served: false, storage: true, schema }] }
    })
    assert.equal(res.statusCode, 201, res.body)
    for (const end = Date.now() + 8000; Date.now() < end; await sleep(50)) if ((await req('GET', '/apis/stable.example.com/v1/crates')).statusCode === 200) break
    assert.equal((await req('POST', '/apis/stable.example.com/v1/crates', { apiVersion: 'stable.example.com/v1', kind: 'Crate', metadata: { name: 'c' }, spec: { size: 1 } })).statusCode, 201)
    assert.equal((await req('GET', '/apis/stable.example.com/v1beta1/crates')).statusCode, 404)
    const group = (await req('GET', '/apis/stable.example.com')).json()
    assert.deepEqual(group.versions.map((v: Obj) => v.version), ['v1'])
  })
})
