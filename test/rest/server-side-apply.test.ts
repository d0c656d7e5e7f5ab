// Server-side apply through the REST API: create and merge, the request checks, conflicts and
// force, shared ownership, removal, no-op applies, managedFields resets, subresources, dry run.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, type TestApp } from '../helpers/app.js'

const CM = '/api/v1/namespaces/default/configmaps'
const PODS = '/api/v1/namespaces/default/pods'
const APPLY = { 'content-type': 'application/apply-patch+yaml' }
const MERGE = { 'content-type': 'application/merge-patch+json' }
const JSON_PATCH = { 'content-type': 'application/json-patch+json' }

const cm = (name: string, data: Record<string, string>, extra: object = {}) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data, ...extra })
const apply = (app: TestApp, url: string, body: string, query = 'fieldManager=alpha') =>
  app.request({ method: 'PATCH', url: `${url}?${query}`, headers: APPLY, payload: body })
const owners = (obj: any) => (obj.metadata.managedFields ?? []).map((e: any) => [e.manager, e.operation, e.fieldsV1])

test('apply creates (201) then merges (200), YAML or JSON, and records an Apply entry', async (t) => {
  const app = await buildTestApp(t)
  const created = await apply(app, `${CM}/one`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  labels:\n    app: web\ndata:\n  a: "1"\n')
  assert.equal(created.statusCode, 201, created.body)
  const obj = created.json()
  assert.deepEqual(obj.data, { a: '1' })
  assert.equal(obj.metadata.managedFields.length, 1)
  const entry = obj.metadata.managedFields[0]
  assert.equal(entry.manager, 'alpha')
  assert.equal(entry.operation, 'Apply')
  assert.equal(entry.apiVersion, 'v1')
  assert.equal(entry.fieldsType, 'FieldsV1')
  assert.match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  assert.deepEqual(entry.fieldsV1, { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } })

  const merged = await apply(app, `${CM}/one`, cm('one', { a: '1', b: '2' }), 'fieldManager=beta')
  assert.equal(merged.statusCode, 200, merged.body)
  assert.deepEqual(merged.json().data, { a: '1', b: '2' })
  assert.deepEqual(merged.json().metadata.labels, { app: 'web' }, 'fields of other managers stay')
  assert.deepEqual(owners(merged.json()), [
    ['alpha', 'Apply', { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } }],
    ['beta', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} } }]
  ], 'applying the same value shares ownership')
})

test('the request checks: fieldManager, force, managedFields, apiVersion and kind, uid, 404 for other writes', async (t) => {
  const app = await buildTestApp(t)
  const noManager = await app.request({ method: 'PATCH', url: `${CM}/x`, headers: APPLY, payload: cm('x', {}) })
  assert.equal(noManager.statusCode, 422)
  assert.equal(noManager.json().details.kind, 'PatchOptions')
  assert.deepEqual(noManager.json().details.causes, [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }])
  const tooLong = await apply(app, `${CM}/x`, cm('x', {}), `fieldManager=${'m'.repeat(129)}`)
  assert.equal(tooLong.statusCode, 422)
  const forced = await app.request({ method: 'PATCH', url: `${CM}/x?force=true`, headers: MERGE, payload: {} })
  assert.equal(forced.statusCode, 422)
  assert.equal(forced.json().details.causes[0].field, 'force')
  const withFields = await apply(app, `${CM}/x`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', managedFields: [] } }))
  assert.equal(withFields.statusCode, 400)
  assert.equal(withFields.json().message, 'metadata.managedFields must be nil')
  const wrongVersion = await apply(app, `${CM}/x`, JSON.stringify({ apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'x' } }))
  assert.equal(wrongVersion.statusCode, 400)
  assert.equal(wrongVersion.json().message, 'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1')
  const wrongKind = await apply(app, `${CM}/x`, JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }))
  assert.equal(wrongKind.statusCode, 400)
  const badYaml = await apply(app, `${CM}/x`, 'a: [')
  assert.equal(badYaml.statusCode, 400)
  const uid = await apply(app, `${CM}/x`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', uid: 'abc' } }))
  assert.equal(uid.statusCode, 409)
  assert.equal(uid.json().reason, 'Conflict')
  const otherName = await apply(app, `${CM}/x`, cm('y', {}))
  assert.equal(otherName.statusCode, 400)
  for (const headers of [MERGE, JSON_PATCH]) {
    const missing = await app.request({ method: 'PATCH', url: `${CM}/x`, headers, payload: headers === MERGE ? {} : [] })
    assert.equal(missing.statusCode, 404)
  }
  assert.equal((await app.request({ method: 'PUT', url: `${CM}/x`, payload: { metadata: { name: 'x' } } })).statusCode, 404)
  assert.equal((await app.request({ method: 'GET', url: `${CM}/x` })).statusCode, 404, 'nothing was created')
})

