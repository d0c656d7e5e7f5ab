// The pods' CONNECT subresources (exec, attach, portforward) through the generic REST layer:
// admission sees operation CONNECT with the options object; the stream is located as the
// reference server locates it and answered as it answers when it cannot reach the node agent (a
// port nothing listens on);
// DenyEscalatingExec and DenyExecOnPrivileged refuse exec and attach into escalating pods.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'
import { allow, startAdmissionWebhook } from '../helpers/admission-webhook.js'
import { closedPort } from '../helpers/fake-node-agent.js'
import { GROUPS } from '../../resources/naming.js'

const pods = '/api/v1/namespaces/default/pods'
const SPDY = { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io' }
const WEBSOCKET = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-protocol': 'v5.channel.k8s.io' }

type App = Awaited<ReturnType<typeof buildTestApp>>

async function podOn (app: App, name: string, spec: Record<string, unknown>): Promise<void> {
  const res = await app.request({ method: 'POST', url: pods, payload: { metadata: { name }, spec: { containers: [{ name: 'main', image: 'nginx:1.27' }], ...spec } } })
  assert.equal(res.statusCode, 201, res.body)
}

async function node (app: App, name: string, status: Record<string, unknown> = {}): Promise<void> {
  const res = await app.request({ method: 'POST', url: '/api/v1/nodes', payload: { metadata: { name }, status } })
  assert.equal(res.statusCode, 201, res.body)
}

const exec = (app: App, pod: string, query = 'command=date&stdout=true&stderr=true', method: 'POST' | 'GET' = 'POST', headers: Record<string, string> = method === 'POST' ? SPDY : WEBSOCKET) =>
  app.request({ method, url: `${pods}/${pod}/exec?${query}`, headers })

describe('pods/exec, pods/attach and pods/portforward', () => {
  it('locate the stream and answer as the reference server does when it cannot dial the node agent', async (t) => {
    const app = await buildTestApp(t)
    await podOn(app, 'pending', {})
    const pending = await exec(app, 'pending')
    assert.equal(pending.statusCode, 400, pending.body)
    assert.equal(pending.json().message, 'pod pending does not have a host assigned')
    await podOn(app, 'lost', { nodeName: 'gone' })
    const lost = await exec(app, 'lost')
    assert.equal(lost.statusCode, 404, lost.body)
    assert.equal(lost.json().message, 'nodes "gone" not found')
    await node(app, 'bare')
    await podOn(app, 'on-bare', { nodeName: 'bare' })
    const bare = await exec(app, 'on-bare')
    assert.equal(bare.statusCode, 500, bare.body)
    assert.equal(bare.json().message, 'no preferred addresses found; known addresses: []')
    const port = await closedPort()
    const refused = `error dialing backend: dial tcp 127.0.0.1:${port}: connect: connection refused`
    await node(app, 'n1', { addresses: [{ type: 'ExternalIP', address: '203.0.113.9' }, { type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } })
    await podOn(app, 'web', { nodeName: 'n1' })
    for (const [method, headers] of [['POST', SPDY], ['GET', WEBSOCKET]] as const) {
      const res = await exec(app, 'web', 'command=date&stdout=1', method, headers)
      assert.equal(res.statusCode, 500, res.body)
      assert.equal(res.json().reason, undefined)
      assert.equal(res.json().message, refused)
    }
    const plain = await exec(app, 'web', 'command=date', 'POST', {})
    assert.equal(plain.statusCode, 400, plain.body)
    assert.equal(plain.json().message, 'Upgrade request required')
    const attach = await app.request({ method: 'POST', url: `${pods}/web/attach?stdin=true&tty=true`, headers: SPDY })
    assert.equal(attach.json().message, refused)
    const forward = await app.request({ method: 'POST', url: `${pods}/web/portforward?ports=8080`, headers: SPDY })
    assert.equal(forward.json().message, refused)
    const badPorts = await app.request({ method: 'POST', url: `${pods}/web/portforward?ports=http`, headers: SPDY })
    assert.equal(badPorts.statusCode, 400, badPorts.body)
  })

  it('choose the container as the reference server does', async (t) => {
    const app = await buildTestApp(t)
    const port = await closedPort()
    await node(app, 'n1', { addresses: [{ type: 'InternalIP', address: '203.0.113.9' }, { type: 'Hostname', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } })
    await podOn(app, 'two', { nodeName: 'n1', initContainers: [{ name: 'init', image: 'busybox:1.36' }], containers: [{ name: 'a', image: 'nginx:1.27' }, { name: 'b', image: 'nginx:1.27' }] })
    const unnamed = await exec(app, 'two')
    assert.equal(unnamed.statusCode, 400, unnamed.body)
    assert.equal(unnamed.json().message, 'a container name must be specified for pod two, choose one of: [init a b]')
    const wrong = await exec(app, 'two', 'container=c&command=ls')
    assert.equal(wrong.statusCode, 400, wrong.body)
    assert.equal(wrong.json().message, 'container c is not valid for pod two')
    const named = await exec(app, 'two', 'container=b&command=ls')
    assert.equal(named.json().message, `error dialing backend: dial tcp 127.0.0.1:${port}: connect: connection refused`)
    const missing = await exec(app, 'nope')
    assert.equal(missing.statusCode, 404, missing.body)
    assert.equal(missing.json().message, 'pods "nope" not found')
  })

  it('are served only as GET and POST on a named pod, and listed in discovery as create and get', async (t) => {
    const app = await buildTestApp(t)
    await podOn(app, 'web', {})
    const put = await app.request({ method: 'PUT', url: `${pods}/web/exec`, payload: {} })
    assert.equal(put.statusCode, 405, put.body)
    const discovery = await app.request({ method: 'GET', url: '/api/v1' })
    const entry = discovery.json().resources.find((r: { name: string }) => r.name === 'pods/exec')
    assert.deepEqual(entry.verbs, ['create', 'get'])
    assert.equal(entry.kind, 'PodExecOptions')
  })

  it('show admission the CONNECT operation with the options object', async (t) => {
    const app = await buildTestApp(t)
    const hooks = await startAdmissionWebhook(t)
    hooks.handle('/exec', () => allow())
    const configured = await app.request({
      method: 'POST',
      url: `/apis/${GROUPS.admissionregistration}/v1/validatingwebhookconfigurations`,
      payload: {
        metadata: { name: 'exec-audit' },
        webhooks: [{
          name: 'exec.hooks.example.com',
          clientConfig: { url: `${hooks.base}/exec`, caBundle: hooks.caBundle },
          rules: [{ operations: ['CONNECT'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/exec'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1']
        }]
      }
    })
    assert.equal(configured.statusCode, 201, configured.body)
    await podOn(app, 'web', {})
    const res = await exec(app, 'web', 'command=ls&command=-l&container=main&stdin=false&stdout=true&tty=1')
    assert.equal(res.statusCode, 400, res.body)
    const [call] = hooks.on('/exec')
    assert.ok(call !== undefined, 'the webhook was called')
    const request = call.review.request
    assert.equal(request.operation, 'CONNECT')
    assert.equal(request.subResource, 'exec')
    assert.equal(request.name, 'web')
    assert.deepEqual(request.object, { kind: 'PodExecOptions', apiVersion: 'v1', stdout: true, tty: true, container: 'main', command: ['ls', '-l'] })
  })
})

describe('DenyExecOnPrivileged and DenyEscalatingExec', () => {
  const specs = {
    privileged: { nodeName: 'n1', initContainers: [{ name: 'setup', image: 'busybox:1.36', securityContext: { privileged: true } }] },
    hostpid: { nodeName: 'n1', hostPID: true },
    hostipc: { nodeName: 'n1', hostIPC: true },
    hostnet: { nodeName: 'n1', hostNetwork: true },
    plain: { nodeName: 'n1', containers: [{ name: 'main', image: 'nginx:1.27', securityContext: { privileged: false } }] }
  }
  const setup = async (t: Parameters<typeof buildTestApp>[0], enable: string[]): Promise<App> => {
    const app = await buildTestApp(t, { admission: { enable } })
    await node(app, 'n1', { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: await closedPort() } } })
    for (const [name, spec] of Object.entries(specs)) await podOn(app, name, spec)
    return app
  }

  it('DenyExecOnPrivileged refuses exec and attach into a privileged pod only', async (t) => {
    const app = await setup(t, ['DenyExecOnPrivileged'])
    for (const sub of ['exec', 'attach']) {
      const res = await app.request({ method: 'POST', url: `${pods}/privileged/${sub}?stdout=true`, headers: SPDY })
      assert.equal(res.statusCode, 403, res.body)
      assert.equal(res.json().reason, 'Forbidden')
      assert.equal(res.json().message, 'pods "privileged" is forbidden: cannot exec into or attach to a privileged container')
    }
    for (const name of ['hostpid', 'hostipc', 'hostnet', 'plain']) assert.equal((await exec(app, name)).statusCode, 500, name)
    // Port forwarding is not guarded.
    const forward = await app.request({ method: 'POST', url: `${pods}/privileged/portforward?ports=80`, headers: SPDY })
    assert.equal(forward.statusCode, 500, forward.body)
  })

  it('DenyEscalatingExec also refuses pods sharing the host\'s network, PID or IPC namespace', async (t) => {
    const app = await setup(t, ['DenyEscalatingExec'])
    const expected: Record<string, string> = {
      privileged: 'cannot exec into or attach to a privileged container',
      hostpid: 'cannot exec into or attach to a container using host pid',
      hostipc: 'cannot exec into or attach to a container using host ipc',
      hostnet: 'cannot exec into or attach to a container using host network'
    }
    for (const [name, why] of Object.entries(expected)) {
      const res = await exec(app, name, 'command=sh', 'GET', WEBSOCKET)
      assert.equal(res.statusCode, 403, res.body)
      assert.equal(res.json().message, `pods "${name}" is forbidden: ${why}`)
    }
    assert.equal((await exec(app, 'plain')).statusCode, 500)
    const missing = await exec(app, 'nope')
    assert.equal(missing.statusCode, 403, missing.body)
    assert.equal(missing.json().message, 'pods "nope" is forbidden: pods "nope" not found')
  })

  it('are off by default', async (t) => {
    const app = await setup(t, [])
    assert.equal((await exec(app, 'privileged')).statusCode, 500)
  })
})
