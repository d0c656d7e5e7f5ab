// DaemonSet and ControllerRevision (apps/v1): the reference's defaults and ValidateDaemonSet
// rules (selector, template, rolling update by maxUnavailable or maxSurge), the fixed selector,
// status only through /status, table columns; a revision's required data, fixed once written.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'

const daemonsets = '/apis/apps/v1/namespaces/default/daemonsets'
const revisions = '/apis/apps/v1/namespaces/default/controllerrevisions'
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }

type Obj = Record<string, any>

const template = (labels: Obj = { app: 'agent' }, spec: Obj = {}) => ({ metadata: { labels }, spec: { containers: [{ name: 'agent', image: 'registry.example/agent:1.0' }], ...spec } })
const spec = (extra: Obj = {}) => ({ selector: { matchLabels: { app: 'agent' } }, template: template(), ...extra })
const rolling = (rollingUpdate: Obj) => spec({ updateStrategy: { type: 'RollingUpdate', rollingUpdate } })
const PERCENT = "a valid percent string must be a numeric string followed by an ending '%'"

interface Case { name: string, spec: Obj, field?: string, reason?: string, message?: string }

const cases: Case[] = [
  { name: 'a minimal daemon set', spec: spec() },
  { name: 'a daemon set without selector', spec: spec({ selector: undefined }), field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: '`selector` does not match template `labels`' },
  { name: 'an empty selector', spec: spec({ selector: {} }), field: 'spec.selector', reason: 'FieldValueInvalid', message: 'empty selector is invalid for daemonset' },
  { name: 'a selector the template does not match', spec: spec({ selector: { matchLabels: { app: 'other' } } }), field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: '`selector` does not match template `labels`' },
  { name: 'a selector with an unknown operator', spec: spec({ selector: { matchExpressions: [{ key: 'app', operator: 'Near' }] } }), field: 'spec.selector.matchExpressions[0].operator', reason: 'FieldValueInvalid' },
  { name: 'a template without containers', spec: spec({ template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [] } } }), field: 'spec.template.spec.containers', reason: 'FieldValueRequired' },
  { name: 'a template with a bad label', spec: spec({ template: template({ app: 'agent', 'a/b/c': 'x' }) }), field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid' },
  { name: 'a template that never restarts', spec: spec({ template: template({ app: 'agent' }, { restartPolicy: 'Never' }) }), field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'supported values: "Always"' },
  { name: 'a template with a deadline', spec: spec({ template: template({ app: 'agent' }, { activeDeadlineSeconds: 10 }) }), field: 'spec.template.spec.activeDeadlineSeconds', reason: 'FieldValueForbidden', message: 'activeDeadlineSeconds in DaemonSet is not Supported' },
  { name: 'negative minReadySeconds', spec: spec({ minReadySeconds: -1 }), field: 'spec.minReadySeconds', reason: 'FieldValueInvalid', message: 'must be greater than or equal to 0' },
  { name: 'a negative revisionHistoryLimit', spec: spec({ revisionHistoryLimit: -1 }), field: 'spec.revisionHistoryLimit', reason: 'FieldValueInvalid', message: 'must be greater than or equal to 0' },
  { name: 'no revision history', spec: spec({ revisionHistoryLimit: 0 }) },
  { name: 'an unknown update strategy', spec: spec({ updateStrategy: { type: 'Blue' } }), field: 'spec.updateStrategy', reason: 'FieldValueNotSupported', message: 'supported values: "RollingUpdate", "OnDelete"' },
  { name: 'OnDelete', spec: spec({ updateStrategy: { type: 'OnDelete' } }) },
  { name: 'a percent maxUnavailable', spec: rolling({ maxUnavailable: '25%' }) },
  { name: 'a surge instead of unavailability', spec: rolling({ maxUnavailable: 0, maxSurge: '10%' }) },
  { name: 'a bad percent', spec: rolling({ maxUnavailable: 'half' }), field: 'spec.updateStrategy.rollingUpdate.maxUnavailable', reason: 'FieldValueInvalid', message: PERCENT },
  { name: 'a negative maxUnavailable', spec: rolling({ maxUnavailable: -1 }), field: 'spec.updateStrategy.rollingUpdate.maxUnavailable', reason: 'FieldValueInvalid', message: 'must be greater than or equal to 0' },
  { name: 'maxUnavailable over 100%', spec: rolling({ maxUnavailable: '150%' }), field: 'spec.updateStrategy.rollingUpdate.maxUnavailable', reason: 'FieldValueInvalid', message: 'must not be greater than 100%' },
  { name: 'maxSurge over 100%', spec: rolling({ maxUnavailable: 0, maxSurge: '101%' }), field: 'spec.updateStrategy.rollingUpdate.maxSurge', reason: 'FieldValueInvalid', message: 'must not be greater than 100%' },
  { name: 'both maxUnavailable and maxSurge', spec: rolling({ maxUnavailable: 1, maxSurge: 1 }), field: 'spec.updateStrategy.rollingUpdate.maxSurge', reason: 'FieldValueInvalid', message: 'may not be set when maxUnavailable is non-zero' },
  { name: 'neither maxUnavailable nor maxSurge', spec: rolling({ maxUnavailable: '0%', maxSurge: 0 }), field: 'spec.updateStrategy.rollingUpdate.maxUnavailable', reason: 'FieldValueRequired', message: 'cannot be 0 when maxSurge is 0' }
]