test('an apply that changes another manager\'s field conflicts; force takes it; updates never conflict', async (t) => {
  const app = await buildTestApp(t)
  await apply(app, `${CM}/c`, cm('c', { key: 'one', other: 'x' }), 'fieldManager=first')
  const clash = await apply(app, `${CM}/c`, cm('c', { key: 'two' }), 'fieldManager=second')
  assert.equal(clash.statusCode, 409)
  assert.equal(clash.json().reason, 'Conflict')
  assert.equal(clash.json().message, 'Apply failed with 1 conflict: conflict with "first": .data.key')
  assert.deepEqual(clash.json().details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.key' }] })

  // An update takes ownership without conflict; the Update manager is named with its apiVersion.
  const edit = await app.request({ method: 'PATCH', url: `${CM}/c?fieldManager=editor`, headers: MERGE, payload: { data: { key: 'edited', other: 'y' } } })
  assert.equal(edit.statusCode, 200)
  const two = await apply(app, `${CM}/c`, cm('c', { key: 'mine', other: 'mine' }), 'fieldManager=first')
  assert.equal(two.statusCode, 409)
  assert.equal(two.json().message, 'Apply failed with 2 conflicts: conflicts with "editor" using v1:\n- .data.key\n- .data.other')
  assert.equal(two.json().details.causes.length, 2)

  const forced = await apply(app, `${CM}/c`, cm('c', { key: 'mine', other: 'mine' }), 'fieldManager=first&force=true')
  assert.equal(forced.statusCode, 200)
  assert.deepEqual(forced.json().data, { key: 'mine', other: 'mine' })
  assert.deepEqual(owners(forced.json()), [['first', 'Apply', { 'f:data': { 'f:key': {}, 'f:other': {} } }]], 'the losers keep nothing, and empty entries go')
})

test('removal: fields the applier alone owned go, fields others own stay, map-list items by key', async (t) => {
  const app = await buildTestApp(t)
  await apply(app, `${CM}/r`, cm('r', { solo: '1', shared: '2', kept: '3' }), 'fieldManager=a')
  await apply(app, `${CM}/r`, cm('r', { shared: '2' }), 'fieldManager=b')
  const after = await apply(app, `${CM}/r`, cm('r', { kept: '3' }), 'fieldManager=a')
  assert.equal(after.statusCode, 200)
  assert.deepEqual(after.json().data, { shared: '2', kept: '3' })

  const pod = (ports: object[]) => JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
    spec: { containers: [{ name: 'web', image: 'nginx', ports }] }
  })
  const created = await apply(app, `${PODS}/p`, pod([{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }]))
  assert.equal(created.statusCode, 201, created.body)
  const web = created.json().metadata.managedFields[0].fieldsV1['f:spec']['f:containers']['k:{"name":"web"}']
  assert.deepEqual(Object.keys(web['f:ports']), ['k:{"containerPort":53,"protocol":"UDP"}', 'k:{"containerPort":80,"protocol":"TCP"}'])
  assert.deepEqual(web['.'], {})
  const removed = await apply(app, `${PODS}/p`, pod([{ containerPort: 80 }]))
  assert.equal(removed.statusCode, 422, 'pod ports are immutable: the removal reaches validation')
})

test('a no-op apply writes nothing; managedFields reset with [{}] but not with []', async (t) => {
  const app = await buildTestApp(t)
  const first = (await apply(app, `${CM}/n`, cm('n', { a: '1' }))).json()
  const again = await apply(app, `${CM}/n`, cm('n', { a: '1' }))
  assert.equal(again.statusCode, 200)
  assert.equal(again.json().metadata.resourceVersion, first.metadata.resourceVersion)
  assert.equal(again.json().metadata.managedFields[0].time, first.metadata.managedFields[0].time)

  const empty = await app.request({ method: 'PATCH', url: `${CM}/n`, headers: MERGE, payload: { metadata: { managedFields: [] } } })
  assert.deepEqual(owners(empty.json()), owners(first))
  const reset = await app.request({ method: 'PATCH', url: `${CM}/n`, headers: MERGE, payload: { metadata: { managedFields: [{}] } } })
  assert.equal(reset.statusCode, 200)
  assert.equal(reset.json().metadata.managedFields, undefined)
  await apply(app, `${CM}/n`, cm('n', { a: '1' }))
  const resetAndChange = await app.request({ method: 'PATCH', url: `${CM}/n?fieldManager=resetter`, headers: JSON_PATCH,
    payload: [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }, { op: 'add', path: '/data/b', value: '2' }] })
  assert.deepEqual(owners(resetAndChange.json()), [['resetter', 'Update', { 'f:data': { 'f:b': {} } }]])
  const byUpdate = await app.request({ method: 'PUT', url: `${CM}/n`, payload: { metadata: { name: 'n', managedFields: [{}] }, data: { a: '1', b: '2' } } })
  assert.equal(byUpdate.json().metadata.managedFields, undefined)
})

