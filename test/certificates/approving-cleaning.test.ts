// Auto-approval of node client certificates (bootstrap tokens and nodes renewing their own)
// and the cleaner's timings under an injected clock.
import { describe, it, before } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suiteApp } from '../resources/suite.js'
import { buildTestApp } from '../helpers/app.js'
import { certificateRequest } from '../helpers/csr.js'
import { eventually } from '../helpers/eventually.js'
import { ensureCertificates, type Pki } from '../../auth/pki.js'
import csrCleaner from '../../controllers/csr-cleaner.js'

const url = '/apis/certificates.svc.io/v1/certificatesigningrequests'
const NODE_SIGNER = 'svc.io/svc-apiserver-client-svclet'
const NODE_USAGES = ['key encipherment', 'digital signature', 'client auth']
const TOKEN = 'abcdef.0123456789abcdef'

let pki: Pki
before(async () => { pki = await ensureCertificates(mkdtempSync(join(tmpdir(), 'csr-approving-'))) })

describe('auto-approval of node client certificates', () => {
  const app = suiteApp({
    enableBootstrapTokenAuth: true,
    authorizationModes: ['Node', 'RBAC'],
    get clusterSigning () { return { certPem: pki.caCertPem, keyPem: pki.caKeyPem } }
  })
  const nodeRequest = async (name: string, cn: string, headers: Record<string, string | string[]>, as: 'admin' | 'alice' | null = null) => {
    const req = await certificateRequest({ cn, o: ['system:nodes'] })
    const res = await app().request({ as, method: 'POST', url, headers, payload: { metadata: { name }, spec: { request: req.b64, signerName: NODE_SIGNER, usages: NODE_USAGES } } })
    assert.equal(res.statusCode, 201, res.body)
  }
  const get = async (name: string) => (await app().request({ method: 'GET', url: `${url}/${name}` })).json()

  before(async () => {
    const secret = { metadata: { name: 'bootstrap-token-abcdef', namespace: 'svc-system' }, type: 'bootstrap.svc.io/token', stringData: { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' } }
    assert.equal((await app().request({ method: 'POST', url: '/api/v1/namespaces/svc-system/secrets', payload: secret })).statusCode, 201)
    // alice may create requests (as a node bootstrapper may) but holds neither approval permission.
    const binding = { metadata: { name: 'alice-bootstrapper' }, roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'system:node-bootstrapper' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.svc.io', name: 'alice' }] }
    assert.equal((await app().request({ method: 'POST', url: '/apis/rbac.authorization.svc.io/v1/clusterrolebindings', payload: binding })).statusCode, 201)
  })

  it('approves and signs a bootstrap token\'s request for a node', async () => {
    await nodeRequest('boot', 'system:node:n1', { authorization: `Bearer ${TOKEN}` })
    const csr = await eventually(async () => {
      const c = await get('boot')
      assert.ok(c.status?.certificate, JSON.stringify(c.status))
      return c
    })
    assert.equal(csr.spec.username, 'system:bootstrap:abcdef')
    const approved = csr.status.conditions.find((c: { type: string }) => c.type === 'Approved')
    assert.equal(approved.reason, 'AutoApproved')
    assert.equal(approved.message, 'Auto approving svclet client certificate after SubjectAccessReview.')
  })

  it('approves a node renewing its own certificate', async () => {
    await nodeRequest('renew', 'system:node:n2', { 'impersonate-user': 'system:node:n2', 'impersonate-group': 'system:nodes' }, 'admin')
    const csr = await eventually(async () => {
      const c = await get('renew')
      assert.ok(c.status?.conditions?.length > 0)
      return c
    })
    assert.equal(csr.status.conditions[0].message, 'Auto approving self svclet client certificate after SubjectAccessReview.')
  })

  it('leaves pending what the requester may not have approved, or what is outside the signer\'s rules', async () => {
    // A node asking for another node's certificate, and a user without the nodeclient permission.
    await nodeRequest('other-node', 'system:node:n9', { 'impersonate-user': 'system:node:n3', 'impersonate-group': 'system:nodes' }, 'admin')
    await nodeRequest('user', 'system:node:n4', {}, 'alice')
    const wrong = await certificateRequest({ cn: 'system:node:n5', o: ['devs'] })
    await app().request({ as: null, method: 'POST', url, headers: { authorization: `Bearer ${TOKEN}` }, payload: { metadata: { name: 'wrong' }, spec: { request: wrong.b64, signerName: NODE_SIGNER, usages: NODE_USAGES } } })
    // A later request is approved, so the controller has passed over these.
    await nodeRequest('later', 'system:node:n6', { authorization: `Bearer ${TOKEN}` })
    await eventually(async () => {
      const later = await get('later')
      assert.ok(later.status?.conditions, JSON.stringify(later))
    }, 30_000)
    for (const name of ['other-node', 'user', 'wrong']) {
      const c = await get(name)
      assert.ok(!c.status?.conditions?.some((x: { type: string }) => x.type === 'Approved'), name)
    }
  })
})

describe('the request cleaner', () => {
  it('removes finished requests an hour after their last change, pending ones after a day, issued ones once expired', async (t) => {
    let clock = Date.now()
    const api = await buildTestApp(t, { controllers: ['*', '-csrcleaner'], clusterSigning: { certPem: pki.caCertPem, keyPem: pki.caKeyPem } }, {
      beforeReady: (app) => { void app.register(csrCleaner, { now: () => clock }) }
    })
    const req = await certificateRequest({ cn: 'jane' })
    const create = async (name: string, spec: Record<string, unknown> = {}) =>
      (await api.request({ method: 'POST', url, payload: { metadata: { name }, spec: { request: req.b64, signerName: 'example.com/signer', usages: ['client auth'], ...spec } } })).json()
    const condition = async (name: string, type: string) => {
      const got = await create(name)
      const res = await api.request({ method: 'PUT', url: `${url}/${name}/approval`, payload: { ...got, status: { conditions: [{ type, status: 'True' }] } } })
      assert.equal(res.statusCode, 200, res.body)
    }
    await create('pending')
    await condition('approved', 'Approved')
    await condition('denied', 'Denied')
    const issued = await create('issued', { signerName: 'svc.io/svc-apiserver-client', expirationSeconds: 2 * 3600 })
    await api.request({ method: 'PUT', url: `${url}/issued/approval`, payload: { ...issued, status: { conditions: [{ type: 'Approved', status: 'True' }] } } })
    await eventually(async () => assert.ok((await api.request({ method: 'GET', url: `${url}/issued` })).json().status?.certificate))

    const names = async () => (await api.request({ method: 'GET', url })).json().items.map((i: { metadata: { name: string } }) => i.metadata.name).sort()
    /** Moves the clock and pokes the controller with a change (its timer runs on real time). */
    let poke = 0
    const advance = async (ms: number) => {
      clock += ms
      await create(`poke-${++poke}`, { signerName: 'example.com/poke' })
    }
    await advance(59 * 60_000)
    await eventually(async () => assert.deepEqual((await names()).filter((n: string) => !n.startsWith('poke')), ['approved', 'denied', 'issued', 'pending']))
    await advance(2 * 60_000)
    // Past the hour: approved and denied go; the issued one was approved as long ago, so it goes too.
    await eventually(async () => assert.deepEqual((await names()).filter((n: string) => !n.startsWith('poke')), ['pending']))
    await advance(23 * 3_600_000)
    await eventually(async () => assert.ok(!(await names()).includes('pending')))
  })
})