describe('daemonsets', () => {
  const app = suiteApp()
  let n = 0
  const create = async (body: Obj) => await app().request({ method: 'POST', url: daemonsets, payload: body })
  const named = (name: string) => `${daemonsets}/${name}`

  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await create({ metadata: { name: `d${++n}` }, spec: c.spec })
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  it('defaults the strategy, the history limit and the pod template', async () => {
    const ds = (await create({ metadata: { name: 'defaulted' }, spec: spec() })).json()
    assert.deepEqual(ds.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } })
    assert.equal(ds.spec.revisionHistoryLimit, 10)
    assert.equal(ds.spec.template.spec.restartPolicy, 'Always')
    assert.equal(ds.spec.template.spec.schedulerName, 'default-scheduler')
    assert.deepEqual(ds.status, { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 })
    assert.equal(ds.metadata.generation, 1)
    const onDelete = (await create({ metadata: { name: 'on-delete' }, spec: spec({ updateStrategy: { type: 'OnDelete' } }) })).json()
    assert.deepEqual(onDelete.spec.updateStrategy, { type: 'OnDelete' })
    const surge = (await create({ metadata: { name: 'surge' }, spec: rolling({ maxUnavailable: 0, maxSurge: 1 }) })).json()
    assert.deepEqual(surge.spec.updateStrategy.rollingUpdate, { maxUnavailable: 0, maxSurge: 1 })
  })

  it('keeps its selector once created, and bumps generation on template changes only', async () => {
    assert.equal((await create({ metadata: { name: 'fixed' }, spec: spec() })).statusCode, 201)
    const moved = await app().request({ method: 'PATCH', url: named('fixed'), payload: { spec: { selector: { matchLabels: { app: 'agent', tier: 'x' } }, template: template({ app: 'agent', tier: 'x' }) } }, headers: mergePatch })
    assertInvalid(moved, 'spec.selector', 'FieldValueInvalid', 'field is immutable')
    const image = await app().request({ method: 'PATCH', url: named('fixed'), payload: { spec: { template: template({ app: 'agent', tier: 'y' }) } }, headers: mergePatch })
    assert.equal(image.statusCode, 200, image.body)
    assert.equal(image.json().metadata.generation, 2)
    const labelled = await app().request({ method: 'PATCH', url: named('fixed'), payload: { metadata: { labels: { team: 'a' } } }, headers: mergePatch })
    assert.equal(labelled.json().metadata.generation, 2)
  })

  it('changes status only through /status, and checks it there', async () => {
    assert.equal((await create({ metadata: { name: 'status' }, spec: spec() })).statusCode, 201)
    const ignored = await app().request({ method: 'PATCH', url: named('status'), payload: { status: { numberReady: 3 } }, headers: mergePatch })
    assert.equal(ignored.json().status.numberReady, 0)
    const written = await app().request({ method: 'PATCH', url: `${named('status')}/status`, payload: { status: { desiredNumberScheduled: 3, numberReady: 2, collisionCount: 1 } }, headers: mergePatch })
    assert.equal(written.statusCode, 200, written.body)
    assert.equal(written.json().status.numberReady, 2)
    for (const field of ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration', 'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable']) {
      const res = await app().request({ method: 'PATCH', url: `${named('status')}/status`, payload: { status: { [field]: -1 } }, headers: mergePatch })
      assertInvalid(res, `status.${field}`, 'FieldValueInvalid', 'must be greater than or equal to 0')
    }
    const decremented = await app().request({ method: 'PATCH', url: `${named('status')}/status`, payload: { status: { collisionCount: 0 } }, headers: mergePatch })
    assertInvalid(decremented, 'status.collisionCount', 'FieldValueInvalid', 'cannot be decremented')
  })

  it('has no scale subresource', async () => {
    const res = await app().request({ method: 'GET', url: `${named('status')}/scale` })
    assert.equal(res.statusCode, 404)
  })

  it('lists as a table with the counts, node selector, and the wide columns', async () => {
    const t = { metadata: { labels: { app: 'table' } }, spec: { nodeSelector: { zone: 'b', disk: 'ssd' }, containers: [{ name: 'a', image: 'img/a:1' }, { name: 'b', image: 'img/b:2' }] } }
    assert.equal((await create({ metadata: { name: 'table', labels: { list: 'table' } }, spec: spec({ selector: { matchLabels: { app: 'table' } }, template: t }) })).statusCode, 201)
    await app().request({ method: 'PATCH', url: `${named('table')}/status`, payload: { status: { desiredNumberScheduled: 5, currentNumberScheduled: 4, numberReady: 3, updatedNumberScheduled: 2, numberAvailable: 1 } }, headers: mergePatch })
    const table = (await app().request({ method: 'GET', url: `${daemonsets}?labelSelector=list%3Dtable`, headers: TABLE })).json()
    assert.deepEqual(table.columnDefinitions.map((c: Obj) => c.name), ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age', 'Containers', 'Images', 'Selector'])
    const cells = table.rows[0].cells
    assert.deepEqual(cells.slice(0, 7), ['table', 5, 4, 3, 2, 1, 'disk=ssd,zone=b'])
    assert.deepEqual(cells.slice(8), ['a,b', 'img/a:1,img/b:2', 'app=table'])
    const plain = (await app().request({ method: 'GET', url: `${daemonsets}/defaulted`, headers: TABLE })).json()
    assert.equal(plain.rows[0].cells[6], '<none>')
  })
})

