// Every answer carries Audit-Id and Cache-Control, as the reference's outermost filters set them:
// successes, refusals before authentication's end, unknown paths, health checks, watch streams
// written past Fastify's reply, over HTTP/1.1 and HTTP/2, with no audit policy configured.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { connect } from 'node:http2'
import { request as httpsRequest } from 'node:https'
import type { IncomingHttpHeaders } from 'node:http'
import { buildTestApp } from '../helpers/app.js'
import { startTestServer } from '../helpers/tls-app.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

function assertAnswerHeaders (headers: IncomingHttpHeaders | Record<string, unknown>, what: string): string {
  assert.match(String(headers['audit-id']), UUID, `${what}: audit-id`)
  assert.equal(headers['cache-control'], 'no-cache, private', `${what}: cache-control`)
  return String(headers['audit-id'])
}

test('answers of every kind carry a fresh Audit-Id and Cache-Control: no-cache, private', async (t) => {
  const { request } = await buildTestApp(t, { authorizationModes: ['RBAC'] })
  const answers = {
    created: await request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: 'c' } } }),
    got: await request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps/c' }),
    missing: await request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps/nope' }),
    unknownPath: await request({ method: 'GET', url: '/no/such/path' }),
    badToken: await request({ method: 'GET', url: '/api/v1/namespaces', headers: { authorization: 'Bearer wrong' }, as: null }),
    forbidden: await request({ method: 'GET', url: '/api/v1/secrets', as: 'bob' }),
    healthz: await request({ method: 'GET', url: '/healthz' }),
    version: await request({ method: 'GET', url: '/version' })
  }
  const expected = { created: 201, got: 200, missing: 404, unknownPath: 404, badToken: 401, forbidden: 403, healthz: 200, version: 200 }
  const ids = new Set<string>()
  for (const [what, res] of Object.entries(answers)) {
    assert.equal(res.statusCode, expected[what as keyof typeof expected], `${what}: ${res.body}`)
    ids.add(assertAnswerHeaders(res.headers, what))
  }
  assert.equal(ids.size, Object.keys(answers).length, 'each request its own audit ID')

  // A client's own Audit-Id comes back unchanged, on a refusal too.
  const given = await request({ method: 'GET', url: '/api/v1/namespaces', headers: { 'audit-id': 'trace-7f3a', authorization: 'Bearer wrong' }, as: null })
  assert.equal(given.statusCode, 401)
  assert.equal(given.headers['audit-id'], 'trace-7f3a')
})

test('watch streams over HTTP/1.1 and HTTP/2 carry them, and kubectl sees the Audit-Id', async (t) => {
  const server = await startTestServer(t)
  const url = new URL(server.url)
  const path = '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1'

  const h1 = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
    const req = httpsRequest({ host: url.hostname, port: url.port, path, ca: server.admin.ca, cert: server.admin.cert, key: server.admin.key }, (res) => {
      assert.equal(res.statusCode, 200)
      res.resume()
      res.on('end', () => { resolve(res.headers) })
    })
    req.on('error', reject)
    req.end()
  })
  assertAnswerHeaders(h1, 'HTTP/1.1 watch')

  const session = connect(server.url, { ca: server.admin.ca, cert: server.admin.cert, key: server.admin.key })
  t.after(() => { session.close() })
  const h2 = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const stream = session.request({ ':path': path })
    let headers: Record<string, unknown> = {}
    stream.on('response', (h) => { headers = h })
    stream.on('error', reject)
    stream.resume()
    stream.on('end', () => { resolve(headers) })
  })
  assert.equal(h2[':status'], 200)
  assertAnswerHeaders(h2, 'HTTP/2 watch')

  if (!hasKubectl()) return t.skip('kubectl is not installed')
  const kubectl = kubectlFor({ kubeconfig: server.kubeconfig, verbosity: 8, home: server.dir })
  const out = await kubectl.run(['get', 'configmaps', '-n', 'default'])
  assert.equal(out.code, 0, out.stderr)
  // kubectl logs each answer's headers at -v=8.
  assert.match(out.stderr, /Audit-Id: [0-9a-f-]{36}/)
  assert.match(out.stderr, /Cache-Control: no-cache, private/)
})
