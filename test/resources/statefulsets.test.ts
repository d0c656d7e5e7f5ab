// StatefulSet (apps/v1): the reference's defaults (set, claim templates, pod template), its
// ValidateStatefulSet rules, the spec fields an update may change, status only through /status,
// the scale subresource, table columns and server-side apply.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { assertInvalid, suiteApp } from './suite.js'

const sets = '/apis/apps/v1/namespaces/default/statefulsets'
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }
const UPDATE_FORBIDDEN = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"

type Obj = Record<string, any>

const template = (labels: Obj = { app: 'web' }, spec: Obj = {}) => ({ metadata: { labels }, spec: { containers: [{ name: 'web', image: 'registry.example/web:1.0' }], ...spec } })
const spec = (extra: Obj = {}) => ({ serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template: template(), ...extra })
const claimTemplate = (name = 'data') => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } })

interface Case { name: string, spec: Obj, field?: string, reason?: string, message?: string }

const cases: Case[] = [
  { name: 'a minimal set', spec: spec() },
  { name: 'a set without serviceName', spec: spec({ serviceName: undefined }) },
  { name: 'a serviceName that is not a DNS label', spec: spec({ serviceName: 'Web.Service' }), field: 'spec.serviceName', reason: 'FieldValueInvalid', message: 'RFC 1123 label' },
  { name: 'a set without selector', spec: spec({ selector: undefined }), field: 'spec.selector', reason: 'FieldValueRequired' },
  { name: 'a set without selector: its template matches nothing', spec: spec({ selector: undefined }), field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: '`selector` does not match template `labels`' },
  { name: 'an empty selector', spec: spec({ selector: {} }), field: 'spec.selector', reason: 'FieldValueInvalid', message: 'empty selector is invalid for statefulset' },
  { name: 'a selector the template does not match', spec: spec({ selector: { matchLabels: { app: 'db' } } }), field: 'spec.template.metadata.labels', reason: 'FieldValueInvalid', message: '`selector` does not match template `labels`' },
  { name: 'a selector with a bad operator', spec: spec({ selector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['web'] }] } }), field: 'spec.selector.matchExpressions[0].operator', reason: 'FieldValueInvalid' },
  { name: 'a bad template label', spec: spec({ template: template({ app: 'web', 'a/b/c': 'x' }) }), field: 'spec.template.labels', reason: 'FieldValueInvalid' },
  { name: 'a selector that is no selector, without the template checked', spec: spec({ selector: { matchLabels: { 'a/b/c': 'x' } } }), field: 'spec.selector', reason: 'FieldValueInvalid' },
  { name: 'an unknown podManagementPolicy', spec: spec({ podManagementPolicy: 'Random' }), field: 'spec.podManagementPolicy', reason: 'FieldValueInvalid', message: "must be 'OrderedReady' or 'Parallel'" },
  { name: 'an empty podManagementPolicy, defaulted as none', spec: spec({ podManagementPolicy: '' }) },
  { name: 'Parallel pod management', spec: spec({ podManagementPolicy: 'Parallel' }) },
  { name: 'an unknown update strategy', spec: spec({ updateStrategy: { type: 'Blue' } }), field: 'spec.updateStrategy', reason: 'FieldValueInvalid', message: "must be 'RollingUpdate' or 'OnDelete'" },
  { name: 'OnDelete with rollingUpdate', spec: spec({ updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } }), field: 'spec.updateStrategy.rollingUpdate', reason: 'FieldValueInvalid', message: "only allowed for updateStrategy 'RollingUpdate'" },
  { name: 'OnDelete', spec: spec({ updateStrategy: { type: 'OnDelete' } }) },
  { name: 'a negative partition', spec: spec({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: -1 } } }), field: 'spec.updateStrategy.rollingUpdate.partition', reason: 'FieldValueInvalid', message: 'must be greater than or equal to 0' },
  { name: 'negative replicas', spec: spec({ replicas: -1 }), field: 'spec.replicas', reason: 'FieldValueInvalid', message: 'must be greater than or equal to 0' },
  { name: 'negative minReadySeconds', spec: spec({ minReadySeconds: -1 }), field: 'spec.minReadySeconds', reason: 'FieldValueInvalid', message: 'must be greater than or equal to 0' },
  { name: 'a negative ordinals start', spec: spec({ ordinals: { start: -1 } }), field: 'spec.ordinals.start', reason: 'FieldValueInvalid', message: 'must be greater than or equal to 0' },
  { name: 'ordinals starting at 5', spec: spec({ ordinals: { start: 5 } }) },
  { name: 'an unknown whenDeleted', spec: spec({ persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Keep' } }), field: 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted', reason: 'FieldValueNotSupported', message: 'supported values: "Retain", "Delete"' },
  { name: 'an unknown whenScaled', spec: spec({ persistentVolumeClaimRetentionPolicy: { whenScaled: 'Keep' } }), field: 'spec.persistentVolumeClaimRetentionPolicy.whenScaled', reason: 'FieldValueNotSupported' },
  { name: 'Delete retention', spec: spec({ persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' } }) },
  { name: 'a template that restarts on failure', spec: spec({ template: template({ app: 'web' }, { restartPolicy: 'OnFailure' }) }), field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'supported values: "Always"' },
  { name: 'a template with a deadline', spec: spec({ template: template({ app: 'web' }, { activeDeadlineSeconds: 30 }) }), field: 'spec.template.spec.activeDeadlineSeconds', reason: 'FieldValueForbidden', message: 'activeDeadlineSeconds in StatefulSet is not Supported' },
  { name: 'claim templates', spec: spec({ volumeClaimTemplates: [claimTemplate()] }) }
]

describe('statefulsets', () => {
  const app = suiteApp()
  let n = 0
  const create = async (body: Obj) => await app().request({ method: 'POST', url: sets, payload: body })
  const named = (name: string) => `${sets}/${name}`

  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await create({ metadata: { name: `s${++n}` }, spec: c.spec })
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  it('rejects a name that is not a DNS label', async () => {
    assertInvalid(await create({ metadata: { name: 'web.v1' }, spec: spec() }), 'metadata.name', 'FieldValueInvalid')
  })

  it('defaults the set, its pod template and its claim templates', async () => {
    const res = await create({ metadata: { name: 'defaulted' }, spec: spec({ volumeClaimTemplates: [claimTemplate()] }) })
    assert.equal(res.statusCode, 201, res.body)
    const set = res.json()
    assert.equal(set.spec.replicas, 1)
    assert.equal(set.spec.podManagementPolicy, 'OrderedReady')
    assert.deepEqual(set.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } })
    assert.equal(set.spec.revisionHistoryLimit, 10)
    assert.deepEqual(set.spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' })
    assert.equal(set.spec.template.spec.restartPolicy, 'Always')
    assert.equal(set.spec.template.spec.dnsPolicy, 'ClusterFirst')
    assert.equal(set.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent')
    const claim = set.spec.volumeClaimTemplates[0]
    assert.equal(claim.apiVersion, 'v1')
    assert.equal(claim.kind, 'PersistentVolumeClaim')
    assert.equal(claim.spec.volumeMode, 'Filesystem')
    assert.deepEqual(claim.status, { phase: 'Pending' })
    assert.deepEqual(set.status, { replicas: 0, availableReplicas: 0 })
    assert.equal(set.metadata.generation, 1)
  })

  it('keeps a given rollingUpdate type without adding a strategy, and drops the gated maxUnavailable', async () => {
    const set = (await create({ metadata: { name: 'typed' }, spec: spec({ updateStrategy: { type: 'RollingUpdate' } }) })).json()
    assert.deepEqual(set.spec.updateStrategy, { type: 'RollingUpdate' })
    const gated = (await create({ metadata: { name: 'gated' }, spec: spec({ updateStrategy: { rollingUpdate: { partition: 2, maxUnavailable: 2 } } }) })).json()
    assert.deepEqual(gated.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 2 } })
  })

  it('allows updates of replicas, ordinals, template, strategy, history, retention and minReadySeconds, and bumps generation only on spec changes', async () => {
    assert.equal((await create({ metadata: { name: 'mutable' }, spec: spec() })).statusCode, 201)
    const changes: Obj[] = [
      { replicas: 3 },
      { ordinals: { start: 2 } },
      { template: template({ app: 'web', tier: 'front' }) },
      { updateStrategy: { type: 'OnDelete', rollingUpdate: null } },
      { revisionHistoryLimit: 3 },
      { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' } },
      { minReadySeconds: 5 }
    ]
    let generation = 1
    for (const change of changes) {
      const res = await app().request({ method: 'PATCH', url: named('mutable'), payload: { spec: change }, headers: mergePatch })
      assert.equal(res.statusCode, 200, `${JSON.stringify(change)}: ${res.body}`)
      assert.equal(res.json().metadata.generation, ++generation)
    }
    const labelled = await app().request({ method: 'PATCH', url: named('mutable'), payload: { metadata: { labels: { team: 'a' } } }, headers: mergePatch })
    assert.equal(labelled.json().metadata.generation, generation)
  })

  for (const [field, change] of [
    ['serviceName', { serviceName: 'other' }],
    ['podManagementPolicy', { podManagementPolicy: 'Parallel' }],
    ['selector', { selector: { matchLabels: { app: 'web', tier: 'x' } }, template: template({ app: 'web', tier: 'x' }) }],
    ['volumeClaimTemplates', { volumeClaimTemplates: [claimTemplate('more')] }]
  ] as const) {
    it(`forbids an update of ${field}`, async () => {
      const name = `fixed-${field.toLowerCase()}`
      assert.equal((await create({ metadata: { name }, spec: spec() })).statusCode, 201)
      assertInvalid(await app().request({ method: 'PATCH', url: named(name), payload: { spec: change }, headers: mergePatch }), 'spec', 'FieldValueForbidden', UPDATE_FORBIDDEN)
    })
  }

  it('changes status only through /status, and checks it there', async () => {
    assert.equal((await create({ metadata: { name: 'status' }, spec: spec(), status: { replicas: 5 } })).json().status.replicas, 0)
    const ignored = await app().request({ method: 'PATCH', url: named('status'), payload: { status: { replicas: 3 } }, headers: mergePatch })
    assert.equal(ignored.json().status.replicas, 0)
    const written = await app().request({ method: 'PATCH', url: `${named('status')}/status`, payload: { status: { replicas: 3, readyReplicas: 2, availableReplicas: 1, collisionCount: 2 } }, headers: mergePatch })
    assert.equal(written.statusCode, 200, written.body)
    assert.equal(written.json().status.readyReplicas, 2)
    assert.equal(written.json().metadata.generation, 1)
    const over = await app().request({ method: 'PATCH', url: `${named('status')}/status`, payload: { status: { readyReplicas: 4 } }, headers: mergePatch })
    assertInvalid(over, 'status.readyReplicas', 'FieldValueInvalid', 'cannot be greater than status.replicas')
    const available = await app().request({ method: 'PATCH', url: `${named('status')}/status`, payload: { status: { availableReplicas: 3 } }, headers: mergePatch })
    assertInvalid(available, 'status.availableReplicas', 'FieldValueInvalid', 'cannot be greater than status.readyReplicas')
    const negative = await app().request({ method: 'PATCH', url: `${named('status')}/status`, payload: { status: { observedGeneration: -1 } }, headers: mergePatch })
    assertInvalid(negative, 'status.observedGeneration', 'FieldValueInvalid', 'must be greater than or equal to 0')
    const decremented = await app().request({ method: 'PATCH', url: `${named('status')}/status`, payload: { status: { collisionCount: 1 } }, headers: mergePatch })
    assertInvalid(decremented, 'status.collisionCount', 'FieldValueInvalid', 'cannot be decremented')
  })

  it('serves the scale subresource with the selector as a string', async () => {
    assert.equal((await create({ metadata: { name: 'scaled' }, spec: spec({ replicas: 2, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] }, template: template({ app: 'web', tier: 'a' }) }) })).statusCode, 201)
    await app().request({ method: 'PATCH', url: `${named('scaled')}/status`, payload: { status: { replicas: 2 } }, headers: mergePatch })
    const scale = (await app().request({ method: 'GET', url: `${named('scaled')}/scale` })).json()
    assert.equal(scale.kind, 'Scale')
    assert.equal(scale.apiVersion, 'autoscaling/v1')
    assert.deepEqual(scale.spec, { replicas: 2 })
    assert.deepEqual(scale.status, { replicas: 2, selector: 'app=web,tier in (a,b)' })

    const updated = await app().request({ method: 'PUT', url: `${named('scaled')}/scale`, payload: { ...scale, spec: { replicas: 4 } } })
    assert.equal(updated.statusCode, 200, updated.body)
    assert.equal(updated.json().spec.replicas, 4)
    const patched = await app().request({ method: 'PATCH', url: `${named('scaled')}/scale`, payload: { spec: { replicas: 5 } }, headers: mergePatch })
    assert.equal(patched.statusCode, 200, patched.body)
    const set = (await app().request({ method: 'GET', url: named('scaled') })).json()
    assert.equal(set.spec.replicas, 5)
    assert.equal(set.metadata.generation, 3)
    const negative = await app().request({ method: 'PATCH', url: `${named('scaled')}/scale`, payload: { spec: { replicas: -1 } }, headers: mergePatch })
    assertInvalid(negative, 'spec.replicas', 'FieldValueInvalid', 'must be greater than or equal to 0')
  })

  it('lists as a table with Ready and the wide container columns', async () => {
    const two = { metadata: { labels: { app: 'table' } }, spec: { containers: [{ name: 'a', image: 'img/a:1' }, { name: 'b', image: 'img/b:2' }] } }
    assert.equal((await create({ metadata: { name: 'table', labels: { list: 'table' } }, spec: spec({ replicas: 3, selector: { matchLabels: { app: 'table' } }, template: two }) })).statusCode, 201)
    await app().request({ method: 'PATCH', url: `${named('table')}/status`, payload: { status: { replicas: 3, readyReplicas: 2 } }, headers: mergePatch })
    const table = (await app().request({ method: 'GET', url: `${sets}?labelSelector=list%3Dtable`, headers: TABLE })).json()
    assert.deepEqual(table.columnDefinitions.map((c: Obj) => c.name), ['Name', 'Ready', 'Age', 'Containers', 'Images'])
    assert.deepEqual(table.columnDefinitions.map((c: Obj) => c.priority), [0, 0, 0, 1, 1])
    const cells = table.rows[0].cells
    assert.equal(cells[0], 'table')
    assert.equal(cells[1], '2/3')
    assert.equal(cells[3], 'a,b')
    assert.equal(cells[4], 'img/a:1,img/b:2')
  })

  it('warns of a negative history limit and of fractional claim sizes', async () => {
    const res = await create({ metadata: { name: 'warned' }, spec: spec({ revisionHistoryLimit: -1, volumeClaimTemplates: [{ ...claimTemplate(), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1500m' } } } }] }) })
    assert.equal(res.statusCode, 201, res.body)
    const warnings = String(res.headers.warning)
    assert.ok(warnings.includes('spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended'), warnings)
    assert.ok(warnings.includes('spec.volumeClaimTemplates[0].resources.requests[storage]: fractional byte value'), warnings)
  })

  it('applies a set twice with a changed image and keeps one container', async () => {
    const applied = (image: string) => JSON.stringify({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'applied' }, spec: { ...spec(), template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } } })
    const apply = async (image: string) => await app().request({ method: 'PATCH', url: `${named('applied')}?fieldManager=deployer`, payload: applied(image), headers: { 'content-type': 'application/apply-patch+yaml' } })
    const first = await apply('registry.example/web:1.0')
    assert.equal(first.statusCode, 201, first.body)
    const second = await apply('registry.example/web:2.0')
    assert.equal(second.statusCode, 200, second.body)
    const containers = second.json().spec.template.spec.containers
    assert.equal(containers.length, 1)
    assert.equal(containers[0].image, 'registry.example/web:2.0')
    assert.equal(second.json().metadata.generation, 2)
    assert.ok(second.json().metadata.managedFields.some((m: Obj) => m.manager === 'deployer' && m.operation === 'Apply'))
  })
})
