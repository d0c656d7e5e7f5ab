// The upstream spelling of a vendor group (`storage.k8s.io` for `storage.svc.io`): typed clients
// hard-code it, so every kind of such a group is served under it too, answering in it.
import assert from 'node:assert/strict'
import type { TestApp } from '../helpers/app.js'
import type { AnyObject } from '../../resources/define.js'
import { MEDIA_TYPES, upstreamTwin } from '../../resources/naming.js'
import type { Behaviour } from './behaviour.js'
import { stores } from './behaviour.js'
import { expectCode, expectGone, getJson, withQuery } from './client.js'
import { renamed, type Subject } from './subject.js'
import { watchFor } from './watch.js'

const twinOf = (s: Subject): string => upstreamTwin(s.served.group)

/** The subject's URLs and apiVersion under the upstream spelling. */
function upstream (s: Subject) {
  const group = twinOf(s)
  const prefix = `/apis/${s.served.group}/`
  const collection = `/apis/${group}/${s.collection.slice(prefix.length)}`
  return { apiVersion: `${group}/${s.served.version}`, collection, item: (name: string) => `${collection}/${name}` }
}

export const upstreamSpelling: Behaviour = {
  name: 'is served under the upstream spelling of its group',
  applies: (s) => twinOf(s) !== s.served.group && s.served.verbs.includes('create'),
  async run (s, api) {
    const up = upstream(s)
    if (s.served.virtual !== undefined) {
      const res = await api.request({ method: 'POST', url: up.collection, payload: { ...s.object, apiVersion: up.apiVersion } })
      expectCode(res, 201)
      assert.equal(res.json().apiVersion, up.apiVersion)
      return
    }
    const name = `${s.name}-upstream`
    const listed = stores(s, 'list') ? (await getJson(api, up.collection)).metadata.resourceVersion as string : undefined
    const created = await api.request({ method: 'POST', url: up.collection, payload: { ...renamed(s, name), apiVersion: up.apiVersion } })
    expectCode(created, 201)
    assert.equal(created.json().apiVersion, up.apiVersion)
    if (stores(s, 'get')) await readsAlike(api, s, up, name)
    if (listed !== undefined) {
      const list = await getJson(api, up.collection)
      assert.equal(list.apiVersion, up.apiVersion)
      assert.equal(list.kind, s.served.listKind)
      if (stores(s, 'watch')) {
        const event = await watchFor(api, withQuery(up.collection, { watch: 'true', resourceVersion: listed, timeoutSeconds: '30' }), e => e.object?.metadata?.name === name)
        assert.equal(event.object.apiVersion, up.apiVersion)
      }
    }
    if (stores(s, 'delete')) {
      expectCode(await api.request({ method: 'DELETE', url: up.item(name) }), 200, 202)
      await expectGone(api, `${s.collection}/${name}`)
      const missing = await api.request({ method: 'GET', url: up.item(name) })
      expectCode(missing, 404)
      assert.equal(missing.json().message, `${s.served.plural}.${twinOf(s)} "${name}" not found`)
      assert.equal(missing.json().details.group, twinOf(s))
    }
  }
}

/** The same object through either spelling, each answering in its own; protobuf too where the kind speaks it. */
async function readsAlike (api: TestApp, s: Subject, up: ReturnType<typeof upstream>, name: string): Promise<void> {
  let ours = await getJson(api, `${s.collection}/${name}`)
  let theirs = await getJson(api, up.item(name))
  // A controller may write between the two reads (a new CustomResourceDefinition's names are accepted): read again.
  for (let attempt = 1; attempt < 5 && ours.metadata?.resourceVersion !== theirs.metadata?.resourceVersion; attempt++) {
    ours = await getJson(api, `${s.collection}/${name}`)
    theirs = await getJson(api, up.item(name))
  }
  assert.equal(ours.apiVersion, s.served.apiVersion)
  assert.deepEqual(theirs, { ...ours, apiVersion: up.apiVersion } as AnyObject)
  if (!api.app.protobuf.supports(s.served.apiVersion, s.served.kind)) return
  const pb = await api.request({ method: 'GET', url: up.item(name), headers: { accept: MEDIA_TYPES.upstreamProtobuf } })
  expectCode(pb, 200)
  assert.equal(api.app.protobuf.decode(pb.rawPayload).apiVersion, up.apiVersion)
}