describe('controllerrevisions', () => {
  const app = suiteApp()
  const create = async (body: Obj) => await app().request({ method: 'POST', url: revisions, payload: body })

  it('keeps its data as given', async () => {
    const data = { spec: { template: { $patch: 'replace', spec: { containers: [{ name: 'web', image: 'img:1', extra: [1, { deep: true }] }] } } }, anything: 'at all' }
    const res = await create({ metadata: { name: 'web-1' }, data, revision: 1 })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().data, data)
    assert.equal(res.json().revision, 1)
    assert.equal(res.json().metadata.generation, undefined)
  })

  for (const c of [
    { name: 'without data', body: { revision: 1 }, field: 'data', reason: 'FieldValueRequired', message: 'data is mandatory' },
    { name: 'with a negative revision', body: { data: {}, revision: -1 }, field: 'revision', reason: 'FieldValueInvalid', message: 'must be greater than or equal to 0' }
  ]) {
    it(`rejects a revision ${c.name}`, async () => {
      assertInvalid(await create({ metadata: { name: 'bad' }, ...c.body }), c.field, c.reason, c.message)
    })
  }

  it('defaults the revision to 0', async () => {
    const res = await create({ metadata: { name: 'zero' }, data: {} })
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.json().revision, 0)
  })

  it('keeps its data once written; the revision may change', async () => {
    assert.equal((await create({ metadata: { name: 'fixed' }, data: { a: 1 }, revision: 1 })).statusCode, 201)
    assertInvalid(await app().request({ method: 'PATCH', url: `${revisions}/fixed`, payload: { data: { a: 2 } }, headers: mergePatch }), 'data', 'FieldValueInvalid', 'field is immutable')
    const renumbered = await app().request({ method: 'PATCH', url: `${revisions}/fixed`, payload: { revision: 3 }, headers: mergePatch })
    assert.equal(renumbered.statusCode, 200, renumbered.body)
    assert.equal(renumbered.json().revision, 3)
  })

  it('lists as a table with its controller and revision', async () => {
    // A real owner: the garbage collector takes a revision whose owner is gone.
    const set = await app().request({ method: 'POST', url: '/apis/apps/v1/namespaces/default/statefulsets', payload: { metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'img:1' }] } } } } })
    assert.equal(set.statusCode, 201, set.body)
    const owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.json().metadata.uid, controller: true }
    assert.equal((await create({ metadata: { name: 'owned', labels: { list: 'table' }, ownerReferences: [owner] }, data: {}, revision: 7 })).statusCode, 201)
    assert.equal((await create({ metadata: { name: 'orphan', labels: { list: 'table' } }, data: {}, revision: 2 })).statusCode, 201)
    const table = (await app().request({ method: 'GET', url: `${revisions}?labelSelector=list%3Dtable`, headers: TABLE })).json()
    assert.deepEqual(table.columnDefinitions.map((c: Obj) => c.name), ['Name', 'Controller', 'Revision', 'Age'])
    const rows = Object.fromEntries(table.rows.map((r: Obj) => [r.cells[0], r.cells]))
    assert.deepEqual(rows.owned.slice(1, 3), ['statefulset.apps/web', 7])
    assert.deepEqual(rows.orphan.slice(1, 3), ['<none>', 2])
  })
})
