// The garbage collector through the API: each propagation policy, blockOwnerDeletion, dangling
// and invalid owners, cluster-scoped owners, cycles, and a collector started mid-deletion.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { assertInvalid, suiteApp } from '../resources/suite.js'
import { buildTestApp } from '../helpers/app.js'
import type { TestApp } from '../helpers/app.js'

const ns = (n: string) => `/api/v1/namespaces/${n}`
const cm = (n: string, name = '') => `${ns(n)}/configmaps${name === '' ? '' : `/${name}`}`

function ref (owner: any, o: { block?: boolean, kind?: string, apiVersion?: string } = {}) {
  return { apiVersion: o.apiVersion ?? owner.apiVersion, kind: o.kind ?? owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, ...(o.block === undefined ? {} : { blockOwnerDeletion: o.block }) }
}

/** Polls until `check` holds; fails with what it last saw. */
async function eventually (what: string, check: () => Promise<boolean>, ms = 15000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await check()) return
  assert.fail(`timed out waiting for ${what}`)
}

function helpers (app: () => TestApp) {
  const create = async (url: string, body: any) => {
    const res = await app().request({ method: 'POST', url, payload: body })
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }
  const get = async (url: string) => await app().request({ method: 'GET', url })
  const exists = async (url: string) => (await get(url)).statusCode === 200
  const gone = (url: string) => eventually(`${url} to be gone`, async () => (await get(url)).statusCode === 404)
  const configMap = (n: string, name: string, owners: any[] = [], extra: any = {}) =>
    create(cm(n), { metadata: { name, ...(owners.length > 0 ? { ownerReferences: owners } : {}), ...extra } })
  return { create, get, exists, gone, configMap }
}

