// The real server process with ImagePolicyWebhook and EventRateLimit on, configured as an
// operator would: kubectl apply of a pod the image policy backend (real HTTPS, its own CA)
// refuses shows why, an allowed one runs; an event storm is cut off with 429 and Retry-After;
// a bad EventRateLimit configuration stops start-up naming its file.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { hasKubectl, kubectlBinary, kubectlFor } from '../helpers/kubectl.js'
import { runServer, startServer, type RunningServer } from '../helpers/server.js'
import { freshDatabase } from '../helpers/postgres.js'
import { startImagePolicyBackend } from '../helpers/image-policy-backend.js'

const KUBECTL = '1.31'
type AnyObject = Record<string, any>

const kubectl = (config: string, ...args: string[]) => kubectlFor({ kubeconfig: config, version: KUBECTL }).run(args)

/** One POST as the admin: status, Retry-After and the parsed body. */
const post = (server: RunningServer, path: string, body: AnyObject): Promise<{ status: number, retryAfter?: string, body: AnyObject }> => new Promise((resolve, reject) => {
  const payload = JSON.stringify(body)
  const req = request(`${server.server}${path}`, {
    method: 'POST', ca: server.caPem, cert: server.clientCertPem, key: server.clientKeyPem,
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }
  }, (res) => {
    const chunks: Buffer[] = []
    res.on('data', (c: Buffer) => chunks.push(c))
    res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body: JSON.parse(Buffer.concat(chunks).toString()) }))
  })
  req.on('error', reject)
  req.end(payload)
})

const scratch = (t: { after (fn: () => unknown): void }): string => {
  const dir = mkdtempSync(join(tmpdir(), 'image-policy-e2e-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

describe('ImagePolicyWebhook and EventRateLimit with kubectl', { skip: hasKubectl(KUBECTL) ? false : `${kubectlBinary(KUBECTL)} is not installed` }, () => {
  it('kubectl apply of a pod the backend refuses says why; an event storm is rate-limited', async (t) => {
    const backend = await startImagePolicyBackend(t)
    backend.handle((review) => review.spec.containers.some((c: AnyObject) => String(c.image).startsWith('registry.untrusted.example/'))
      ? { allowed: false, reason: 'registry.untrusted.example is not an approved registry' }
      : { allowed: true })
    const dir = scratch(t)
    backend.writeKubeconfig(join(dir, 'image-policy.kubeconfig'))
    writeFileSync(join(dir, 'image-policy.yaml'), stringify({ imagePolicy: { kubeConfigFile: 'image-policy.kubeconfig', allowTTL: 50, denyTTL: 50, retryBackoff: 500, defaultAllow: false } }))
    writeFileSync(join(dir, 'admission.yaml'), stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [
        { name: 'ImagePolicyWebhook', path: 'image-policy.yaml' },
        { name: 'EventRateLimit', configuration: { apiVersion: 'eventratelimit.admission.svc.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'Namespace', qps: 1, burst: 5 }] } }
      ]
    }))
    const server = await startServer(t, [
      '--enable-admission-plugins', 'ImagePolicyWebhook,EventRateLimit',
      '--admission-control-config-file', join(dir, 'admission.yaml'),
      '--runtime-config', 'imagepolicy.svc.io/v1alpha1=true'
    ])

    const manifest = (name: string, image: string): string => {
      const file = join(dir, `${name}.yaml`)
      writeFileSync(file, stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations: { 'ticket.image-policy.svc.io/change': 'CHG-42' } }, spec: { containers: [{ name: 'app', image }] } }))
      return file
    }
    const refused = await kubectl(server.kubeconfig, 'apply', '-f', manifest('miner', 'registry.untrusted.example/miner:1'))
    assert.notEqual(refused.code, 0)
    assert.match(refused.stderr, /Error from server \(Forbidden\): error when creating ".*miner\.yaml": pods "miner" is forbidden: image policy webhook backend denied one or more images: registry\.untrusted\.example is not an approved registry/)
    assert.equal((await kubectl(server.kubeconfig, 'get', 'pod', 'miner')).code, 1)

    const applied = await kubectl(server.kubeconfig, 'apply', '-f', manifest('web', 'nginx:1.27'))
    assert.equal(applied.code, 0, applied.stderr)
    assert.match(applied.stdout, /pod\/web created/)
    const review = backend.received.find(r => r.review.spec.containers[0].image === 'nginx:1.27')!.review
    assert.deepEqual(review.spec, { containers: [{ image: 'nginx:1.27' }], annotations: { 'ticket.image-policy.svc.io/change': 'CHG-42' }, namespace: 'default' })

    // Forty events at once into one namespace: five from the burst (and one a second after),
    // the rest refused until the bucket refills.
    const storm = await Promise.all(Array.from({ length: 40 }, (_, i) => post(server, '/api/v1/namespaces/default/events', {
      metadata: { name: `storm-${i}` }, involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' }, reason: 'BackOff', message: 'restarting', type: 'Warning'
    })))
    const created = storm.filter(r => r.status === 201).length
    const limited = storm.filter(r => r.status === 429)
    assert.equal(created + limited.length, 40, JSON.stringify(storm.filter(r => r.status !== 201 && r.status !== 429)))
    assert.ok(created >= 5, `${created} created`)
    assert.ok(limited.length > 0, 'some events are refused')
    assert.equal(limited[0]!.retryAfter, '1')
    assert.equal(limited[0]!.body.reason, 'TooManyRequests')
    assert.equal(limited[0]!.body.message, 'Too many requests: limit reached on type Namespace for key default')
    const listed = await kubectl(server.kubeconfig, 'get', 'events', '-o', 'name')
    assert.equal(listed.stdout.trim().split('\n').filter(l => l.includes('storm-')).length, created)
  })

  it('a bad EventRateLimit configuration stops the server at start, naming the file', async (t) => {
    const dir = scratch(t)
    writeFileSync(join(dir, 'event-rate-limit.yaml'), stringify({ apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits: [{ type: 'Cluster', qps: 5, burst: 10 }] }))
    writeFileSync(join(dir, 'admission.yaml'), stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'EventRateLimit', path: 'event-rate-limit.yaml' }] }))
    const child = runServer(['--data-dir', join(dir, 'data'), '--storage-url', await freshDatabase(t), '--enable-admission-plugins', 'EventRateLimit', '--admission-control-config-file', join(dir, 'admission.yaml')])
    let stderr = ''
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString() })
    const code = await new Promise<number | null>(resolve => child.once('exit', resolve))
    assert.equal(code, 1)
    assert.match(stderr, new RegExp(`--admission-control-config-file ${join(dir, 'event-rate-limit.yaml').replace(/[.]/g, '\\.')}: EventRateLimit: limits\\[0\\]\\.type: Unsupported value: "Cluster": supported values: "Namespace", "Server", "SourceAndObject", "User"`))
  })
})
