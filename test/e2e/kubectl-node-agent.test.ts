// kubectl against the server process started with --kubelet-client-certificate, -key and
// --kubelet-certificate-authority, and a fake node agent requiring that certificate: logs (and
// `logs -f`, ended by the agent or by kubectl going away), port-forward to a TCP echo through the
// agent's SPDY (1.27: SPDY; 1.33: SPDY tunnelled in WebSocket), exec over SPDY, nodes/proxy by `get --raw`,
// services/proxy through `kubectl proxy`.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, get as httpGet } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { startEcho, startFakeNodeAgent } from '../helpers/fake-node-agent.js'
import { hostAddress } from '../../controllers/kubernetes-service.js'

const VERSIONS = ['1.27', '1.33'].filter(v => hasKubectl(v))

/** Resolves with the first match of `pattern` in what the child printed on stdout. */
async function printed (child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<RegExpExecArray> {
  return await new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr.on('data', (c: Buffer) => { err += String(c) })
    child.stdout.on('data', (c: Buffer) => {
      out += String(c)
      const m = pattern.exec(out)
      if (m !== null) resolve(m)
    })
    child.once('exit', (code) => { reject(new Error(`kubectl exited ${String(code)} before printing ${String(pattern)}: ${out}${err}`)) })
  })
}

const exited = async (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  child.exitCode !== null ? child.exitCode : await new Promise(resolve => child.once('exit', resolve))

/** Sends `text` through a local port and resolves with what comes back once as many bytes arrived. */
async function roundTrip (port: number, text: string): Promise<string> {
  return await new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let got = ''
    socket.on('data', (c: Buffer) => {
      got += String(c)
      if (got.length >= text.length) { socket.end(); resolve(got) }
    })
    socket.once('error', reject)
    socket.write(text)
  })
}

