// Custom objects join what every kind takes part in: the garbage collector follows their owner
// references both ways, and a namespace being deleted takes its custom objects with it.
import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { suiteApp } from '../resources/suite.js'
import { cronTabs } from './fixtures.js'
import { patchOf, startAdmissionWebhook } from '../helpers/admission-webhook.js'

type Obj = Record<string, any>
const crdUrl = '/apis/apiextensions.svc.io/v1/customresourcedefinitions'
const tabs = (ns: string, name = '') => `/apis/stable.example.com/v1/namespaces/${ns}/crontabs${name === '' ? '' : `/${name}`}`
const cms = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name === '' ? '' : `/${name}`}`

async function eventually (what: string, check: () => Promise<boolean>, ms = 15000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await check()) return
  assert.fail(`timed out waiting for ${what}`)
}

const ref = (o: Obj) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid })

const cleanups: Array<() => unknown> = []

describe('custom resources in the generic families', () => {
  const app = suiteApp({ authorizationModes: ['Node', 'RBAC'] })
  after(async () => { for (const fn of cleanups) await fn() })
  const req = async (method: string, url: string, payload?: unknown) => await app().request({ method: method as 'GET', url, payload: payload as Obj })
  const create = async (url: string, body: Obj): Promise<Obj> => {
    const res = await req('POST', url, body)
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }
  const gone = async (url: string) => { await eventually(`${url} gone`, async () => (await req('GET', url)).statusCode === 404) }

  it('collects the dependents of a custom owner, and custom dependents of a built-in owner', async () => {
    await create(crdUrl, cronTabs())
    await eventually('the kind served', async () => (await req('GET', tabs('default'))).statusCode === 200)
    const owner = await create(tabs('default'), { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'owner' }, spec: { cronSpec: '* * * * *' } })
    await create(cms('default'), { metadata: { name: 'owned-by-tab', ownerReferences: [ref(owner)] } })
    const cmOwner = await create(cms('default'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-owner' } })
    await create(tabs('default'), { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'owned-by-cm', ownerReferences: [ref({ ...cmOwner, apiVersion: 'v1', kind: 'ConfigMap' })] }, spec: { cronSpec: '* * * * *' } })
    assert.equal((await req('DELETE', tabs('default', 'owner'))).statusCode, 200)
    await gone(cms('default', 'owned-by-tab'))
    assert.equal((await req('DELETE', cms('default', 'cm-owner'))).statusCode, 200)
    await gone(tabs('default', 'owned-by-cm'))
  })

  it('counts custom objects against a quota\'s count/<plural>.<group>', async () => {
    await create('/api/v1/namespaces', { metadata: { name: 'quota-tabs' } })
    await create('/api/v1/namespaces/quota-tabs/resourcequotas', { metadata: { name: 'q' }, spec: { hard: { 'count/crontabs.stable.example.com': '1' } } })
    await eventually('the quota to have a status', async () => (await req('GET', '/api/v1/namespaces/quota-tabs/resourcequotas/q')).json().status?.hard !== undefined)
    await create(tabs('quota-tabs'), { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'one' }, spec: { cronSpec: '* * * * *' } })
    const second = await req('POST', tabs('quota-tabs'), { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'two' }, spec: { cronSpec: '* * * * *' } })
    assert.equal(second.statusCode, 403, second.body)
    assert.match(second.json().message, /exceeded quota: q, requested: count\/crontabs\.stable\.example\.com=1, used: count\/crontabs\.stable\.example\.com=1, limited: count\/crontabs\.stable\.example\.com=1/)
    await eventually('the quota to count the object', async () => (await req('GET', '/api/v1/namespaces/quota-tabs/resourcequotas/q')).json().status?.used?.['count/crontabs.stable.example.com'] === '1')
  })

  it('admits a write to /scale as an autoscaling/v1 Scale, which a mutating webhook may change', async () => {
    const hook = await startAdmissionWebhook({ after: fn => { cleanups.push(fn) } })
    const reviews: Obj[] = []
    hook.handle('/scale', (review) => {
      reviews.push(review.request)
      return patchOf([{ op: 'replace', path: '/spec/replicas', value: 6 }])
    })
    await create('/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations', {
      metadata: { name: 'even-scale' },
      webhooks: [{
        name: 'even.scale.example.com',
        clientConfig: { url: `${hook.base}/scale`, caBundle: hook.caBundle },
        rules: [{ operations: ['UPDATE'], apiGroups: ['stable.example.com'], apiVersions: ['v1'], resources: ['crontabs/scale'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1']
      }]
    })
    await create(tabs('default'), { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'scaled' }, spec: { cronSpec: '* * * * *', replicas: 1 } })
    const res = await app().request({ method: 'PATCH', url: `${tabs('default', 'scaled')}/scale`, payload: { spec: { replicas: 5 } }, headers: { 'content-type': 'application/merge-patch+json' } })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().spec.replicas, 6)
    assert.equal((await req('GET', tabs('default', 'scaled'))).json().spec.replicas, 6)
    const seen = reviews.at(-1)!
    assert.deepEqual(seen.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' })
    assert.deepEqual(seen.resource, { group: 'stable.example.com', version: 'v1', resource: 'crontabs' })
    assert.equal(seen.subResource, 'scale')
    assert.equal(seen.object.kind, 'Scale')
    assert.equal(seen.object.spec.replicas, 5)
    assert.equal(seen.oldObject.spec.replicas, 1)
  })

  it('authorizes custom resources by RBAC rules on their group and plural', async () => {
    await create('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { metadata: { name: 'tab-reader' }, rules: [{ apiGroups: ['stable.example.com'], resources: ['crontabs'], verbs: ['get', 'list'] }] })
    await create('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { metadata: { name: 'alice-reads-tabs' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tab-reader' }, subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }] })
    const as = { 'impersonate-user': 'alice' }
    await eventually('alice may list', async () => (await app().request({ method: 'GET', url: tabs('default'), headers: as })).statusCode === 200)
    const elsewhere = await app().request({ method: 'GET', url: tabs('kube-public'), headers: as })
    assert.equal(elsewhere.statusCode, 403)
    assert.equal(elsewhere.json().message, 'crontabs.stable.example.com is forbidden: User "alice" cannot list resource "crontabs" in API group "stable.example.com" in the namespace "kube-public"')
    const write = await app().request({ method: 'POST', url: tabs('default'), headers: as, payload: { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'x' }, spec: { cronSpec: '* * * * *' } } })
    assert.equal(write.statusCode, 403)
  })

  it('prunes what a mutating webhook adds that the schema does not declare, and keeps what it declares', async () => {
    const hook = await startAdmissionWebhook({ after: fn => { cleanups.push(fn) } })
    hook.handle('/add', () => patchOf([{ op: 'add', path: '/spec/undeclared', value: 'x' }, { op: 'add', path: '/spec/image', value: 'set-by-webhook' }]))
    await create('/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations', {
      metadata: { name: 'add-fields' },
      webhooks: [{
        name: 'add.fields.example.com',
        clientConfig: { url: `${hook.base}/add`, caBundle: hook.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: ['stable.example.com'], apiVersions: ['v1'], resources: ['crontabs'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1']
      }]
    })
    try {
      const created = await create(tabs('default'), { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'mutated' }, spec: { cronSpec: '* * * * *' } })
      assert.equal(created.spec.image, 'set-by-webhook')
      assert.equal(created.spec.undeclared, undefined)
      assert.equal((await req('GET', tabs('default', 'mutated'))).json().spec.undeclared, undefined)
    } finally {
      await req('DELETE', '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations/add-fields')
    }
  })

  it('deletes the custom objects of a namespace being deleted', async () => {
    await create('/api/v1/namespaces', { metadata: { name: 'doomed' } })
    await create(tabs('doomed'), { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'inside' }, spec: { cronSpec: '* * * * *' } })
    assert.equal((await req('DELETE', '/api/v1/namespaces/doomed')).statusCode, 200)
    await gone('/api/v1/namespaces/doomed')
    assert.equal((await req('GET', tabs('doomed', 'inside'))).statusCode, 404)
  })
})
