// An object's life through the verbs: create, get, list, update with optimistic concurrency,
// delete and deletecollection.
import assert from 'node:assert/strict'
import type { Behaviour } from './behaviour.js'
import { stores } from './behaviour.js'
import type { AnyObject } from '../../resources/define.js'
import { expectCode, expectGone, getJson, itemNames, readThenWrite, withQuery } from './client.js'
import { itemUrl, renamed, type Subject } from './subject.js'

const UPDATED_LABEL = 'conformance/updated'

export const create: Behaviour = {
  name: 'creates the example',
  applies: (s) => stores(s, 'create'),
  async run (s, api) {
    if (stores(s, 'list')) s.state.listedBeforeCreate = (await getJson(api, s.collection)).metadata.resourceVersion
    const res = await api.request({ method: 'POST', url: s.collection, payload: s.object })
    expectCode(res, 201)
    const created: AnyObject = res.json()
    s.state.created = created
    assert.equal(created.apiVersion, s.served.apiVersion)
    assert.equal(created.kind, s.served.kind)
    assert.equal(created.metadata.name, s.name)
    if (s.namespace !== '') assert.equal(created.metadata.namespace, s.namespace)
    assert.match(created.metadata.uid, /^[0-9a-f-]{36}$/)
    assert.match(created.metadata.resourceVersion, /^\d+$/)
    assert.match(created.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  }
}

export const get: Behaviour = {
  name: 'gets it',
  applies: (s) => stores(s, 'create', 'get'),
  async run (s, api) {
    const got = await getJson(api, itemUrl(s))
    assert.equal(got.kind, s.served.kind)
    assert.equal(got.apiVersion, s.served.apiVersion)
    assert.equal(got.metadata.name, s.name)
  }
}

export const list: Behaviour = {
  name: 'lists it',
  applies: (s) => stores(s, 'create', 'list'),
  async run (s, api) {
    const list = await getJson(api, s.collection)
    assert.equal(list.kind, s.served.listKind)
    assert.equal(list.apiVersion, s.served.apiVersion)
    assert.match(list.metadata.resourceVersion, /^\d+$/)
    assert.ok(itemNames(list).includes(s.name), `${s.name} not in ${JSON.stringify(itemNames(list))}`)
  }
}

export const fieldSelector: Behaviour = {
  name: 'selects it by metadata.name',
  applies: (s) => stores(s, 'create', 'list'),
  async run (s, api) {
    const only = await getJson(api, withQuery(s.collection, { fieldSelector: `metadata.name=${s.name}` }))
    assert.deepEqual(itemNames(only), [s.name])
    const others = await getJson(api, withQuery(s.collection, { fieldSelector: `metadata.name!=${s.name}` }))
    assert.ok(!itemNames(others).includes(s.name))
  }
}

/** A field label's value on an object, read along its path (`regarding.kind`). */
const atPath = (label: string) => (obj: AnyObject): string | undefined => {
  const value = label.split('.').reduce<unknown>((o, key) => (o as AnyObject | undefined)?.[key], obj)
  return value === undefined || value === null ? undefined : String(value)
}

/** The field labels a version selects on beyond metadata.name, each with how to read its value. */
function fieldLabels (s: Subject): Record<string, (obj: AnyObject) => string | undefined> {
  const labels: Record<string, (obj: AnyObject) => string | undefined> = s.conversion === undefined
    ? { ...s.served.fieldSelectors }
    : Object.fromEntries(Object.keys(s.conversion.fieldLabels ?? {}).map(label => [label, atPath(label)]))
  if (s.namespace !== '') labels['metadata.namespace'] = atPath('metadata.namespace')
  delete labels['metadata.name']
  return labels
}

export const ownFieldSelectors: Behaviour = {
  name: 'selects it by each of its own field labels',
  applies: (s) => stores(s, 'create', 'get', 'list') && Object.keys(fieldLabels(s)).length > 0,
  async run (s, api) {
    const obj = await getJson(api, itemUrl(s))
    for (const [label, valueOf] of Object.entries(fieldLabels(s))) {
      const value = valueOf(obj) ?? ''
      const selected = await getJson(api, withQuery(s.collection, { fieldSelector: `${label}=${value}` }))
      assert.ok(itemNames(selected).includes(s.name), `${label}=${value} does not select ${s.name}`)
      const others = await getJson(api, withQuery(s.collection, { fieldSelector: `${label}!=${value}` }))
      assert.ok(!itemNames(others).includes(s.name), `${label}!=${value} selects ${s.name}`)
    }
  }
}

export const update: Behaviour = {
  name: 'updates it with its resourceVersion, and refuses a stale one (409)',
  applies: (s) => stores(s, 'create', 'get', 'update'),
  async run (s, api) {
    const changed = (current: AnyObject): AnyObject => ({ ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, [UPDATED_LABEL]: 'true' } } })
    const { current, res } = await readThenWrite(api, itemUrl(s), (c) => api.request({ method: 'PUT', url: itemUrl(s), payload: changed(c) }))
    expectCode(res, 200)
    const updated = res.json()
    assert.equal(updated.metadata.labels[UPDATED_LABEL], 'true')
    assert.notEqual(updated.metadata.resourceVersion, current.metadata.resourceVersion)
    const stale = await api.request({ method: 'PUT', url: itemUrl(s), payload: changed(current) })
    expectCode(stale, 409)
    assert.equal(stale.json().reason, 'Conflict')
  }
}

export const deleteCollection: Behaviour = {
  name: 'deletes a collection by field selector',
  applies: (s) => stores(s, 'create', 'deletecollection', 'get'),
  async run (s, api) {
    const name = `${s.name}-collected`
    expectCode(await api.request({ method: 'POST', url: s.collection, payload: renamed(s, name) }), 201)
    const res = await api.request({ method: 'DELETE', url: withQuery(s.collection, { fieldSelector: `metadata.name=${name}` }) })
    expectCode(res, 200)
    await expectGone(api, itemUrl(s, name))
    await getJson(api, itemUrl(s))
  }
}

export const deleteCollectionAnswer: Behaviour = {
  name: 'answers a deletecollection with the list of what it deleted',
  applies: (s) => stores(s, 'create', 'deletecollection'),
  async run (s, api) {
    const name = `${s.name}-collected-2`
    expectCode(await api.request({ method: 'POST', url: s.collection, payload: renamed(s, name) }), 201)
    const res = await api.request({ method: 'DELETE', url: withQuery(s.collection, { fieldSelector: `metadata.name=${name}` }) })
    expectCode(res, 200)
    const answer = res.json()
    assert.equal(answer.kind, s.served.listKind, `the reference answers the deleted objects' list: ${res.body}`)
    assert.deepEqual(itemNames(answer), [name])
  }
}

export const deleteObject: Behaviour = {
  name: 'deletes it',
  applies: (s) => stores(s, 'create', 'delete', 'get'),
  async run (s, api) {
    const res = await api.request({ method: 'DELETE', url: itemUrl(s) })
    expectCode(res, 200, 202)
    const answer = res.json()
    if (s.served.deleteReturns === 'Object') assert.equal(answer.kind, s.served.kind)
    else assert.ok(answer.kind === 'Status' || answer.kind === s.served.kind, `a delete answered ${answer.kind}`)
    if (answer.kind === 'Status') assert.equal(answer.status, 'Success')
    await expectGone(api, itemUrl(s))
  }
}
