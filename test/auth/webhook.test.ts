// Webhook mode against a real HTTPS webhook: allowed, denied and no opinion, the version's
// payload, and the answer cache.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:https'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { ensureCertificates, writeKubeconfig } from '../../auth/pki.js'
import { GROUPS } from '../../resources/naming.js'

interface Review { apiVersion: string, kind: string, spec: Record<string, any> }

async function startWebhook (received: Review[]): Promise<{ server: Server, kubeconfig: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'authz-webhook-'))
  const pki = await ensureCertificates(dir)
  const server = createServer({ cert: pki.servingCertPem, key: pki.servingKeyPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review
      received.push(review)
      const user = review.spec.user as string
      const status = user === 'alice' ? { allowed: true, reason: 'alice may' }
        : user === 'bob' ? { allowed: false, denied: true, reason: 'bob is banned' }
          : { allowed: false }
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const kubeconfig = join(dir, 'webhook.kubeconfig')
  writeKubeconfig(kubeconfig, {
    server: `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`,
    caCertPem: pki.caCertPem, clientCertPem: pki.adminCertPem, clientKeyPem: pki.adminKeyPem
  })
  return { server, kubeconfig }
}

for (const version of ['v1beta1', 'v1'] as const) {
  describe(`Webhook mode (${version})`, () => {
    let t: TestApp
    let webhook: { server: Server, kubeconfig: string }
    const received: Review[] = []
    const cleanups: Array<() => unknown> = []
    before(async () => {
      webhook = await startWebhook(received)
      t = await buildTestApp({ after: (fn) => { cleanups.push(fn) } }, {
        authorizationModes: ['Webhook', 'RBAC'],
        authorizationWebhook: { configFile: webhook.kubeconfig, version, authorizedTtlMs: 60_000, unauthorizedTtlMs: 0 }
      })
    })
    after(async () => {
      for (const fn of cleanups.reverse()) await fn()
      webhook.server.closeAllConnections()
      await new Promise(resolve => webhook.server.close(resolve))
    })

    it('allows what the webhook allows, sending a SubjectAccessReview of the configured version', async () => {
      const res = await t.request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps/x', as: 'alice' })
      assert.equal(res.statusCode, 404, 'allowed through to the handler')
      const review = received.at(-1)!
      assert.equal(review.apiVersion, `${GROUPS.authorization}/${version}`)
      assert.equal(review.kind, 'SubjectAccessReview')
      assert.deepEqual(review.spec.resourceAttributes, { namespace: 'default', verb: 'get', group: '', version: 'v1', resource: 'configmaps', subresource: '', name: 'x' })
      assert.deepEqual(review.spec[version === 'v1' ? 'groups' : 'group'], ['developers', 'qa', 'system:authenticated'])
    })

    it('caches an allowed answer', async () => {
      const before = received.length
      await t.request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps/x', as: 'alice' })
      assert.equal(received.length, before)
    })

    it('denies what the webhook denies, before later modes are asked', async () => {
      const res = await t.request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps', as: 'bob' })
      assert.equal(res.statusCode, 403)
      assert.equal(res.json().message, 'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default": bob is banned')
    })

    it('passes to the next mode on no opinion', async () => {
      const res = await t.request({ method: 'GET', url: '/api/v1/namespaces', as: 'admin' })
      assert.equal(res.statusCode, 200, 'RBAC allows system:masters after the webhook had no opinion')
      const nonResource = received.find(r => r.spec.nonResourceAttributes !== undefined && r.spec.user === 'admin')
      assert.equal(nonResource, undefined)
    })

    it('sends non-resource attributes for paths', async () => {
      await t.request({ method: 'GET', url: '/version', as: 'alice' })
      assert.deepEqual(received.at(-1)!.spec.nonResourceAttributes, { path: '/version', verb: 'get' })
    })

    it('makes SelfSubjectRulesReview incomplete, since a webhook cannot list rules', async () => {
      const res = await t.request({ method: 'POST', url: `/apis/${GROUPS.authorization}/v1/selfsubjectrulesreviews`, payload: { spec: { namespace: 'default' } } })
      assert.equal(res.statusCode, 201, res.body)
      assert.equal(res.json().status.incomplete, true)
      assert.match(res.json().status.evaluationError, /Webhook authorizer does not support user rule resolution/)
    })
  })
}