describe('kubectl and the node agent', { skip: VERSIONS.length > 0 ? false : 'no kubectl is installed' }, () => {
  it('logs, port-forward, nodes/proxy and services/proxy reach the agent and the pod', async (t) => {
    // The reference proxies to no loopback address: the agent and the pod listen on another of this host's.
    const host = hostAddress() ?? '127.0.0.1'
    const agent = await startFakeNodeAgent(t, host)
    const echoPort = await startEcho(t)
    const dir = mkdtempSync(join(tmpdir(), 'kubectl-node-agent-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const file = (name: string, text: string): string => { writeFileSync(join(dir, name), text); return join(dir, name) }
    const server = await startServer(t, [
      '--kubelet-client-certificate', file('client.crt', agent.options.clientCertPem!),
      '--kubelet-client-key', file('client.key', agent.options.clientKeyPem!),
      '--kubelet-certificate-authority', file('agent-ca.crt', agent.options.caPem!)
    ])
    const podHttp = createServer((req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }).end(`pod saw ${req.method ?? ''} ${req.url ?? ''}`) })
    await new Promise<void>(resolve => podHttp.listen(0, host, resolve))
    t.after(() => new Promise<void>(resolve => podHttp.close(() => { resolve() })))
    const podPort = (podHttp.address() as AddressInfo).port
    const manifest = file('objects.yaml', [
      `apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  addresses:\n  - type: InternalIP\n    address: ${host}\n  daemonEndpoints:\n    kubeletEndpoint:\n      Port: ${agent.port}\n`,
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  nodeName: n1\n  containers:\n  - name: main\n    image: nginx:1.27\n    ports:\n    - containerPort: ${echoPort}\n`,
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: front\nspec:\n  ports:\n  - name: http\n    port: 80\n    targetPort: ${podPort}\n`,
      `apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: front\nsubsets:\n- addresses:\n  - ip: ${host}\n    targetRef:\n      kind: Pod\n      namespace: default\n      name: web\n  ports:\n  - name: http\n    port: ${podPort}\n`
    ].join('---\n'))
    const admin = kubectlFor({ kubeconfig: server.kubeconfig, version: VERSIONS.at(-1)! })
    await admin.check(['apply', '-f', manifest])
    await admin.check(['patch', 'pod', 'web', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase: 'Running', podIP: host, podIPs: [{ ip: host }] } })])
    agent.logs.set('default/web/main', 'starting\nlistening on 80\nready\n')

    let followsLeft = 0
    for (const version of VERSIONS) {
      const kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version })
      assert.equal(await kubectl.ok(['logs', 'web']), 'starting\nlistening on 80\nready\n', version)
      assert.equal(await kubectl.ok(['logs', 'web', '--tail=1']), 'ready\n', version)
      const missing = await kubectl.run(['logs', 'web', '-c', 'sidecar'])
      assert.notEqual(missing.code, 0)
      assert.match(missing.stderr, /container sidecar is not valid for pod web/, version)

      // `logs -f` streams until the container's log ends...
      const follow = kubectl.spawn(['logs', '-f', 'web'])
      await printed(follow, /ready\n/)
      agent.endFollows()
      assert.equal(await exited(follow), 0, `${version}: logs -f ends with the log`)
      // ...or until kubectl goes away, which ends the server's request to the agent.
      const leaving = kubectl.spawn(['logs', '-f', 'web'])
      await printed(leaving, /ready\n/)
      leaving.kill()
      await agent.followsClosedReach(++followsLeft)

      const forward = kubectl.spawn(['port-forward', 'pod/web', `:${echoPort}`])
      const [, local] = await printed(forward, /Forwarding from 127\.0\.0\.1:(\d+) ->/)
      assert.equal(await roundTrip(Number(local), 'ping through the agent'), 'ping through the agent', version)
      assert.equal(await roundTrip(Number(local), 'and again'), 'and again', version)
      forward.kill()
      await exited(forward)
      const forwarded = agent.requests.filter(r => r.url.startsWith('/portForward/default/web')).splice(0)
      agent.requests.length = 0
      // One SPDY connection per kubectl: 1.33's WebSocket tunnel was unwrapped here, not refused and retried.
      assert.equal(forwarded.length, 1, `${version}: ${JSON.stringify(forwarded.map(r => r.headers))}`)
      assert.equal(forwarded[0]!.clientCN, 'admin', 'port-forward reached the agent with the client certificate')
      assert.equal(forwarded[0]!.headers.upgrade, 'SPDY/3.1')

      // exec: 1.33 asks for WebSocket first; this agent speaks SPDY only, so kubectl falls back.
      assert.equal(await kubectl.ok(['exec', 'web', '--', 'echo', 'hello', 'there']), 'hello there\n', version)
      const failed = await kubectl.run(['exec', 'web', '--', 'ls'])
      assert.equal(failed.code, 127, `${version}: ${failed.stderr}`)

      if (host !== '127.0.0.1') {
        const raw = JSON.parse(await kubectl.ok(['get', '--raw', '/api/v1/nodes/n1/proxy/healthz?verbose=1']))
        assert.deepEqual(raw, { method: 'GET', path: '/healthz', query: '?verbose=1', body: '', clientCN: 'admin' }, version)
      }
    }

    if (host !== '127.0.0.1') {
      const proxy = admin.spawn(['proxy', '--port=0'])
      t.after(() => { proxy.kill() })
      const [, port] = await printed(proxy, /Starting to serve on 127\.0\.0\.1:(\d+)/)
      const body = await new Promise<string>((resolve, reject) => {
        httpGet(`http://127.0.0.1:${port}/api/v1/namespaces/default/services/front:http/proxy/hello?x=1`, (res) => {
          let text = ''
          res.on('data', (c: Buffer) => { text += String(c) })
          res.on('end', () => { resolve(`${res.statusCode ?? 0} ${text}`) })
        }).once('error', reject)
      })
      assert.equal(body, '200 pod saw GET /hello?x=1')
    }
  })
})