describe('garbage collector', () => {
  const app = suiteApp()
  const { create, get, exists, gone, configMap } = helpers(app)

  it('Background: the owner goes at once, its dependents after', async () => {
    const owner = await configMap('default', 'bg-owner')
    const a = await configMap('default', 'bg-a', [ref(owner)])
    await configMap('default', 'bg-a-child', [ref(a)])
    await configMap('default', 'bg-b', [ref(owner, { block: true })])
    const res = await app().request({ method: 'DELETE', url: cm('default', 'bg-owner'), payload: { propagationPolicy: 'Background' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal((await get(cm('default', 'bg-owner'))).statusCode, 404)
    await gone(cm('default', 'bg-a'))
    await gone(cm('default', 'bg-b'))
    await gone(cm('default', 'bg-a-child'))
  })

  it('Foreground: the owner waits with foregroundDeletion until its blocking dependents are gone', async () => {
    const owner = await configMap('default', 'fg-owner')
    // A finalizer of someone else's holds the blocking dependent, so the owner's wait is visible.
    await configMap('default', 'fg-held', [ref(owner, { block: true })], { finalizers: ['example.com/hold'] })
    await configMap('default', 'fg-free', [ref(owner)])
    const res = await app().request({ method: 'DELETE', url: cm('default', 'fg-owner'), payload: { propagationPolicy: 'Foreground' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.ok(res.json().metadata.deletionTimestamp)
    assert.deepEqual(res.json().metadata.finalizers, ['foregroundDeletion'])
    await gone(cm('default', 'fg-free'))
    await eventually('the held dependent to be terminating', async () => (await get(cm('default', 'fg-held'))).json().metadata.deletionTimestamp !== undefined)
    const waiting = await get(cm('default', 'fg-owner'))
    assert.equal(waiting.statusCode, 200)
    assert.deepEqual(waiting.json().metadata.finalizers, ['foregroundDeletion'])
    const release = await app().request({ method: 'PATCH', url: cm('default', 'fg-held'), headers: { 'content-type': 'application/merge-patch+json' }, payload: { metadata: { finalizers: null } } })
    assert.equal(release.statusCode, 200, release.body)
    await gone(cm('default', 'fg-held'))
    await gone(cm('default', 'fg-owner'))
  })

  it('Foreground through a chain: grandchildren go before the owner', async () => {
    const owner = await configMap('default', 'chain-owner')
    const mid = await configMap('default', 'chain-mid', [ref(owner, { block: true })])
    await configMap('default', 'chain-leaf', [ref(mid, { block: true })])
    await app().request({ method: 'DELETE', url: cm('default', 'chain-owner'), payload: { propagationPolicy: 'Foreground' } })
    await gone(cm('default', 'chain-owner'))
    assert.equal(await exists(cm('default', 'chain-mid')), false)
    assert.equal(await exists(cm('default', 'chain-leaf')), false)
  })

  it('Orphan: dependents lose the reference and stay; the orphan finalizer goes, then the owner', async () => {
    const owner = await configMap('default', 'or-owner')
    const other = await configMap('default', 'or-other')
    await configMap('default', 'or-a', [ref(owner, { block: true }), ref(other)])
    await configMap('default', 'or-b', [ref(owner)])
    const res = await app().request({ method: 'DELETE', url: `${cm('default', 'or-owner')}?propagationPolicy=Orphan` })
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().metadata.finalizers, ['orphan'])
    await gone(cm('default', 'or-owner'))
    const a = (await get(cm('default', 'or-a'))).json()
    assert.deepEqual(a.metadata.ownerReferences, [ref(other)])
    const b = await get(cm('default', 'or-b'))
    assert.equal(b.statusCode, 200)
    assert.equal(b.json().metadata.ownerReferences, undefined)
  })

  it('orphanDependents=true is Orphan; it may not be sent with propagationPolicy', async () => {
    const owner = await configMap('default', 'od-owner')
    await configMap('default', 'od-a', [ref(owner)])
    const both = await app().request({ method: 'DELETE', url: cm('default', 'od-owner'), payload: { orphanDependents: true, propagationPolicy: 'Orphan' } })
    assert.equal(both.statusCode, 422, both.body)
    const res = await app().request({ method: 'DELETE', url: cm('default', 'od-owner'), payload: { orphanDependents: true } })
    assert.deepEqual(res.json().metadata.finalizers, ['orphan'])
    await gone(cm('default', 'od-owner'))
    assert.equal((await get(cm('default', 'od-a'))).json().metadata.ownerReferences, undefined)
  })

  it('deletes a dependent whose owner never existed or has another uid, and keeps one with a live owner', async () => {
    const live = await configMap('default', 'dg-live')
    await configMap('default', 'dg-never', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '00000000-0000-0000-0000-000000000001' }])
    await configMap('default', 'dg-wrong-uid', [{ ...ref(live), uid: '00000000-0000-0000-0000-000000000002' }])
    await configMap('default', 'dg-kept', [ref(live)])
    await gone(cm('default', 'dg-never'))
    await gone(cm('default', 'dg-wrong-uid'))
    assert.equal(await exists(cm('default', 'dg-kept')), true)
  })

  it('keeps a dependent while one owner lives and drops the reference to the one that went', async () => {
    const a = await configMap('default', 'two-a')
    const b = await configMap('default', 'two-b')
    await configMap('default', 'two-dep', [ref(a), ref(b)])
    await app().request({ method: 'DELETE', url: cm('default', 'two-a') })
    await eventually('the dangling reference to go', async () => (await get(cm('default', 'two-dep'))).json().metadata.ownerReferences?.length === 1)
    assert.deepEqual((await get(cm('default', 'two-dep'))).json().metadata.ownerReferences, [ref(b)])
  })

  it('a namespaced owner in another namespace does not count: the dependent goes', async () => {
    await create('/api/v1/namespaces', { metadata: { name: 'gc-elsewhere' } })
    const owner = await configMap('gc-elsewhere', 'owner')
    await configMap('default', 'xns-dep', [ref(owner)])
    await gone(cm('default', 'xns-dep'))
    assert.equal(await exists(cm('gc-elsewhere', 'owner')), true)
  })

  it('a cluster-scoped owner owns namespaced dependents', async () => {
    const owner = await create('/api/v1/persistentvolumes', { metadata: { name: 'gc-pv' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } } })
    await configMap('default', 'cs-dep', [ref(owner)])
    await sleep(300)
    assert.equal(await exists(cm('default', 'cs-dep')), true)
    await app().request({ method: 'DELETE', url: '/api/v1/persistentvolumes/gc-pv' })
    await gone('/api/v1/persistentvolumes/gc-pv')
    await gone(cm('default', 'cs-dep'))
  })

  it('a cluster-scoped object naming a namespaced owner is left alone', async () => {
    await create('/api/v1/persistentvolumes', { metadata: { name: 'gc-invalid', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '00000000-0000-0000-0000-000000000003' }] }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/y' } } })
    // A dangling owner that is valid goes in the same time; the invalid one must not.
    await configMap('default', 'inv-probe', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '00000000-0000-0000-0000-000000000004' }])
    await gone(cm('default', 'inv-probe'))
    assert.equal(await exists('/api/v1/persistentvolumes/gc-invalid'), true)
  })

  it('a reference to an unknown kind keeps the object', async () => {
    await configMap('default', 'unk', [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: '00000000-0000-0000-0000-000000000005' }])
    await configMap('default', 'unk-probe', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '00000000-0000-0000-0000-000000000006' }])
    await gone(cm('default', 'unk-probe'))
    assert.equal(await exists(cm('default', 'unk')), true)
  })

  it('leaves events alone, as the reference controller manager ignores them', async () => {
    const dangling = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: '00000000-0000-0000-0000-000000000007' }]
    await create(`${ns('default')}/events`, { metadata: { name: 'ev-owned', ownerReferences: dangling }, involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'default' }, reason: 'R', message: 'm' })
    await configMap('default', 'ev-probe', [{ ...dangling[0], uid: '00000000-0000-0000-0000-000000000008' }])
    await gone(cm('default', 'ev-probe'))
    assert.equal(await exists(`${ns('default')}/events/ev-owned`), true)
  })

  it('a cycle of blocking owners deleted in the foreground ends (no livelock)', async () => {
    const a = await configMap('default', 'cy-a')
    const b = await configMap('default', 'cy-b', [ref(a, { block: true })])
    const patched = await app().request({ method: 'PATCH', url: cm('default', 'cy-a'), headers: { 'content-type': 'application/merge-patch+json' }, payload: { metadata: { ownerReferences: [ref(b, { block: true })] } } })
    assert.equal(patched.statusCode, 200, patched.body)
    // Alive, they hold each other up: nothing is deleted.
    await sleep(300)
    assert.equal(await exists(cm('default', 'cy-a')), true)
    await app().request({ method: 'DELETE', url: cm('default', 'cy-a'), payload: { propagationPolicy: 'Foreground' } })
    await gone(cm('default', 'cy-a'))
    await gone(cm('default', 'cy-b'))
  })

  it('an ephemeral volume claim goes with its pod; a namespace takes everything in it', async () => {
    await create('/api/v1/namespaces', { metadata: { name: 'gc-pods' } })
    const template = { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }
    await create(`${ns('gc-pods')}/pods`, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: template } }] } })
    const claim = `${ns('gc-pods')}/persistentvolumeclaims/p-scratch`
    await eventually('the claim', async () => await exists(claim))
    await app().request({ method: 'DELETE', url: `${ns('gc-pods')}/pods/p` })
    await gone(`${ns('gc-pods')}/pods/p`)
    await gone(claim)
    const owner = await configMap('gc-pods', 'owner')
    await configMap('gc-pods', 'dep', [ref(owner)], { finalizers: [] })
    await app().request({ method: 'DELETE', url: '/api/v1/namespaces/gc-pods', payload: { propagationPolicy: 'Foreground' } })
    await gone('/api/v1/namespaces/gc-pods', )
  })
})

