import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { startWebhook } from '../helpers/token-webhook.js'

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
