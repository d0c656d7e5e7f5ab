// Deployment (apps/v1): the apps/v1 defaults, ValidateDeployment's rules in the reference's
// words, the immutable selector, generation (spec and annotations), status only through
// /status, the Scale subresource, kubectl's columns, a strategic merge of containers by name,
// and the garbage collector taking the ReplicaSets a Deployment owns.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { assertInvalid, suiteApp } from './suite.js'
import { POD_SECURITY } from '../../resources/naming.js'

type Obj = Record<string, any>

const base = '/apis/apps/v1/namespaces/default'
const deployments = `${base}/deployments`
const replicasets = `${base}/replicasets`
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }
const strategicPatch = { 'content-type': 'application/strategic-merge-patch+json' }

const labels = { app: 'web' }
const template = (extra: Obj = {}, spec: Obj = {}) => ({
  metadata: { labels, ...extra },
  spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }], ...spec }
})
const deployment = (name: string, spec: Obj = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { selector: { matchLabels: labels }, template: template(), ...spec }
})

async function eventually (what: string, check: () => Promise<boolean>, ms = 15000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await check()) return
  assert.fail(`timed out waiting for ${what}`)
}

interface Case { name: string, spec: Obj, field: string, reason: string, message?: string }

const INVALID = 'FieldValueInvalid'
const cases: Case[] = [
  { name: 'negative replicas', spec: { replicas: -1 }, field: 'spec.replicas', reason: INVALID, message: 'must be greater than or equal to 0' },
  { name: 'no selector', spec: { selector: undefined }, field: 'spec.selector', reason: 'FieldValueRequired' },
  { name: 'an empty selector', spec: { selector: {} }, field: 'spec.selector', reason: INVALID, message: 'empty selector is invalid for deployment' },
  { name: 'a selector that misses the template', spec: { selector: { matchLabels: { app: 'db' } } }, field: 'spec.template.metadata.labels', reason: INVALID, message: '`selector` does not match template `labels`' },
  { name: 'a selector with an unknown operator', spec: { selector: { matchExpressions: [{ key: 'app', operator: 'Is', values: ['web'] }] } }, field: 'spec.selector', reason: INVALID, message: 'invalid label selector' },
  { name: 'an In requirement without values', spec: { selector: { matchExpressions: [{ key: 'app', operator: 'In' }] } }, field: 'spec.selector.matchExpressions[0].values', reason: 'FieldValueRequired' },
  { name: 'a template that restarts OnFailure', spec: { template: template({}, { restartPolicy: 'OnFailure' }) }, field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'supported values: "Always"' },
  { name: 'a template with a deadline', spec: { template: template({}, { activeDeadlineSeconds: 30 }) }, field: 'spec.template.spec.activeDeadlineSeconds', reason: 'FieldValueForbidden', message: 'activeDeadlineSeconds in ReplicaSet is not Supported' },
  { name: 'a template without containers', spec: { template: { metadata: { labels }, spec: { containers: [] } } }, field: 'spec.template.spec.containers', reason: 'FieldValueRequired' },
  { name: 'a template label that is no label', spec: { selector: { matchLabels: { app: 'web' } }, template: template({ labels: { app: 'web', 'a b': 'c' } }) }, field: 'spec.template.metadata.labels', reason: INVALID },
  { name: 'maxUnavailable and maxSurge both 0', spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }, field: 'spec.strategy.rollingUpdate.maxUnavailable', reason: INVALID, message: 'may not be 0 when `maxSurge` is 0' },
  { name: 'maxUnavailable 0% and maxSurge 0', spec: { strategy: { rollingUpdate: { maxUnavailable: '0%', maxSurge: 0 } } }, field: 'spec.strategy.rollingUpdate.maxUnavailable', reason: INVALID, message: 'may not be 0 when `maxSurge` is 0' },
  { name: 'maxUnavailable over 100%', spec: { strategy: { rollingUpdate: { maxUnavailable: '150%' } } }, field: 'spec.strategy.rollingUpdate.maxUnavailable', reason: INVALID, message: 'must not be greater than 100%' },
  { name: 'maxSurge that is no percent', spec: { strategy: { rollingUpdate: { maxSurge: 'lots' } } }, field: 'spec.strategy.rollingUpdate.maxSurge', reason: INVALID, message: "a valid percent string must be a numeric string followed by an ending '%'" },
  { name: 'a negative maxSurge', spec: { strategy: { rollingUpdate: { maxSurge: -1 } } }, field: 'spec.strategy.rollingUpdate.maxSurge', reason: INVALID, message: 'must be greater than or equal to 0' },
  { name: 'Recreate with rollingUpdate', spec: { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } }, field: 'spec.strategy.rollingUpdate', reason: 'FieldValueForbidden', message: "may not be specified when strategy `type` is 'Recreate'" },
  { name: 'an unknown strategy type', spec: { strategy: { type: 'BlueGreen' } }, field: 'spec.strategy', reason: 'FieldValueNotSupported', message: 'supported values: "Recreate", "RollingUpdate"' },
  { name: 'negative minReadySeconds', spec: { minReadySeconds: -1 }, field: 'spec.minReadySeconds', reason: INVALID, message: 'must be greater than or equal to 0' },
  { name: 'negative revisionHistoryLimit', spec: { revisionHistoryLimit: -1 }, field: 'spec.revisionHistoryLimit', reason: INVALID, message: 'must be greater than or equal to 0' },
  { name: 'a progress deadline no longer than minReadySeconds', spec: { minReadySeconds: 30, progressDeadlineSeconds: 30 }, field: 'spec.progressDeadlineSeconds', reason: INVALID, message: 'must be greater than minReadySeconds' },
  { name: 'a negative progress deadline', spec: { progressDeadlineSeconds: -5 }, field: 'spec.progressDeadlineSeconds', reason: INVALID, message: 'must be greater than or equal to 0' }
]

