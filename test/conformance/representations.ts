// Other representations of the same objects: protobuf both ways, and Tables with the kind's columns.
import assert from 'node:assert/strict'
import type { TestApp } from '../helpers/app.js'
import type { AnyObject } from '../../resources/define.js'
import { MEDIA_TYPES } from '../../resources/naming.js'
import type { Behaviour } from './behaviour.js'
import { stores } from './behaviour.js'
import { expectCode, getJson, readThenWrite, TABLE_ACCEPT } from './client.js'
import { itemUrl, type Subject } from './subject.js'

const PROTOBUF_LABEL = 'conformance/protobuf'

/**
 * The object as `read` decodes it and as JSON, at the same resourceVersion: read again when a
 * controller wrote between the two reads.
 */
async function besideJson (api: TestApp, url: string, read: () => Promise<AnyObject>): Promise<{ decoded: AnyObject, json: AnyObject }> {
  for (let attempt = 1; ; attempt++) {
    const decoded = await read()
    const json = await getJson(api, url)
    if (decoded.metadata?.resourceVersion === json.metadata.resourceVersion || attempt === 5) return { decoded, json }
  }
}

export const protobufRoundTrip: Behaviour = {
  name: 'answers and takes protobuf as its JSON',
  applies: (s, api) => !stores(s, 'create', 'get', 'update')
    ? false
    : api.app.protobuf.supports(s.served.apiVersion, s.served.kind) || `no protobuf message for ${s.served.apiVersion} ${s.served.kind} (or its list) yet`,
  async run (s, api) {
    const codec = api.app.protobuf
    const item = await besideJson(api, itemUrl(s), async () => {
      const res = await api.request({ method: 'GET', url: itemUrl(s), headers: { accept: MEDIA_TYPES.protobuf } })
      expectCode(res, 200)
      assert.equal(res.headers['content-type'], MEDIA_TYPES.protobuf, 'a field the message lacks makes the answer JSON')
      return codec.decode(res.rawPayload)
    })
    assert.deepEqual(item.decoded, item.json)

    if (stores(s, 'list')) {
      const listed = await besideJson(api, itemUrl(s), async () => {
        const list = await api.request({ method: 'GET', url: s.collection, headers: { accept: MEDIA_TYPES.protobuf } })
        expectCode(list, 200)
        assert.equal(list.headers['content-type'], MEDIA_TYPES.protobuf)
        return (codec.decode(list.rawPayload).items as AnyObject[]).find(i => i.metadata.name === s.name) ?? {}
      })
      // A list's items carry no type of their own in protobuf: the list's is theirs.
      const { apiVersion: _a, kind: _k, ...untyped } = listed.json
      assert.deepEqual(listed.decoded, untyped)
    }

    const labelled = (current: AnyObject): AnyObject => ({ ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, [PROTOBUF_LABEL]: 'yes' } } })
    const { current, res: put } = await readThenWrite(api, itemUrl(s), (c) => api.request({
      method: 'PUT',
      url: itemUrl(s),
      payload: codec.encode(labelled(c)),
      headers: { 'content-type': MEDIA_TYPES.protobuf, accept: MEDIA_TYPES.json }
    }))
    expectCode(put, 200)
    const changed = labelled(current)
    const { metadata: putMeta, ...putRest } = put.json()
    const { metadata: meta, ...rest } = changed
    assert.equal(putMeta.labels[PROTOBUF_LABEL], 'yes')
    assert.deepEqual(putRest, rest)
    assert.equal(putMeta.uid, meta.uid)
  }
}

const virtualMessage = (s: Subject, api: TestApp): boolean | string => s.served.virtual === undefined || !s.served.verbs.includes('create')
  ? false
  : api.app.protobuf.messageOf(s.served.apiVersion, s.served.kind) !== undefined || `no protobuf message for ${s.served.apiVersion} ${s.served.kind} yet`

export const protobufVirtualBody: Behaviour = {
  name: 'takes a create in protobuf, answering as to its JSON',
  applies: virtualMessage,
  async run (s, api) {
    const json = await api.request({ method: 'POST', url: s.collection, payload: s.object })
    expectCode(json, 201)
    const res = await api.request({ method: 'POST', url: s.collection, payload: api.app.protobuf.encode(s.object), headers: { 'content-type': MEDIA_TYPES.protobuf, accept: MEDIA_TYPES.json } })
    expectCode(res, 201)
    assert.deepEqual(res.json(), json.json())
  }
}

export const protobufVirtualAnswer: Behaviour = {
  name: 'answers a create in protobuf',
  applies: virtualMessage,
  async run (s, api) {
    const codec = api.app.protobuf
    const json = await api.request({ method: 'POST', url: s.collection, payload: s.object })
    expectCode(json, 201)
    const res = await api.request({ method: 'POST', url: s.collection, payload: s.object, headers: { accept: MEDIA_TYPES.protobuf } })
    expectCode(res, 201)
    assert.equal(res.headers['content-type'], MEDIA_TYPES.protobuf)
    assert.deepEqual(codec.decode(res.rawPayload), json.json())
  }
}

export const table: Behaviour = {
  name: 'answers a Table with Name and its own columns',
  applies: (s) => stores(s, 'create', 'get', 'list'),
  async run (s, api) {
    const obj = await getJson(api, itemUrl(s))
    const expectedName = s.served.tableName?.(obj) ?? s.name
    for (const url of [itemUrl(s), s.collection]) {
      const res = await api.request({ method: 'GET', url, headers: { accept: TABLE_ACCEPT } })
      expectCode(res, 200)
      const t = res.json()
      assert.equal(t.kind, 'Table')
      const columns = (t.columnDefinitions as AnyObject[]).map(c => c.name)
      assert.equal(columns[0], 'Name')
      for (const c of s.served.columns ?? []) assert.ok(columns.includes(c.name), `column ${c.name} missing from ${JSON.stringify(columns)}`)
      const row = (t.rows as AnyObject[]).find(r => r.object?.metadata?.name === s.name)
      assert.ok(row, `no row for ${s.name}`)
      assert.equal(row.cells[0], expectedName)
      assert.equal(row.cells.length, columns.length)
    }
  }
}
