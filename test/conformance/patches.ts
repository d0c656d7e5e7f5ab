// The three patch types and server-side apply, each changing one label of the example; strategic
// merge of a merge list (metadata.finalizers) with its delete directive.
import assert from 'node:assert/strict'
import type { TestApp } from '../helpers/app.js'
import type { AnyObject } from '../../resources/define.js'
import type { Behaviour } from './behaviour.js'
import { stores } from './behaviour.js'
import { expectCode, FIELD_MANAGER, getJson, patch, withQuery, type PatchType } from './client.js'
import { itemUrl, renamed } from './subject.js'

/** A patch of each type that sets the label `key` to `value`. */
const LABEL_PATCHES: Record<Exclude<PatchType, 'applyPatch'>, (key: string, value: string, labels: boolean) => unknown> = {
  // A JSON patch cannot add below a path that does not exist: the labels map is added whole then.
  jsonPatch: (key, value, labels) => labels
    ? [{ op: 'add', path: `/metadata/labels/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, value }]
    : [{ op: 'add', path: '/metadata/labels', value: { [key]: value } }],
  mergePatch: (key, value) => ({ metadata: { labels: { [key]: value } } }),
  strategicMergePatch: (key, value) => ({ metadata: { labels: { [key]: value } } })
}

const patchBehaviour = (type: Exclude<PatchType, 'applyPatch'>, what: string): Behaviour => ({
  name: `patches it with a ${what}`,
  applies: (s) => stores(s, 'create', 'get', 'patch'),
  async run (s, api) {
    const key = `conformance/${type.toLowerCase()}`
    const current = await getJson(api, itemUrl(s))
    const res = await patch(api, itemUrl(s), type, LABEL_PATCHES[type](key, 'yes', current.metadata.labels !== undefined))
    expectCode(res, 200)
    const patched = res.json()
    assert.equal(patched.metadata.labels[key], 'yes')
    assert.notEqual(patched.metadata.resourceVersion, current.metadata.resourceVersion)
    assert.equal((await getJson(api, itemUrl(s))).metadata.labels[key], 'yes')
  }
})

export const jsonPatch = patchBehaviour('jsonPatch', 'JSON patch')
export const mergePatch = patchBehaviour('mergePatch', 'merge patch')
export const strategicMergePatch = patchBehaviour('strategicMergePatch', 'strategic merge patch')

// Finalizers the suite adds and takes away again: the object must still be deletable after.
const FINALIZERS = ['example.com/conformance-first', 'example.com/conformance-second']

/**
 * Puts the object's finalizers back as they were, left out when there were none (as the reference
 * would have left them; see emptiedFinalizers): whatever a behaviour did, the object can go.
 */
async function restoreFinalizers (api: TestApp, url: string, before: string[] | undefined): Promise<void> {
  expectCode(await patch(api, url, 'mergePatch', { metadata: { finalizers: before ?? null } }), 200)
}

export const strategicListMerge: Behaviour = {
  name: 'merges metadata.finalizers by strategic merge patch, and deletes from it by directive',
  applies: (s) => stores(s, 'create', 'get', 'patch'),
  async run (s, api) {
    const before: string[] | undefined = (await getJson(api, itemUrl(s))).metadata.finalizers
    try {
      for (const f of FINALIZERS) expectCode(await patch(api, itemUrl(s), 'strategicMergePatch', { metadata: { finalizers: [f] } }), 200)
      const merged = await getJson(api, itemUrl(s))
      assert.deepEqual([...merged.metadata.finalizers].sort(), [...before ?? [], ...FINALIZERS].sort(), 'a strategic merge patch of a merge list adds to it')
      const removed = await patch(api, itemUrl(s), 'strategicMergePatch', { metadata: { '$deleteFromPrimitiveList/finalizers': FINALIZERS } })
      expectCode(removed, 200)
      assert.deepEqual(removed.json().metadata.finalizers ?? [], before ?? [])
    } finally {
      await restoreFinalizers(api, itemUrl(s), before)
    }
  }
}

export const emptiedFinalizers: Behaviour = {
  name: 'leaves metadata.finalizers out once a patch empties it',
  applies: (s) => stores(s, 'create', 'get', 'patch'),
  async run (s, api) {
    const before: string[] | undefined = (await getJson(api, itemUrl(s))).metadata.finalizers
    const added = 'example.com/conformance-emptied'
    try {
      expectCode(await patch(api, itemUrl(s), 'strategicMergePatch', { metadata: { finalizers: [added] } }), 200)
      const removed = await patch(api, itemUrl(s), 'strategicMergePatch', { metadata: { '$deleteFromPrimitiveList/finalizers': [added] } })
      expectCode(removed, 200)
      // The reference's ObjectMeta lists are omitempty: an empty one is not there (nor can protobuf tell it apart).
      assert.deepEqual(removed.json().metadata.finalizers, before, `finalizers ${JSON.stringify(removed.json().metadata.finalizers)}`)
    } finally {
      await restoreFinalizers(api, itemUrl(s), before)
    }
  }
}

const APPLIED_LABEL = 'conformance/applied'

const applied = (res: AnyObject): AnyObject | undefined =>
  (res.metadata.managedFields as AnyObject[] | undefined)?.find(m => m.manager === FIELD_MANAGER && m.operation === 'Apply')

export const serverSideApply: Behaviour = {
  name: 'creates and changes an object by server-side apply, recording its field manager',
  applies: (s) => stores(s, 'create', 'patch', 'delete'),
  async run (s, api) {
    const name = `${s.name}-applied`
    const url = withQuery(itemUrl(s, name), { fieldManager: FIELD_MANAGER })
    // The label gives the manager a field of its own on every kind (an example may be a name alone).
    const configuration = (value: string): AnyObject => {
      const obj = renamed(s, name)
      return { ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata.labels, [APPLIED_LABEL]: value } } }
    }
    const created = await patch(api, url, 'applyPatch', configuration('created'))
    expectCode(created, 201)
    const entry = applied(created.json())
    assert.ok(entry, `no Apply entry of ${FIELD_MANAGER} in ${JSON.stringify(created.json().metadata.managedFields)}`)
    assert.equal(entry.fieldsType, 'FieldsV1')
    assert.equal(entry.apiVersion, s.served.apiVersion)

    const changed = await patch(api, url, 'applyPatch', configuration('changed'))
    expectCode(changed, 200)
    assert.equal(changed.json().metadata.labels[APPLIED_LABEL], 'changed')
    assert.ok(applied(changed.json())?.fieldsV1?.['f:metadata']?.['f:labels']?.[`f:${APPLIED_LABEL}`] !== undefined,
      `the label is not recorded as ${FIELD_MANAGER}'s: ${JSON.stringify(changed.json().metadata.managedFields)}`)
    expectCode(await api.request({ method: 'DELETE', url: itemUrl(s, name) }), 200, 202)
  }
}
