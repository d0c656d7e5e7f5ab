// The apiextensions controller: accepted names and conflicts between definitions of a group,
// NamesAccepted and Established, and the cleanup finalizer removed on delete.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { suiteApp } from '../resources/suite.js'

type Obj = Record<string, any>
const url = '/apis/apiextensions.svc.io/v1/customresourcedefinitions'

const definition = (plural: string, kind: string, extra: Obj = {}) => ({
  metadata: { name: `${plural}.example.com` },
  spec: {
    group: 'example.com',
    names: { plural, kind, ...extra },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }]
  }
})

const condition = (crd: Obj, type: string): Obj | undefined => (crd.status?.conditions ?? []).find((c: Obj) => c.type === type)

describe('apiextensions controller', () => {
  const app = suiteApp()

  /** Polls the definition until `done` holds of it; fails with its last state. */
  async function until (name: string, done: (crd: Obj) => boolean, ms = 8000): Promise<Obj> {
    let last: Obj = {}
    for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) {
      last = (await app().request({ method: 'GET', url: `${url}/${name}` })).json()
      if (done(last)) return last
    }
    assert.fail(`${name} never reached the state: ${JSON.stringify(last.status)}`)
  }

  it('accepts the names of a new definition and establishes it', async () => {
    const res = await app().request({ method: 'POST', url, payload: definition('widgets', 'Widget', { shortNames: ['wd'], categories: ['all'] }) })
    assert.equal(res.statusCode, 201, res.body)
    const crd = await until('widgets.example.com', c => condition(c, 'Established')?.status === 'True')
    assert.deepEqual(crd.status.acceptedNames, { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] })
    const { lastTransitionTime: t1, ...accepted } = condition(crd, 'NamesAccepted')!
    assert.deepEqual(accepted, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' })
    const { lastTransitionTime: t2, ...established } = condition(crd, 'Established')!
    assert.deepEqual(established, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' })
    assert.ok(t1 && t2)
    assert.deepEqual(crd.status.storedVersions, ['v1'])
  })

  it('refuses a short name an older definition of the group holds, and a kind', async () => {
    await until('widgets.example.com', c => condition(c, 'Established')?.status === 'True')
    const res = await app().request({ method: 'POST', url, payload: definition('wodgets', 'Wodget', { shortNames: ['wd', 'wo'] }) })
    assert.equal(res.statusCode, 201, res.body)
    const crd = await until('wodgets.example.com', c => condition(c, 'NamesAccepted') !== undefined)
    const { lastTransitionTime: _t, ...accepted } = condition(crd, 'NamesAccepted')!
    assert.deepEqual(accepted, { type: 'NamesAccepted', status: 'False', reason: 'ShortNamesConflict', message: '"wd" is already in use' })
    assert.equal(condition(crd, 'Established')?.status, 'False')
    assert.equal(condition(crd, 'Established')?.reason, 'NotAccepted')
    // The names that do not conflict are granted; the short names not at all.
    assert.equal(crd.status.acceptedNames.plural, 'wodgets')
    assert.equal(crd.status.acceptedNames.shortNames, undefined)

    const kind = await app().request({ method: 'POST', url, payload: definition('gizmos', 'Widget', { listKind: 'GizmoList' }) })
    assert.equal(kind.statusCode, 201, kind.body)
    const refused = await until('gizmos.example.com', c => condition(c, 'NamesAccepted') !== undefined)
    assert.equal(condition(refused, 'NamesAccepted')?.reason, 'KindConflict')
    assert.equal(condition(refused, 'NamesAccepted')?.message, '"Widget" is already in use')
    // The older definition keeps its names.
    const older = (await app().request({ method: 'GET', url: `${url}/widgets.example.com` })).json()
    assert.equal(condition(older, 'NamesAccepted')?.status, 'True')
  })

  it('accepts the names once the conflict is fixed', async () => {
    const res = await app().request({ method: 'PATCH', url: `${url}/wodgets.example.com`, headers: { 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify({ spec: { names: { shortNames: ['wo'] } } }) })
    assert.equal(res.statusCode, 200, res.body)
    const crd = await until('wodgets.example.com', c => condition(c, 'Established')?.status === 'True')
    assert.deepEqual(crd.status.acceptedNames.shortNames, ['wo'])
  })

  it('deletes a definition: Terminating, then the cleanup finalizer goes and with it the definition', async () => {
    const del = await app().request({ method: 'DELETE', url: `${url}/gizmos.example.com` })
    assert.equal(del.statusCode, 200, del.body)
    const marked = del.json()
    assert.ok(marked.metadata.deletionTimestamp)
    assert.equal(condition(marked, 'Terminating')?.status, 'True')
    for (const end = Date.now() + 8000; Date.now() < end; await sleep(100)) {
      if ((await app().request({ method: 'GET', url: `${url}/gizmos.example.com` })).statusCode === 404) return
    }
    assert.fail('the definition is still there')
  })
})