describe('Deployment', () => {
  const app = suiteApp()
  const req = async (method: string, url: string, payload?: unknown, headers: Obj = {}) =>
    await app().request({ method: method as 'GET', url, payload: payload as Obj, headers })
  const create = async (body: Obj, url = deployments): Promise<Obj> => {
    const res = await req('POST', url, body)
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }

  for (const [i, c] of cases.entries()) {
    it(`rejects ${c.name}`, async () => {
      assertInvalid(await req('POST', deployments, deployment(`bad-${i}`, c.spec)), c.field, c.reason, c.message)
    })
  }

  it('accepts the boundaries: 100% unavailable, zero surge with some unavailable, a Recreate without rollingUpdate', async () => {
    await create(deployment('ok-100', { strategy: { rollingUpdate: { maxUnavailable: '100%', maxSurge: 0 } } }))
    await create(deployment('ok-recreate', { strategy: { type: 'Recreate' } }))
    await create(deployment('ok-expressions', { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] } }))
  })

  it('defaults as apps/v1 does: one replica, a 25%/25% rolling update, history 10, deadline 600, the template as a pod', async () => {
    const d = await create(deployment('defaults'))
    assert.equal(d.metadata.generation, 1)
    assert.deepEqual(d.status, {})
    assert.equal(d.spec.replicas, 1)
    assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } })
    assert.equal(d.spec.revisionHistoryLimit, 10)
    assert.equal(d.spec.progressDeadlineSeconds, 600)
    const pod = d.spec.template.spec
    assert.equal(pod.restartPolicy, 'Always')
    assert.equal(pod.dnsPolicy, 'ClusterFirst')
    assert.equal(pod.containers[0].imagePullPolicy, 'IfNotPresent')
    // Only the type's own parameters: a Recreate gets no rollingUpdate; explicit values stay.
    const recreate = await create(deployment('defaults-recreate', { replicas: 0, strategy: { type: 'Recreate' }, revisionHistoryLimit: 0 }))
    assert.deepEqual(recreate.spec.strategy, { type: 'Recreate' })
    assert.equal(recreate.spec.replicas, 0)
    assert.equal(recreate.spec.revisionHistoryLimit, 0)
    const partial = await create(deployment('defaults-partial', { strategy: { rollingUpdate: { maxSurge: 2 } } }))
    assert.deepEqual(partial.spec.strategy.rollingUpdate, { maxUnavailable: '25%', maxSurge: 2 })
  })

  it('takes what kubectl create deployment sends: null timestamps, an empty strategy and status', async () => {
    const d = await create({
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'kubectl-made', creationTimestamp: null, labels: { app: 'kubectl-made' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'kubectl-made' } },
        template: { metadata: { creationTimestamp: null, labels: { app: 'kubectl-made' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }] } },
        strategy: {}
      },
      status: {}
    })
    assert.equal(d.spec.strategy.type, 'RollingUpdate')
    assert.equal(d.spec.template.spec.containers[0].imagePullPolicy, 'Always')
  })

  it('defaults a template left out before validating it', async () => {
    const res = await req('POST', deployments, { metadata: { name: 'no-template' }, spec: { selector: { matchLabels: labels } } })
    assertInvalid(res, 'spec.template.metadata.labels', INVALID, '`selector` does not match template `labels`')
    assertInvalid(res, 'spec.template.spec.containers', 'FieldValueRequired')
  })

  it('warns that a name that is no DNS label makes surprising pod names, and of the template\'s deprecated parts', async () => {
    const res = await req('POST', deployments, deployment('web.v1', { template: template({ annotations: { [POD_SECURITY.seccompPodAnnotation]: 'runtime/default' } }) }))
    assert.equal(res.statusCode, 201, res.body)
    const warning = String(res.headers.warning)
    assert.match(warning, /metadata\.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: \[a lowercase RFC 1123 label must consist of/)
    assert.ok(warning.includes(`spec.template.metadata.annotations[${POD_SECURITY.seccompPodAnnotation}]: non-functional in v1.27+`), warning)
  })

  it('keeps the selector: an update changing it is refused as immutable', async () => {
    const d = await create(deployment('fixed'))
    const changed = structuredClone(d)
    changed.spec.selector = { matchLabels: { app: 'web', tier: 'front' } }
    changed.spec.template.metadata.labels = { app: 'web', tier: 'front' }
    assertInvalid(await req('PUT', `${deployments}/fixed`, changed), 'spec.selector', INVALID, 'field is immutable')
  })

  it('moves the generation on spec and annotation changes, not on label changes', async () => {
    await create(deployment('gen'))
    const patch = async (body: Obj) => {
      const res = await req('PATCH', `${deployments}/gen`, body, mergePatch)
      assert.equal(res.statusCode, 200, res.body)
      return res.json().metadata.generation
    }
    assert.equal(await patch({ metadata: { labels: { team: 'a' } } }), 1)
    assert.equal(await patch({ spec: { replicas: 3 } }), 2)
    assert.equal(await patch({ metadata: { annotations: { note: 'copied to replica sets' } } }), 3)
    assert.equal(await patch({ metadata: { labels: { team: 'b' } } }), 3)
  })

  it('takes status only through /status, checking its counts, and never lets collisionCount go down', async () => {
    const d = await create({ ...deployment('stat'), status: { replicas: 9 } })
    assert.equal(d.status?.replicas, undefined)
    const main = await req('PATCH', `${deployments}/stat`, { status: { replicas: 4 } }, mergePatch)
    assert.equal(main.statusCode, 200, main.body)
    assert.equal(main.json().status?.replicas, undefined)
    const status = await req('PATCH', `${deployments}/stat/status`, { spec: { replicas: 7 }, metadata: { labels: { x: 'y' } }, status: { replicas: 2, readyReplicas: 2, availableReplicas: 1, collisionCount: 3 } }, mergePatch)
    assert.equal(status.statusCode, 200, status.body)
    const written = status.json()
    assert.equal(written.status.replicas, 2)
    assert.equal(written.spec.replicas, 1)
    assert.equal(written.metadata.labels, undefined)
    assert.equal(written.metadata.generation, 1)
    // Behind an alpha gate that is off: dropped unless already stored.
    const terminating = await req('PATCH', `${deployments}/stat/status`, { status: { terminatingReplicas: 1 } }, mergePatch)
    assert.equal(terminating.statusCode, 200, terminating.body)
    assert.equal(terminating.json().status.terminatingReplicas, undefined)
    assertInvalid(await req('PATCH', `${deployments}/stat/status`, { status: { collisionCount: 1 } }, mergePatch), 'status.collisionCount', INVALID, 'cannot be decremented')
    assertInvalid(await req('PATCH', `${deployments}/stat/status`, { status: { readyReplicas: 5 } }, mergePatch), 'status.readyReplicas', INVALID, 'cannot be greater than status.replicas')
    assertInvalid(await req('PATCH', `${deployments}/stat/status`, { status: { availableReplicas: 2, readyReplicas: 1 } }, mergePatch), 'status.availableReplicas', INVALID, 'cannot be greater than readyReplicas')
    assertInvalid(await req('PATCH', `${deployments}/stat/status`, { status: { unavailableReplicas: -1 } }, mergePatch), 'status.unavailableReplicas', INVALID, 'must be greater than or equal to 0')
  })

  it('serves /scale as an autoscaling/v1 Scale with the selector as a string', async () => {
    await create(deployment('scaled', { replicas: 2, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db', 'cache'] }] } }))
    const got = await req('GET', `${deployments}/scaled/scale`)
    assert.equal(got.statusCode, 200, got.body)
    const scale = got.json()
    assert.equal(scale.kind, 'Scale')
    assert.equal(scale.apiVersion, 'autoscaling/v1')
    assert.equal(scale.spec.replicas, 2)
    assert.deepEqual(scale.status, { replicas: 0, selector: 'app=web,tier notin (cache,db)' })
    const put = await req('PUT', `${deployments}/scaled/scale`, { ...scale, spec: { replicas: 5 } })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().spec.replicas, 5)
    const after = (await req('GET', `${deployments}/scaled`)).json()
    assert.equal(after.spec.replicas, 5)
    assert.equal(after.metadata.generation, 2)
    const patched = await req('PATCH', `${deployments}/scaled/scale`, { spec: { replicas: 1 } }, mergePatch)
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal((await req('GET', `${deployments}/scaled`)).json().spec.replicas, 1)
    const negative = await req('PATCH', `${deployments}/scaled/scale`, { spec: { replicas: -1 } }, mergePatch)
    assert.equal(negative.statusCode, 422, negative.body)
    assert.equal(negative.json().details.causes[0].field, 'spec.replicas')
  })

  it('merges a strategic patch of the containers by name, as kubectl set image does', async () => {
    await create(deployment('smp', { template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80 }] }, { name: 'sidecar', image: 'busybox:1' }] } } }))
    const res = await req('PATCH', `${deployments}/smp`, { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:2' }] } } } }, strategicPatch)
    assert.equal(res.statusCode, 200, res.body)
    const containers = res.json().spec.template.spec.containers
    assert.deepEqual(containers.map((c: Obj) => [c.name, c.image]), [['nginx', 'nginx:2'], ['sidecar', 'busybox:1']])
    assert.deepEqual(containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }])
    assert.equal(res.json().metadata.generation, 2)
  })

  it('switches strategy by a patch that retains only the type, as kubectl apply sends it', async () => {
    await create(deployment('retain'))
    const res = await req('PATCH', `${deployments}/retain`, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } }, strategicPatch)
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().spec.strategy, { type: 'Recreate' })
  })

  it('takes server-side apply: a second manager\'s container image by name, the first one\'s kept', async () => {
    const apply = (manager: string, spec: Obj) => req('PATCH', `${deployments}/applied?fieldManager=${manager}&force=true`,
      JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'applied' }, spec }), { 'content-type': 'application/apply-patch+yaml' })
    const first = await apply('one', { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx:1' }, { name: 'log', image: 'fluentd:1' }] } } })
    assert.equal(first.statusCode, 201, first.body)
    const second = await apply('two', { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:2' }] } } })
    assert.equal(second.statusCode, 200, second.body)
    const d = second.json()
    assert.deepEqual(d.spec.template.spec.containers.map((c: Obj) => [c.name, c.image]), [['nginx', 'nginx:2'], ['log', 'fluentd:1']])
    assert.equal(d.spec.replicas, 2)
    assert.equal(d.metadata.generation, 2)
  })

  it('shows a deployment as kubectl does: ready of desired, up to date, available, and the wide columns', async () => {
    await create(deployment('table', { replicas: 3, template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'log', image: 'fluentd:2' }] } } }))
    assert.equal((await req('PATCH', `${deployments}/table/status`, { status: { replicas: 3, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 1 } }, mergePatch)).statusCode, 200)
    const t = (await req('GET', deployments, undefined, TABLE)).json()
    assert.deepEqual(t.columnDefinitions.map((c: Obj) => [c.name, c.priority ?? 0]), [
      ['Name', 0], ['Ready', 0], ['Up-to-date', 0], ['Available', 0], ['Age', 0], ['Containers', 1], ['Images', 1], ['Selector', 1]
    ])
    const row = t.rows.find((r: Obj) => r.cells[0] === 'table').cells
    assert.deepEqual([...row.slice(0, 4), ...row.slice(5)], ['table', '2/3', 2, 1, 'nginx,log', 'nginx:1.27,fluentd:2', 'app=web'])
  })

  it('is found by its short name and category in discovery', async () => {
    const list = (await req('GET', '/apis/apps/v1')).json()
    const entry = list.resources.find((r: Obj) => r.name === 'deployments')
    assert.deepEqual(entry.shortNames, ['deploy'])
    assert.deepEqual(entry.categories, ['all'])
    assert.ok(list.resources.some((r: Obj) => r.name === 'deployments/scale' && r.kind === 'Scale' && r.group === 'autoscaling'))
  })

  it('takes the replica sets it owns with it when deleted, in the background and in the foreground', async () => {
    for (const policy of ['Background', 'Foreground']) {
      const name = `owner-${policy.toLowerCase()}`
      const d = await create(deployment(name))
      const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name, uid: d.metadata.uid, controller: true, blockOwnerDeletion: true }
      await create({ metadata: { name: `${name}-rs`, ownerReferences: [owner] }, spec: { selector: { matchLabels: labels }, template: template() } }, replicasets)
      const res = await req('DELETE', `${deployments}/${name}`, { propagationPolicy: policy })
      assert.equal(res.statusCode, 200, res.body)
      await eventually(`${name}-rs gone`, async () => (await req('GET', `${replicasets}/${name}-rs`)).statusCode === 404)
      await eventually(`${name} gone`, async () => (await req('GET', `${deployments}/${name}`)).statusCode === 404)
    }
  })
})