describe('DELETE with a propagation policy (no collector running)', () => {
  const app = suiteApp({ controllers: ['*', '-garbagecollector'] })
  const { configMap, get } = helpers(app)
  const del = async (url: string, payload?: any) => (await app().request({ method: 'DELETE', url, ...(payload === undefined ? {} : { payload }) })).json()

  it('each policy leaves its finalizer; a later DELETE switches it; Background drops it', async () => {
    await configMap('default', 'sw', [], { finalizers: ['example.com/hold'] })
    const first = await del(cm('default', 'sw'), { propagationPolicy: 'Orphan' })
    assert.ok(first.metadata.deletionTimestamp)
    assert.deepEqual(first.metadata.finalizers, ['example.com/hold', 'orphan'])
    assert.deepEqual((await del(cm('default', 'sw'), { propagationPolicy: 'Foreground' })).metadata.finalizers, ['example.com/hold', 'foregroundDeletion'])
    assert.deepEqual((await del(cm('default', 'sw'), { propagationPolicy: 'Background' })).metadata.finalizers, ['example.com/hold'])
    assert.deepEqual((await del(`${cm('default', 'sw')}?orphanDependents=true`)).metadata.finalizers, ['example.com/hold', 'orphan'])
    assert.deepEqual((await del(cm('default', 'sw'), { propagationPolicy: 'Background' })).metadata.finalizers, ['example.com/hold'])
    // 200 while held, as the reference server; 202 only for orphanDependents=false.
    const cascading = await app().request({ method: 'DELETE', url: `${cm('default', 'sw')}?orphanDependents=false` })
    assert.equal(cascading.statusCode, 202)
    assert.deepEqual(cascading.json().metadata.finalizers, ['example.com/hold'])
    const held = await app().request({ method: 'DELETE', url: `${cm('default', 'sw')}?orphanDependents=true` })
    assert.equal(held.statusCode, 200)
    // Without a policy a finalizer already there stays.
    assert.deepEqual((await del(cm('default', 'sw'))).metadata.finalizers, ['example.com/hold', 'orphan'])
    assert.equal(first.metadata.deletionTimestamp, (await get(cm('default', 'sw'))).json().metadata.deletionTimestamp)
  })

  it('Background, no policy, or a policy on an object nothing else holds: gone at once', async () => {
    await configMap('default', 'plain')
    const res = await app().request({ method: 'DELETE', url: cm('default', 'plain'), payload: { propagationPolicy: 'Background' } })
    assert.equal(res.statusCode, 200)
    assert.equal(res.json().kind, 'Status')
    assert.equal((await get(cm('default', 'plain'))).statusCode, 404)
  })

  it('refuses both GC finalizers at once, and two controller owners', async () => {
    const both = await app().request({ method: 'POST', url: cm('default'), payload: { metadata: { name: 'both', finalizers: ['orphan', 'foregroundDeletion'] } } })
    assertInvalid(both, 'metadata.finalizers', 'FieldValueInvalid', 'finalizer orphan and foregroundDeletion cannot be both set')
    const owners = [1, 2].map(i => ({ apiVersion: 'v1', kind: 'ConfigMap', name: `o${i}`, uid: `u${i}`, controller: true }))
    const two = await app().request({ method: 'POST', url: cm('default'), payload: { metadata: { name: 'two', ownerReferences: owners } } })
    assertInvalid(two, 'metadata.ownerReferences', 'FieldValueInvalid', 'Only one reference can have Controller set to true. Found "true" in references for ConfigMap/o1 and ConfigMap/o2')
  })

  it('refuses an unknown policy and orphanDependents beside propagationPolicy', async () => {
    await configMap('default', 'bad')
    const unknown = await app().request({ method: 'DELETE', url: cm('default', 'bad'), payload: { propagationPolicy: 'Sideways' } })
    assertInvalid(unknown, 'propagationPolicy', 'FieldValueNotSupported')
    const both = await app().request({ method: 'DELETE', url: `${cm('default', 'bad')}?orphanDependents=false&propagationPolicy=Orphan` })
    assertInvalid(both, 'propagationPolicy', 'FieldValueInvalid')
  })
})

