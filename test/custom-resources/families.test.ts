// Custom objects join what every kind takes part in: the garbage collector follows their owner
// references both ways, and a namespace being deleted takes its custom objects with it.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { suiteApp } from '../resources/suite.js'
import { cronTabs } from './fixtures.js'

type Obj = Record<string, any>
const crdUrl = '/apis/apiextensions.svc.io/v1/customresourcedefinitions'
const tabs = (ns: string, name = '') => `/apis/stable.example.com/v1/namespaces/${ns}/crontabs${name === '' ? '' : `/${name}`}`
const cms = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name === '' ? '' : `/${name}`}`

async function eventually (what: string, check: () => Promise<boolean>, ms = 15000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await check()) return
  assert.fail(`timed out waiting for ${what}`)
}

const ref = (o: Obj) => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid })

describe('custom resources in the generic families', () => {
  const app = suiteApp()
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

  it('deletes the custom objects of a namespace being deleted', async () => {
    await create('/api/v1/namespaces', { metadata: { name: 'doomed' } })
    await create(tabs('doomed'), { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'inside' }, spec: { cronSpec: '* * * * *' } })
    assert.equal((await req('DELETE', '/api/v1/namespaces/doomed')).statusCode, 200)
    await gone('/api/v1/namespaces/doomed')
    assert.equal((await req('GET', tabs('doomed', 'inside'))).statusCode, 404)
  })
})
