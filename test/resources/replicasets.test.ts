// ReplicaSet (apps/v1) and ReplicationController (core v1): their defaults (an RC's selector and
// labels from its template), the reference's rules, the immutable ReplicaSet selector, status
// only through /status, the Scale subresource with the selector as a string, and the columns.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { assertInvalid, suiteApp } from './suite.js'

type Obj = Record<string, any>

const replicasets = '/apis/apps/v1/namespaces/default/replicasets'
const controllers = '/api/v1/namespaces/default/replicationcontrollers'
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }

const labels = { app: 'web' }
const template = (extra: Obj = {}, spec: Obj = {}) => ({
  metadata: { labels, ...extra },
  spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }], ...spec }
})
const replicaSet = (name: string, spec: Obj = {}) => ({ metadata: { name }, spec: { selector: { matchLabels: labels }, template: template(), ...spec } })
const controller = (name: string, spec: Obj = {}) => ({ metadata: { name }, spec: { selector: labels, template: template(), ...spec } })

async function eventually (what: string, check: () => Promise<boolean>, ms = 15000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await check()) return
  assert.fail(`timed out waiting for ${what}`)
}

interface Case { name: string, url: string, body: Obj, field: string, reason: string, message?: string }

const INVALID = 'FieldValueInvalid'
const cases: Case[] = [
  { name: 'a replica set with negative replicas', url: replicasets, body: replicaSet('rs-1', { replicas: -1 }), field: 'spec.replicas', reason: INVALID, message: 'must be greater than or equal to 0' },
  { name: 'a replica set with negative minReadySeconds', url: replicasets, body: replicaSet('rs-2', { minReadySeconds: -1 }), field: 'spec.minReadySeconds', reason: INVALID, message: 'must be greater than or equal to 0' },
  { name: 'a replica set without selector', url: replicasets, body: replicaSet('rs-3', { selector: undefined }), field: 'spec.selector', reason: 'FieldValueRequired' },
  { name: 'a replica set with an empty selector', url: replicasets, body: replicaSet('rs-4', { selector: { matchLabels: {} } }), field: 'spec.selector', reason: INVALID, message: 'empty selector is invalid for deployment' },
  { name: 'a replica set whose selector misses its template', url: replicasets, body: replicaSet('rs-5', { selector: { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] } }), field: 'spec.template.metadata.labels', reason: INVALID, message: '`selector` does not match template `labels`' },
  { name: 'a replica set template restarting Never', url: replicasets, body: replicaSet('rs-6', { template: template({}, { restartPolicy: 'Never' }) }), field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'supported values: "Always"' },
  { name: 'a replica set template with a deadline', url: replicasets, body: replicaSet('rs-7', { template: template({}, { activeDeadlineSeconds: 5 }) }), field: 'spec.template.spec.activeDeadlineSeconds', reason: 'FieldValueForbidden', message: 'activeDeadlineSeconds in ReplicaSet is not Supported' },
  { name: 'a replica set template with ephemeral containers', url: replicasets, body: replicaSet('rs-8', { template: template({}, { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }) }), field: 'spec.template.spec.ephemeralContainers', reason: 'FieldValueForbidden', message: 'ephemeral containers not allowed in pod template' },
  { name: 'a controller without selector or template labels', url: controllers, body: { metadata: { name: 'rc-1' }, spec: { template: { spec: template().spec } } }, field: 'spec.selector', reason: 'FieldValueRequired' },
  { name: 'a controller without template', url: controllers, body: { metadata: { name: 'rc-2' }, spec: { selector: labels } }, field: 'spec.template', reason: 'FieldValueRequired' },
  { name: 'a controller whose selector misses its template', url: controllers, body: controller('rc-3', { selector: { app: 'db' } }), field: 'spec.template.metadata.labels', reason: INVALID, message: '`selector` does not match template `labels`' },
  { name: 'a controller with negative replicas', url: controllers, body: controller('rc-4', { replicas: -2 }), field: 'spec.replicas', reason: INVALID, message: 'must be greater than or equal to 0' },
  { name: 'a controller template with a deadline', url: controllers, body: controller('rc-5', { template: template({}, { activeDeadlineSeconds: 5 }) }), field: 'spec.template.spec.activeDeadlineSeconds', reason: 'FieldValueForbidden', message: 'activeDeadlineSeconds in ReplicationController is not Supported' },
  { name: 'a controller template restarting OnFailure', url: controllers, body: controller('rc-6', { template: template({}, { restartPolicy: 'OnFailure' }) }), field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'supported values: "Always"' },
  { name: 'a controller of two replicas sharing a writable GCE disk', url: controllers, body: controller('rc-7', { replicas: 2, template: template({}, { volumes: [{ name: 'data', gcePersistentDisk: { pdName: 'disk' } }] }) }), field: 'spec.template.spec.volumes[0].gcePersistentDisk.readOnly', reason: INVALID, message: 'must be true for replicated pods > 1' },
  { name: 'a controller with negative minReadySeconds', url: controllers, body: controller('rc-8', { minReadySeconds: -1 }), field: 'spec.minReadySeconds', reason: INVALID, message: 'must be greater than or equal to 0' }
]