describe('garbage collector started in the middle of a foreground deletion', () => {
  it('finishes it', async (t) => {
    // The first server records the deletion without a collector; the second, on the same database,
    // finishes it. The first stays out of the leader election, so the second leads at once.
    const first = await buildTestApp(t, { controllers: ['*', '-garbagecollector'], leaderElection: { enabled: false } })
    const h1 = helpers(() => first)
    const owner = await h1.configMap('default', 'rs-owner')
    await h1.configMap('default', 'rs-a', [ref(owner, { block: true })])
    await h1.configMap('default', 'rs-b', [ref(owner, { block: true })])
    await first.request({ method: 'DELETE', url: cm('default', 'rs-owner'), payload: { propagationPolicy: 'Foreground' } })
    await sleep(300)
    assert.deepEqual((await h1.get(cm('default', 'rs-owner'))).json().metadata.finalizers, ['foregroundDeletion'])
    assert.equal(await h1.exists(cm('default', 'rs-a')), true)
    const second = await buildTestApp(t, { databaseUrl: first.databaseUrl })
    const h2 = helpers(() => second)
    await h2.gone(cm('default', 'rs-a'))
    await h2.gone(cm('default', 'rs-b'))
    await h2.gone(cm('default', 'rs-owner'))
  })
})

describe('an owner deleted through one server, collected by another on the same database', () => {
  it('leaves what each policy leaves', async (t) => {
    const front = await buildTestApp(t, { controllers: ['*', '-garbagecollector'], leaderElection: { enabled: false } })
    const back = await buildTestApp(t, { databaseUrl: front.databaseUrl })
    const h = helpers(() => front)
    const list = async (n: string) => (await front.request({ method: 'GET', url: `${cm(n)}?labelSelector=tree` })).json().items as any[]
    for (const policy of ['Background', 'Foreground', 'Orphan']) {
      const n = `two-${policy.toLowerCase()}`
      await h.create('/api/v1/namespaces', { metadata: { name: n } })
      const labels = { tree: 'y' }
      const owner = await h.configMap(n, 'owner', [], { labels })
      for (let i = 0; i < 5; i++) {
        const mid = await h.configMap(n, `m${i}`, [ref(owner, { block: true })], { labels })
        for (let j = 0; j < 3; j++) await h.configMap(n, `m${i}-l${j}`, [ref(mid, { block: true })], { labels })
      }
      const res = await front.request({ method: 'DELETE', url: cm(n, 'owner'), payload: { propagationPolicy: policy } })
      assert.ok(res.statusCode < 300, res.body)
      await h.gone(cm(n, 'owner'))
      if (policy === 'Orphan') {
        const left = await list(n)
        assert.equal(left.length, 20)
        assert.deepEqual(left.filter(o => !o.metadata.name.includes('-')).map(o => o.metadata.ownerReferences), [undefined, undefined, undefined, undefined, undefined])
      } else {
        await eventually(`${n} to be empty`, async () => (await list(n)).length === 0)
      }
    }
    assert.ok(back.app.hasPlugin('controller:garbagecollector'))
  })
})
