// pods/log and the proxy subresources (nodes/, pods/, services/proxy) against a fake node agent
// over TLS with the server's client certificate: options parsed and validated as the
// reference's PodLogOptions, the reference's answers when there is nothing to reach, the
// subresource verbs authorized, admission CONNECT for the proxies.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { closedPort, startFakeNodeAgent, type FakeNodeAgent } from '../helpers/fake-node-agent.js'
import { allow, startAdmissionWebhook } from '../helpers/admission-webhook.js'
import { hostAddress } from '../../controllers/kubernetes-service.js'
import { GROUPS } from '../../resources/naming.js'

const pods = '/api/v1/namespaces/default/pods'

async function created (app: TestApp, url: string, payload: Record<string, unknown>): Promise<void> {
  const res = await app.request({ method: 'POST', url, payload })
  assert.equal(res.statusCode, 201, res.body)
}

async function nodeAt (app: TestApp, name: string, address: string, port: number): Promise<void> {
  await created(app, '/api/v1/nodes', { metadata: { name }, status: { addresses: [{ type: 'InternalIP', address }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } })
}

async function podOn (app: TestApp, name: string, nodeName: string | undefined, containers = [{ name: 'main', image: 'nginx:1.27' }]): Promise<void> {
  await created(app, pods, { metadata: { name, labels: { app: name } }, spec: { containers, ...(nodeName === undefined ? {} : { nodeName }) } })
}

async function withAgent (t: Parameters<typeof buildTestApp>[0], host = '127.0.0.1', opts: Parameters<typeof buildTestApp>[1] = {}): Promise<{ app: TestApp, agent: FakeNodeAgent }> {
  const agent = await startFakeNodeAgent(t, host)
  const app = await buildTestApp(t, { nodeAgent: agent.options, ...opts })
  await nodeAt(app, 'n1', host, agent.port)
  return { app, agent }
}

describe('pods/log', () => {
  it('reads the container log from the node agent with the client certificate, the options as its query', async (t) => {
    const { app, agent } = await withAgent(t)
    await podOn(app, 'web', 'n1')
    agent.logs.set('default/web/main', 'one\ntwo\nthree\n')
    const all = await app.request({ method: 'GET', url: `${pods}/web/log` })
    assert.equal(all.statusCode, 200, all.body)
    assert.equal(all.headers['content-type'], 'text/plain')
    assert.equal(all.body, 'one\ntwo\nthree\n')
    const tail = await app.request({ method: 'GET', url: `${pods}/web/log?tailLines=1&timestamps=true&limitBytes=100&sinceTime=2024-05-01T10:00:00.5Z&container=main` })
    assert.equal(tail.body, 'three\n')
    const last = agent.requests.at(-1)!
    assert.equal(last.url, '/containerLogs/default/web/main?limitBytes=100&sinceTime=2024-05-01T10%3A00%3A00Z&tailLines=1&timestamps=true')
    assert.equal(last.clientCN, 'admin')
  })

  it('validates PodLogOptions as the reference does', async (t) => {
    const { app } = await withAgent(t)
    await podOn(app, 'web', 'n1')
    const cases: Array<[string, number, string]> = [
      ['tailLines=-1', 422, 'PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'],
      ['limitBytes=0', 422, 'PodLogOptions "web" is invalid: limitBytes: Invalid value: 0: must be greater than 0'],
      ['sinceSeconds=0', 422, 'PodLogOptions "web" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'],
      ['sinceSeconds=5&sinceTime=2024-05-01T10:00:00Z', 422, 'PodLogOptions "web" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified'],
      ['tailLines=ten', 400, 'strconv.ParseInt: parsing "ten": invalid syntax'],
      ['sinceTime=yesterday', 400, 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
      ['container=sidecar', 400, 'container sidecar is not valid for pod web']
    ]
    for (const [query, code, message] of cases) {
      const res = await app.request({ method: 'GET', url: `${pods}/web/log?${query}` })
      assert.equal(res.statusCode, code, `${query}: ${res.body}`)
      assert.equal(res.json().message, message, query)
    }
  })

  it('answers as the reference when there is no node, no such log, or no agent to reach', async (t) => {
    const { app } = await withAgent(t)
    await podOn(app, 'pending', undefined)
    const pending = await app.request({ method: 'GET', url: `${pods}/pending/log` })
    assert.equal(pending.statusCode, 200, pending.body)
    assert.equal(pending.body, '')
    await podOn(app, 'quiet', 'n1')
    const missing = await app.request({ method: 'GET', url: `${pods}/quiet/log` })
    assert.equal(missing.statusCode, 404, missing.body)
    assert.equal(missing.json().reason, 'NotFound')
    assert.equal(missing.json().message, 'the server could not find the requested resource ( pods/log quiet)')
    const port = await closedPort()
    await nodeAt(app, 'down', '127.0.0.1', port)
    await podOn(app, 'stranded', 'down')
    const down = await app.request({ method: 'GET', url: `${pods}/stranded/log?follow=true` })
    assert.equal(down.statusCode, 500, down.body)
    assert.equal(down.json().message, `Get "https://127.0.0.1:${port}/containerLogs/default/stranded/main?follow=true": dial tcp 127.0.0.1:${port}: connect: connection refused`)
    const two = await app.request({ method: 'POST', url: pods, payload: { metadata: { name: 'two' }, spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x' }] } } })
    assert.equal(two.statusCode, 201)
    const unnamed = await app.request({ method: 'GET', url: `${pods}/two/log` })
    assert.equal(unnamed.statusCode, 400)
    assert.equal(unnamed.json().message, 'a container name must be specified for pod two, choose one of: [a b]')
    const post = await app.request({ method: 'POST', url: `${pods}/two/log` })
    assert.equal(post.statusCode, 405, post.body)
  })

  it('is authorized as get pods/log, not as get pods', async (t) => {
    const { app, agent } = await withAgent(t, '127.0.0.1', { authorizationModes: ['RBAC'] })
    await podOn(app, 'web', 'n1')
    agent.logs.set('default/web/main', 'hello\n')
    await created(app, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { metadata: { name: 'readers' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] })
    await created(app, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { metadata: { name: 'readers' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'readers' }, subjects: [{ kind: 'User', name: 'bob' }] })
    assert.equal((await app.request({ method: 'GET', url: `${pods}/web`, as: 'bob' })).statusCode, 200)
    const refused = await app.request({ method: 'GET', url: `${pods}/web/log`, as: 'bob' })
    assert.equal(refused.statusCode, 403, refused.body)
    assert.equal(refused.json().message, 'pods "web" is forbidden: User "bob" cannot get resource "pods/log" in API group "" in the namespace "default"')
    await created(app, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { metadata: { name: 'loggers' }, rules: [{ apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }] })
    await created(app, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', { metadata: { name: 'loggers' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'loggers' }, subjects: [{ kind: 'User', name: 'bob' }] })
    const allowed = await app.request({ method: 'GET', url: `${pods}/web/log`, as: 'bob' })
    assert.equal(allowed.statusCode, 200, allowed.body)
    assert.equal(allowed.body, 'hello\n')
    const proxy = await app.request({ method: 'POST', url: `${pods}/web/proxy/x`, as: 'bob' })
    assert.equal(proxy.statusCode, 403, proxy.body)
    assert.match(proxy.json().message, /cannot create resource "pods\/proxy"/)
  })
})

/** A plain HTTP server on `host`, as a pod's port: it answers with what it got. */
async function podServer (t: { after (fn: () => unknown): void }, host: string): Promise<number> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      res.writeHead(req.url === '/teapot' ? 418 : 200, { 'content-type': 'application/json', 'x-pod': 'yes' })
      res.end(JSON.stringify({ method: req.method, url: req.url, body: Buffer.concat(chunks).toString(), authorization: req.headers.authorization ?? null, forwardedFor: req.headers['x-forwarded-for'] ?? null }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, host, resolve))
  t.after(() => new Promise<void>(resolve => server.close(() => { resolve() })))
  return (server.address() as AddressInfo).port
}

// The reference proxies to no loopback address: these need one of this host's other addresses.
const host = hostAddress()
const needsHost = host === undefined ? 'this host has no address but loopback' : false

describe('the proxy subresources', { skip: needsHost }, () => {
  it('nodes/proxy passes every method and the path to the node agent with the client certificate', async (t) => {
    const { app, agent } = await withAgent(t, host!)
    const get = await app.request({ method: 'GET', url: '/api/v1/nodes/n1/proxy/configz?a=1' })
    assert.equal(get.statusCode, 200, get.body)
    assert.equal(get.headers['x-agent'], 'fake')
    assert.deepEqual(get.json(), { method: 'GET', path: '/configz', query: '?a=1', body: '', clientCN: 'admin' })
    assert.equal(agent.requests.at(-1)!.headers.authorization, undefined, 'the caller\'s credentials stay here')
    const put = await app.request({ method: 'PUT', url: '/api/v1/nodes/n1/proxy/dir/', payload: 'data', headers: { 'content-type': 'text/plain' } })
    assert.deepEqual(put.json(), { method: 'PUT', path: '/dir/', query: '', body: 'data', clientCN: 'admin' })
    const named = await app.request({ method: 'DELETE', url: `/api/v1/nodes/https:n1:${agent.port}/proxy/x` })
    assert.equal(named.json().path, '/x')
    const redirect = await app.request({ method: 'GET', url: '/api/v1/nodes/n1/proxy?b=2' })
    assert.equal(redirect.statusCode, 301)
    assert.equal(redirect.headers.location, '/api/v1/nodes/n1/proxy/?b=2')
    const bad = await app.request({ method: 'GET', url: '/api/v1/nodes/ftp:n1:1/proxy/' })
    assert.equal(bad.statusCode, 400)
    assert.equal(bad.json().message, 'invalid node request "ftp:n1:1"')
    const port = await closedPort()
    const refused = await app.request({ method: 'GET', url: `/api/v1/nodes/n1:${port}/proxy/` })
    assert.equal(refused.statusCode, 503, refused.body)
    assert.equal(refused.json().message, `error trying to reach service: dial tcp ${host!}:${port}: connect: connection refused`)
    await nodeAt(app, 'local', '127.0.0.1', agent.port)
    const loopback = await app.request({ method: 'GET', url: '/api/v1/nodes/local/proxy/' })
    assert.equal(loopback.statusCode, 400)
    assert.equal(loopback.json().message, 'address not allowed')
  })

  it('pods/proxy dials the pod IP at the port named or its first container port', async (t) => {
    const { app } = await withAgent(t, host!)
    const port = await podServer(t, host!)
    await podOn(app, 'web', 'n1', [{ name: 'main', image: 'nginx:1.27', ports: [{ containerPort: port }] } as never])
    const noIP = await app.request({ method: 'GET', url: `${pods}/web/proxy/` })
    assert.equal(noIP.statusCode, 400)
    assert.equal(noIP.json().message, 'address not allowed')
    const status = await app.request({ method: 'PATCH', url: `${pods}/web/status`, payload: { status: { podIP: host, podIPs: [{ ip: host }] } }, headers: { 'content-type': 'application/merge-patch+json' } })
    assert.equal(status.statusCode, 200, status.body)
    const first = await app.request({ method: 'POST', url: `${pods}/web/proxy/api/items?x=1`, payload: '{"a":1}', headers: { 'content-type': 'application/json' } })
    assert.equal(first.statusCode, 200, first.body)
    assert.equal(first.headers['x-pod'], 'yes')
    const seen = first.json()
    assert.equal(seen.method, 'POST')
    assert.equal(seen.url, '/api/items?x=1')
    assert.equal(seen.body, '{"a":1}')
    assert.equal(seen.authorization, null)
    assert.ok(seen.forwardedFor !== null)
    const teapot = await app.request({ method: 'GET', url: `${pods}/http:web:${port}/proxy/teapot` })
    assert.equal(teapot.statusCode, 418, 'the pod\'s status is passed through')
  })

  it('services/proxy dials a ready endpoint of the port named', async (t) => {
    const { app } = await withAgent(t, host!)
    const port = await podServer(t, host!)
    await podOn(app, 'web', 'n1')
    await app.request({ method: 'PATCH', url: `${pods}/web/status`, payload: { status: { podIP: host, podIPs: [{ ip: host }] } }, headers: { 'content-type': 'application/merge-patch+json' } })
    await created(app, '/api/v1/namespaces/default/services', { metadata: { name: 'front' }, spec: { ports: [{ name: 'http', port: 80, targetPort: port }] } })
    const none = await app.request({ method: 'GET', url: '/api/v1/namespaces/default/services/front:http/proxy/' })
    assert.equal(none.statusCode, 404, none.body)
    await created(app, '/api/v1/namespaces/default/endpoints', { metadata: { name: 'front' }, subsets: [{ addresses: [{ ip: host, targetRef: { kind: 'Pod', namespace: 'default', name: 'web' } }], ports: [{ name: 'http', port }] }] })
    const byName = await app.request({ method: 'GET', url: '/api/v1/namespaces/default/services/front:http/proxy/hello' })
    assert.equal(byName.statusCode, 200, byName.body)
    assert.equal(byName.json().url, '/hello')
    const byNumber = await app.request({ method: 'GET', url: '/api/v1/namespaces/default/services/http:front:80/proxy/hello/' })
    assert.equal(byNumber.json().url, '/hello/')
    const wrongPort = await app.request({ method: 'GET', url: '/api/v1/namespaces/default/services/front:81/proxy/' })
    assert.equal(wrongPort.statusCode, 503)
    assert.equal(wrongPort.json().message, 'no service port 81 found for service "front"')
    const unnamed = await app.request({ method: 'GET', url: '/api/v1/namespaces/default/services/front/proxy/' })
    assert.equal(unnamed.statusCode, 503)
    assert.equal(unnamed.json().message, 'no endpoints available for service "front"')
  })
})

describe('admission of the stream subresources', () => {
  it('sees the proxies as CONNECT with their options kinds and path; a log read is no CONNECT', async (t) => {
    const { app, agent } = await withAgent(t)
    const hooks = await startAdmissionWebhook(t)
    hooks.handle('/streams', () => allow())
    await created(app, `/apis/${GROUPS.admissionregistration}/v1/validatingwebhookconfigurations`, {
      metadata: { name: 'streams' },
      webhooks: [{
        name: 'streams.hooks.example.com',
        clientConfig: { url: `${hooks.base}/streams`, caBundle: hooks.caBundle },
        rules: [{ operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/*', 'nodes/proxy', 'services/proxy'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1']
      }]
    })
    await podOn(app, 'web', 'n1')
    agent.logs.set('default/web/main', 'x\n')
    assert.equal((await app.request({ method: 'GET', url: `${pods}/web/log` })).statusCode, 200)
    assert.equal(hooks.on('/streams').length, 0, 'a log read is not admitted')
    // Refused for its loopback address after admission, as the reference orders it.
    const nodeProxy = await app.request({ method: 'PUT', url: '/api/v1/nodes/n1/proxy/a/b/', payload: 'x', headers: { 'content-type': 'text/plain' } })
    assert.equal(nodeProxy.statusCode, 400, nodeProxy.body)
    await app.request({ method: 'GET', url: `${pods}/web:8080/proxy/metrics` })
    const [node, pod] = hooks.on('/streams').map(c => c.review.request)
    assert.equal(node.operation, 'CONNECT')
    assert.equal(node.subResource, 'proxy')
    assert.equal(node.name, 'n1')
    assert.deepEqual(node.object, { kind: 'NodeProxyOptions', apiVersion: 'v1', path: '/a/b/' })
    assert.equal(pod.name, 'web:8080')
    assert.deepEqual(pod.object, { kind: 'PodProxyOptions', apiVersion: 'v1', path: '/metrics' })
  })
})
