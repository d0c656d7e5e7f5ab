// metadata.ownerReferences on every kind: ValidateOwnerReferences' rules and messages, and the
// handlers' removal of repeated entries (with the Warning the reference server sends).
import { describe, it } from 'node:test'
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
  const app = suiteApp()
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

  it('accepts an events.svc.io Event as owner: only the core v1 kind is banned', async () => {
    const res = await create([ref({ apiVersion: 'events.svc.io/v1', kind: 'Event' })])
    assert.equal(res.statusCode, 201, res.body)
  })
})