describe('ReplicaSet and ReplicationController', () => {
  const app = suiteApp()
  const req = async (method: string, url: string, payload?: unknown, headers: Obj = {}) =>
    await app().request({ method: method as 'GET', url, payload: payload as Obj, headers })
  const create = async (url: string, body: Obj): Promise<Obj> => {
    const res = await req('POST', url, body)
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }

  for (const c of cases) {
    it(`rejects ${c.name}`, async () => { assertInvalid(await req('POST', c.url, c.body), c.field, c.reason, c.message) })
  }

  it('defaults a replica set to one replica and its template as a pod', async () => {
    const rs = await create(replicasets, replicaSet('rs-defaults'))
    assert.equal(rs.spec.replicas, 1)
    assert.equal(rs.metadata.generation, 1)
    assert.deepEqual(rs.status, { replicas: 0 })
    assert.equal(rs.spec.template.spec.restartPolicy, 'Always')
    assert.equal(rs.spec.template.spec.terminationGracePeriodSeconds, 30)
    assert.equal((await create(replicasets, replicaSet('rs-zero', { replicas: 0 }))).spec.replicas, 0)
  })

  it('defaults a controller\'s selector and labels from its template, only where they are empty', async () => {
    const rc = await create(controllers, { metadata: { name: 'rc-defaults' }, spec: { template: template() } })
    assert.deepEqual(rc.spec.selector, labels)
    assert.deepEqual(rc.metadata.labels, labels)
    assert.equal(rc.spec.replicas, 1)
    assert.deepEqual(rc.status, { replicas: 0 })
    assert.equal(rc.spec.template.spec.dnsPolicy, 'ClusterFirst')
    const own = await create(controllers, { metadata: { name: 'rc-own', labels: { team: 'a' } }, spec: { selector: { app: 'web' }, template: template({ labels: { app: 'web', tier: 'front' } }) } })
    assert.deepEqual(own.spec.selector, { app: 'web' })
    assert.deepEqual(own.metadata.labels, { team: 'a' })
  })

  it('keeps a replica set\'s selector, but lets a controller\'s change', async () => {
    const rs = await create(replicasets, replicaSet('rs-fixed'))
    rs.spec.selector = { matchLabels: { app: 'web', tier: 'front' } }
    rs.spec.template.metadata.labels = { app: 'web', tier: 'front' }
    assertInvalid(await req('PUT', `${replicasets}/rs-fixed`, rs), 'spec.selector', INVALID, 'field is immutable')
    await create(controllers, controller('rc-moving'))
    const res = await req('PATCH', `${controllers}/rc-moving`, { spec: { selector: { app: 'web', tier: 'front' }, template: { metadata: { labels: { tier: 'front' } } } } }, mergePatch)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().spec.selector, { app: 'web', tier: 'front' })
    assert.equal(res.json().metadata.generation, 2)
  })

  it('moves a replica set\'s generation on spec changes only', async () => {
    await create(replicasets, replicaSet('rs-gen'))
    const patch = async (body: Obj) => (await req('PATCH', `${replicasets}/rs-gen`, body, mergePatch)).json().metadata.generation
    assert.equal(await patch({ metadata: { annotations: { a: 'b' } } }), 1)
    assert.equal(await patch({ spec: { minReadySeconds: 5 } }), 2)
  })

  for (const [kind, url, body] of [['replica set', replicasets, replicaSet('rs-status')], ['controller', controllers, controller('rc-status')]] as const) {
    it(`takes a ${kind}'s status only through /status, checking its counts`, async () => {
      const created = await create(url, { ...body, status: { replicas: 3 } })
      const name = created.metadata.name
      assert.equal(created.status?.replicas ?? 0, 0)
      const ignored = await req('PATCH', `${url}/${name}`, { status: { replicas: 3 } }, mergePatch)
      assert.equal(ignored.json().status?.replicas ?? 0, 0)
      const res = await req('PATCH', `${url}/${name}/status`, { spec: { replicas: 4 }, status: { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 2, availableReplicas: 2, observedGeneration: 1 } }, mergePatch)
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().status.readyReplicas, 2)
      assert.equal(res.json().spec.replicas, 1)
      assertInvalid(await req('PATCH', `${url}/${name}/status`, { status: { fullyLabeledReplicas: 4 } }, mergePatch), 'status.fullyLabeledReplicas', INVALID, 'cannot be greater than status.replicas')
      assertInvalid(await req('PATCH', `${url}/${name}/status`, { status: { availableReplicas: 3 } }, mergePatch), 'status.availableReplicas', INVALID, 'cannot be greater than readyReplicas')
      assertInvalid(await req('PATCH', `${url}/${name}/status`, { status: { observedGeneration: -1 } }, mergePatch), 'status.observedGeneration', INVALID, 'must be greater than or equal to 0')
    })
  }

  for (const [kind, url, body, selector] of [
    ['replica set', replicasets, replicaSet('rs-scale', { selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'track', operator: 'Exists' }] }, template: template({ labels: { app: 'web', track: 'stable' } }) }), 'app=web,track'],
    ['controller', controllers, controller('rc-scale', { selector: { tier: 'front', app: 'web' }, template: template({ labels: { app: 'web', tier: 'front' } }) }), 'app=web,tier=front']
  ] as const) {
    it(`scales a ${kind} through /scale, its selector as a string`, async () => {
      const name = (await create(url, body)).metadata.name
      const scale = (await req('GET', `${url}/${name}/scale`)).json()
      assert.equal(scale.kind, 'Scale')
      assert.equal(scale.spec.replicas, 1)
      assert.equal(scale.status.selector, selector)
      const put = await req('PUT', `${url}/${name}/scale`, { ...scale, spec: { replicas: 4 } })
      assert.equal(put.statusCode, 200, put.body)
      const patched = await req('PATCH', `${url}/${name}/scale`, { spec: { replicas: 6 } }, mergePatch)
      assert.equal(patched.statusCode, 200, patched.body)
      assert.equal((await req('GET', `${url}/${name}`)).json().spec.replicas, 6)
      assert.equal((await req('PATCH', `${url}/${name}/scale`, { spec: { replicas: -3 } }, mergePatch)).statusCode, 422)
    })
  }

  it('shows replica sets and controllers as kubectl does: desired, current, ready, and the wide columns', async () => {
    await create(replicasets, replicaSet('rs-table', { replicas: 3 }))
    await req('PATCH', `${replicasets}/rs-table/status`, { status: { replicas: 2, readyReplicas: 1 } }, mergePatch)
    await create(controllers, controller('rc-table', { replicas: 2 }))
    for (const [url, name, selector, current, ready] of [[replicasets, 'rs-table', 'app=web', 2, 1], [controllers, 'rc-table', 'app=web', 0, 0]] as const) {
      const t = (await req('GET', url, undefined, TABLE)).json()
      assert.deepEqual(t.columnDefinitions.map((c: Obj) => [c.name, c.type, c.priority ?? 0]), [
        ['Name', 'string', 0], ['Desired', 'integer', 0], ['Current', 'integer', 0], ['Ready', 'integer', 0], ['Age', 'string', 0],
        ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1]
      ])
      const row = t.rows.find((r: Obj) => r.cells[0] === name).cells
      assert.deepEqual([...row.slice(0, 4), ...row.slice(5)], [name, name === 'rs-table' ? 3 : 2, current, ready, 'nginx', 'nginx:1.27', selector])
    }
  })

  it('orphans a controller\'s pods on a delete that names no policy, and takes them with one that does', async () => {
    for (const policy of [undefined, 'Background']) {
      const name = `rc-gc-${policy === undefined ? 'default' : 'bg'}`
      const rc = await create(controllers, controller(name))
      const owner = { apiVersion: 'v1', kind: 'ReplicationController', name, uid: rc.metadata.uid, controller: true, blockOwnerDeletion: true }
      await create('/api/v1/namespaces/default/pods', { metadata: { name: `${name}-pod`, labels, ownerReferences: [owner] }, spec: template().spec })
      const res = await req('DELETE', `${controllers}/${name}`, policy === undefined ? undefined : { propagationPolicy: policy })
      assert.equal(res.statusCode, 200, res.body)
      const pod = `/api/v1/namespaces/default/pods/${name}-pod`
      if (policy === undefined) {
        await eventually(`${name} gone and its pod orphaned`, async () =>
          (await req('GET', `${controllers}/${name}`)).statusCode === 404 && (await req('GET', pod)).json().metadata?.ownerReferences === undefined)
      } else {
        await eventually(`${name}-pod deleted`, async () => { const p = await req('GET', pod); return p.statusCode === 404 || p.json().metadata?.deletionTimestamp !== undefined })
      }
    }
  })

  it('selects replica sets by status.replicas', async () => {
    await create(replicasets, replicaSet('rs-field'))
    await req('PATCH', `${replicasets}/rs-field/status`, { status: { replicas: 7 } }, mergePatch)
    const list = (await req('GET', `${replicasets}?fieldSelector=status.replicas%3D7`)).json()
    assert.deepEqual(list.items.map((i: Obj) => i.metadata.name), ['rs-field'])
  })
})
