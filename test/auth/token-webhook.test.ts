import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { ensureCertificates } from '../../auth/pki.js'
import { buildTestApp } from '../helpers/app.js'

interface Review { apiVersion: string, kind: string, spec: { token: string, audiences?: string[] } }

/** A real HTTPS token webhook: "good" is alice-from-webhook, "denied" carries an error, "unknown" none, "boom" is a 500. */
async function startWebhook (t: { after (fn: () => unknown): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const pki = await ensureCertificates(dir)
  const reviews: Review[] = []
  const server: Server = createServer({ cert: pki.servingCertPem, key: pki.servingKeyPem }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString()) as Review
      reviews.push(review)
      const token = review.spec.token
      if (token === 'boom') { res.writeHead(500).end('{}'); return }
      const status = token === 'good'
        ? { authenticated: true, user: { username: 'webhook-user', uid: 'w-1', groups: ['from-webhook'], extra: { team: ['blue'] } } }
        : token === 'denied' ? { authenticated: false, error: 'token revoked upstream' } : { authenticated: false }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise(resolve => server.close(resolve)))
  const configFile = join(dir, 'webhook.kubeconfig')
  writeFileSync(configFile, stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'webhook', cluster: { server: `https://127.0.0.1:${(server.address() as AddressInfo).port}/authenticate`, 'certificate-authority-data': Buffer.from(pki.caCertPem).toString('base64') } }],
    users: [{ name: 'apiserver', user: { 'client-certificate-data': Buffer.from(pki.adminCertPem).toString('base64'), 'client-key-data': Buffer.from(pki.adminKeyPem).toString('base64') } }],
    contexts: [{ name: 'webhook', context: { cluster: 'webhook', user: 'apiserver' } }],
    'current-context': 'webhook'
  }))
  return { configFile, reviews }
}

describe('token webhook', () => {
  it('authenticates through the webhook and caches positive and negative answers for the TTL', async (t) => {
    const hook = await startWebhook(t)
    const { request } = await buildTestApp(t, { tokenWebhook: { configFile: hook.configFile, cacheTtlMs: 1500 } })
    const as = (token: string) => request({ method: 'GET', url: '/api/v1/namespaces', as: null, headers: { authorization: `Bearer ${token}` } })

    for (let i = 0; i < 3; i++) assert.equal((await as('good')).statusCode, 200)
    assert.equal(hook.reviews.length, 1, 'one webhook call for repeated requests within the TTL')
    assert.deepEqual(hook.reviews[0], { apiVersion: 'authentication.svc.io/v1beta1', kind: 'TokenReview', spec: { token: 'good', audiences: ['https://kubernetes.default.svc'] } })

    for (let i = 0; i < 2; i++) {
      const res = await as('unknown')
      assert.equal(res.statusCode, 401)
      assert.deepEqual(res.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 })
    }
    assert.equal(hook.reviews.length, 2, 'negative answers are cached too')

    // A failing webhook is not an answer: each request asks again and is 401.
    assert.equal((await as('boom')).statusCode, 401)
    assert.equal((await as('boom')).statusCode, 401)
    assert.equal(hook.reviews.length, 4)

    // The status error reaches token reviews; the client of a request only sees Unauthorized.
    assert.equal((await as('denied')).statusCode, 401)
    const review = await request({ method: 'POST', url: '/apis/authentication.svc.io/v1/tokenreviews', payload: { apiVersion: 'authentication.svc.io/v1', kind: 'TokenReview', spec: { token: 'denied' } } })
    assert.equal(review.json().status.error, 'token revoked upstream')
    const good = await request({ method: 'POST', url: '/apis/authentication.svc.io/v1/tokenreviews', payload: { apiVersion: 'authentication.svc.io/v1', kind: 'TokenReview', spec: { token: 'good' } } })
    assert.deepEqual(good.json().status.user, { username: 'webhook-user', uid: 'w-1', groups: ['from-webhook', 'system:authenticated'], extra: { team: ['blue'] } })

    await new Promise(resolve => setTimeout(resolve, 1600))
    const calls = hook.reviews.length
    assert.equal((await as('good')).statusCode, 200)
    assert.equal(hook.reviews.length, calls + 1, 'asked again once the TTL has passed')
  })

  it('sends authentication/v1 TokenReviews with --authentication-token-webhook-version=v1', async (t) => {
    const hook = await startWebhook(t)
    const { request } = await buildTestApp(t, { tokenWebhook: { configFile: hook.configFile, version: 'v1' } })
    assert.equal((await request({ method: 'GET', url: '/api/v1/namespaces', as: null, headers: { authorization: 'Bearer good' } })).statusCode, 200)
    assert.equal(hook.reviews[0]!.apiVersion, 'authentication.svc.io/v1')
  })
})
