// metadata.ownerReferences on every kind: ValidateOwnerReferences' rules and messages, and the
// handlers' removal of repeated entries (with the Warning the reference server sends).
import { before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { suiteApp } from '../resources/suite.js'

const CM = '/api/v1/namespaces/default/configmaps'
const merge = { 'content-type': 'application/merge-patch+json' }

type Obj = Record<string, any>
const ref = (over: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'uid-1', ...over })
const warnings = (res: { headers: Record<string, unknown> }): string[] => {
  const w = res.headers.warning
  return w === undefined ? [] : (Array.isArray(w) ? w : [w]).map(String)
}
const DUPLICATES = (uids: string): string =>
  `299 - ".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${uids}"`

describe('owner references', () => {
  // The owners named here do not exist: the garbage collector would delete the objects under test.
  const app = suiteApp({ controllers: ['*', '-garbagecollector'] })
  // A mutating plugin that repeats the first owner of objects labelled for it.
  before(() => {
    app().app.admission.add({
      name: 'test:repeat-owner',
      alwaysOn: true,
      handles: (a) => a.object?.metadata?.labels?.['add-owner'] === 'twice',
      mutate: (a) => { a.object!.metadata.ownerReferences.push({ ...a.object!.metadata.ownerReferences[0] }) }
    })
  })
  let n = 0
  const create = (owners: Obj[]) => app().request({ method: 'POST', url: CM, payload: { metadata: { name: `cm-${++n}`, ownerReferences: owners } } })

  const invalid: Array<{ name: string, owners: Obj[], causes: Array<[string, string, string]> }> = [
    { name: 'a core v1 Event as owner', owners: [ref({ kind: 'Event', name: 'e' })], causes: [['FieldValueInvalid', 'metadata.ownerReferences', `Invalid value: ${JSON.stringify(ref({ kind: 'Event', name: 'e' }))}: /v1, Kind=Event is disallowed from being an owner`]] },
    { name: 'an empty apiVersion', owners: [ref({ apiVersion: '' })], causes: [['FieldValueInvalid', 'metadata.ownerReferences.apiVersion', 'Invalid value: "": version must not be empty']] },
    { name: 'an apiVersion without a version', owners: [ref({ apiVersion: 'apps/' })], causes: [['FieldValueInvalid', 'metadata.ownerReferences.apiVersion', 'Invalid value: "apps/": version must not be empty']] },
    { name: 'an apiVersion of three parts', owners: [ref({ apiVersion: 'a/b/c' })], causes: [['FieldValueInvalid', 'metadata.ownerReferences.apiVersion', 'Invalid value: "a/b/c": version must not be empty']] },
    {
      name: 'empty kind, name and uid',
      owners: [ref({ kind: '', name: '', uid: '' })],
      causes: [
        ['FieldValueInvalid', 'metadata.ownerReferences.kind', 'Invalid value: "": must not be empty'],
        ['FieldValueInvalid', 'metadata.ownerReferences.name', 'Invalid value: "": must not be empty'],
        ['FieldValueInvalid', 'metadata.ownerReferences.uid', 'Invalid value: "": must not be empty']
      ]
    }
  ]
  for (const c of invalid) {
    it(`rejects ${c.name}, in the reference's words`, async () => {
      const res = await create(c.owners)
      assert.equal(res.statusCode, 422, res.body)
      assert.deepEqual(res.json().details.causes, c.causes.map(([reason, field, message]) => ({ reason, message, field })))
    })
  }

  it('removes a repeated reference on create, with the reference\'s warning', async () => {
    const res = await create([ref(), ref({ uid: 'uid-2', name: 'other' }), ref(), ref({ uid: 'uid-2', name: 'other' })])
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().metadata.ownerReferences, [ref(), ref({ uid: 'uid-2', name: 'other' })])
    assert.deepEqual(warnings(res), [DUPLICATES('uid-1, uid-2')])
    const stored = await app().request({ method: 'GET', url: `${CM}/${String(res.json().metadata.name)}` })
    assert.deepEqual(stored.json().metadata.ownerReferences, [ref(), ref({ uid: 'uid-2', name: 'other' })])
  })

  it('keeps references that share a UID but differ in another field, as the reference compares whole entries', async () => {
    const res = await create([ref(), ref({ controller: false }), ref()])
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().metadata.ownerReferences, [ref(), ref({ controller: false })])
    assert.deepEqual(warnings(res), [DUPLICATES('uid-1')])
  })

  it('removes a repeated reference on update and patch', async () => {
    const created = await create([ref()])
    const name = String(created.json().metadata.name)
    const put = await app().request({ method: 'PUT', url: `${CM}/${name}`, payload: { ...(created.json() as Obj), metadata: { ...(created.json() as Obj).metadata, ownerReferences: [ref(), ref()] } } })
    assert.equal(put.statusCode, 200, put.body)
    assert.deepEqual(put.json().metadata.ownerReferences, [ref()])
    assert.deepEqual(warnings(put), [DUPLICATES('uid-1')])
    const patched = await app().request({ method: 'PATCH', url: `${CM}/${name}`, headers: merge, payload: { metadata: { ownerReferences: [ref({ uid: 'uid-3' }), ref({ uid: 'uid-3' })] } } })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.deepEqual(patched.json().metadata.ownerReferences, [ref({ uid: 'uid-3' })])
    assert.equal(warnings(patched).length, 1)
    assert.match(warnings(patched)[0]!, /duplicate UID\(s\) observed: uid-3"$/)
  })

  it('removes a repeat that mutating admission adds, naming admission in the warning', async () => {
    const res = await app().request({ method: 'POST', url: CM, payload: { metadata: { name: 'admitted', labels: { 'add-owner': 'twice' }, ownerReferences: [ref()] } } })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().metadata.ownerReferences, [ref()])
    assert.deepEqual(warnings(res), [DUPLICATES('uid-1').replace('contains duplicate entries;', 'contains duplicate entries after mutating admission happens;')])
  })

  it('accepts an events.svc.io Event as owner: only the core v1 kind is banned', async () => {
    const res = await create([ref({ apiVersion: 'events.svc.io/v1', kind: 'Event' })])
    assert.equal(res.statusCode, 201, res.body)
  })
})