test('status subresource applies own status only; dry run stores nothing', async (t) => {
  const app = await buildTestApp(t)
  await apply(app, `${PODS}/s`, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 's' }, spec: { containers: [{ name: 'c', image: 'i' }] } }))
  const status = await apply(app, `${PODS}/s/status`, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 's' }, status: { phase: 'Running' } }), 'fieldManager=svclet')
  assert.equal(status.statusCode, 200, status.body)
  assert.equal(status.json().status.phase, 'Running')
  const entry = status.json().metadata.managedFields.find((e: any) => e.manager === 'svclet')
  assert.equal(entry.subresource, 'status')
  assert.deepEqual(entry.fieldsV1, { 'f:status': { 'f:phase': {} } })
  const missing = await apply(app, `${PODS}/none/status`, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'none' }, status: {} }))
  assert.equal(missing.statusCode, 404)

  const dry = await apply(app, `${CM}/d`, cm('d', { a: '1' }), 'fieldManager=m&dryRun=All')
  assert.equal(dry.statusCode, 201)
  assert.equal(dry.json().metadata.managedFields[0].manager, 'm')
  assert.equal((await app.request({ method: 'GET', url: `${CM}/d` })).statusCode, 404)
  await apply(app, `${CM}/d`, cm('d', { a: '1' }))
  const dryChange = await apply(app, `${CM}/d`, cm('d', { a: '2' }), 'fieldManager=alpha&dryRun=All')
  assert.equal(dryChange.json().data.a, '2')
  assert.equal((await app.request({ method: 'GET', url: `${CM}/d` })).json().data.a, '1')
})

test('the managedFields layout after an apply and two updates of another manager', async (t) => {
  const app = await buildTestApp(t)
  await apply(app, `${CM}/l`, cm('l', { a: '1', b: '2' }), 'fieldManager=applier')
  await app.request({ method: 'PATCH', url: `${CM}/l`, headers: { ...MERGE, 'user-agent': 'kubectl-edit/v1.33.0 (linux/amd64)' }, payload: { data: { a: 'x' } } })
  const last = await app.request({ method: 'PATCH', url: `${CM}/l`, headers: { ...MERGE, 'user-agent': 'kubectl-edit/v1.33.0 (linux/amd64)' }, payload: { data: { c: '3' }, metadata: { labels: { l: 'v' } } } })
  const fields = last.json().metadata.managedFields
  assert.deepEqual(fields.map((e: any) => [e.manager, e.operation, e.apiVersion]), [['applier', 'Apply', 'v1'], ['kubectl-edit', 'Update', 'v1']])
  assert.deepEqual(fields[0].fieldsV1, { 'f:data': { 'f:b': {} } })
  assert.deepEqual(fields[1].fieldsV1, { 'f:data': { 'f:a': {}, 'f:c': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } })
})

test('kubectl may take over what its client-side apply set, while the live object still matches the annotation', async (t) => {
  const app = await buildTestApp(t)
  const LAST = 'kubectl.kubernetes.io/last-applied-configuration'
  const lastApplied = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm', namespace: 'default' }, data: { a: '1' } }) + '\n'
  const created = await app.request({ method: 'POST', url: `${CM}?fieldManager=kubectl-client-side-apply`, payload: { metadata: { name: 'm', annotations: { [LAST]: lastApplied } }, data: { a: '1' } } })
  assert.equal(created.statusCode, 201)
  const other = await apply(app, `${CM}/m`, cm('m', { a: '2' }), 'fieldManager=someone')
  assert.equal(other.statusCode, 409, 'only kubectl takes over')
  const taken = await apply(app, `${CM}/m`, cm('m', { a: '2' }), 'fieldManager=kubectl')
  assert.equal(taken.statusCode, 200, taken.body)
  assert.equal(taken.json().data.a, '2')
  assert.deepEqual(JSON.parse(taken.json().metadata.annotations[LAST]).data, { a: '2' }, 'the annotation follows the applied configuration')

  // Once somebody else changed a field since the client-side apply, it conflicts again.
  await app.request({ method: 'POST', url: `${CM}?fieldManager=kubectl-client-side-apply`, payload: { metadata: { name: 'n', annotations: { [LAST]: lastApplied.replace('"m"', '"n"') } }, data: { a: '1' } } })
  await app.request({ method: 'PATCH', url: `${CM}/n?fieldManager=kubectl-client-side-apply`, headers: MERGE, payload: { data: { a: '9' } } })
  const changed = await apply(app, `${CM}/n`, cm('n', { a: '2' }), 'fieldManager=kubectl')
  assert.equal(changed.statusCode, 409)
})
