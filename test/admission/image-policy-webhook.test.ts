// ImagePolicyWebhook against a real HTTPS backend on loopback (its own CA, a token and a client
// certificate from the kubeconfig): the ImageReview sent, allowed and denied pods, answers cached
// for their TTLs on the test's clock, audit annotations kept, transient failures retried, the
// backend down under defaultAllow true and false, and the configuration checked at start.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { buildTestApp, type TestApp } from '../helpers/app.js'
import { closedPort, startImagePolicyBackend, TOKEN, type ImagePolicyBackend } from '../helpers/image-policy-backend.js'
import { goDuration, parseImagePolicyConfiguration } from '../../admission/image-policy-webhook.js'

type AnyObject = Record<string, any>
const PODS = '/api/v1/namespaces/default/pods'
type T = { after (fn: () => unknown): void }

/** Writes the admission configuration (ImagePolicyWebhook's inline) beside a kubeconfig naming `server`. */
function configure (t: T, backend: ImagePolicyBackend, imagePolicy: AnyObject, server?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'image-policy-config-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  backend.writeKubeconfig(join(dir, 'backend.kubeconfig'), server)
  const file = join(dir, 'admission.yaml')
  writeFileSync(file, stringify({
    apiVersion: 'apiserver.config.svc.io/v1', kind: 'AdmissionConfiguration',
    plugins: [{ name: 'ImagePolicyWebhook', configuration: { imagePolicy: { kubeConfigFile: 'backend.kubeconfig', ...imagePolicy } } }]
  }))
  return file
}

const pod = (name: string, images: string[], annotations: Record<string, string> = {}, init: string[] = []): AnyObject => ({
  metadata: { name, annotations },
  spec: {
    containers: images.map((image, i) => ({ name: `c${i}`, image })),
    ...(init.length === 0 ? {} : { initContainers: init.map((image, i) => ({ name: `i${i}`, image })) })
  }
})

describe('ImagePolicyWebhook', () => {
  const hooks: Array<() => unknown> = []
  const suite: T = { after: (fn) => { hooks.push(fn) } }
  after(async () => { for (const fn of hooks.reverse()) await fn() })
  let backend: ImagePolicyBackend
  let api: TestApp
  const clock = { ms: Date.parse('2026-01-01T00:00:00Z') }
  /** Audit annotations of the last pod request, as the audit log would get them. */
  let audit: Record<string, string> = {}

  before(async () => {
    backend = await startImagePolicyBackend(suite)
    backend.handle((review) => {
      const images: string[] = review.spec.containers.map((c: AnyObject) => c.image)
      if (images.some(i => i.startsWith('evil.example.com/'))) return { allowed: false, reason: 'images from evil.example.com are not trusted' }
      if (images.includes('silent-deny')) return { allowed: false }
      if (images.includes('flaky')) return { raw: { status: 500, body: '{}' } }
      return { allowed: true, auditAnnotations: { verdict: 'trusted' } }
    })
    const configFile = configure(suite, backend, { allowTTL: 300, denyTTL: 30, retryBackoff: 1, defaultAllow: false })
    api = await buildTestApp(suite, { admission: { enable: ['ImagePolicyWebhook'], configFile, now: () => clock.ms } })
    api.app.admission.add({ name: 'test:audit', alwaysOn: true, handles: (a) => a.resource.plural === 'pods', validate: (a) => { audit = { ...a.auditAnnotations } } })
  })
  const create = (body: AnyObject) => api.request({ method: 'POST', url: PODS, payload: body })
  const callsFor = (image: string): number => backend.received.filter(r => r.review.spec.containers?.some((c: AnyObject) => c.image === image)).length

  it('sends an ImageReview of the pod\'s images, image-policy annotations and namespace, with the kubeconfig\'s credentials', async () => {
    const res = await create(pod('web', ['nginx:1.27', 'sidecar:2'], { 'ticket.image-policy.svc.io/id': 'T-1', 'owner.example.com/team': 'web' }, ['init:1']))
    assert.equal(res.statusCode, 201, res.body)
    const call = backend.received.at(-1)!
    assert.equal(call.path, '/review')
    assert.equal(call.headers.authorization, `Bearer ${TOKEN}`)
    assert.equal(call.clientCN, 'admin')
    assert.deepEqual(call.review, {
      apiVersion: 'imagepolicy.svc.io/v1alpha1',
      kind: 'ImageReview',
      metadata: { creationTimestamp: null },
      spec: { containers: [{ image: 'nginx:1.27' }, { image: 'sidecar:2' }, { image: 'init:1' }], annotations: { 'ticket.image-policy.svc.io/id': 'T-1' }, namespace: 'default' },
      status: { allowed: false }
    })
    assert.equal(audit['imagepolicywebhook.image-policy.svc.io/verdict'], 'trusted')
    assert.equal((await api.request({ method: 'GET', url: `${PODS}/web` })).statusCode, 200)
  })

  it('refuses a pod the backend denies, with its reason, and stores nothing', async () => {
    const res = await create(pod('bad', ['evil.example.com/miner:latest']))
    assert.equal(res.statusCode, 403, res.body)
    const status = res.json()
    assert.equal(status.reason, 'Forbidden')
    assert.equal(status.message, 'pods "bad" is forbidden: image policy webhook backend denied one or more images: images from evil.example.com are not trusted')
    assert.deepEqual(status.details, { name: 'bad', kind: 'pods' })
    assert.equal((await api.request({ method: 'GET', url: `${PODS}/bad` })).statusCode, 404)
    const silent = await create(pod('quiet', ['silent-deny']))
    assert.equal(silent.statusCode, 403)
    assert.equal(silent.json().message, 'pods "quiet" is forbidden: one or more images rejected by webhook backend')
  })

  it('answers the same review from its cache until the TTL passes: allowTTL for allowed, denyTTL for denied', async () => {
    assert.equal((await create(pod('cached-1', ['cache/allowed:1']))).statusCode, 201)
    assert.equal((await create(pod('cached-2', ['cache/allowed:1']))).statusCode, 201)
    assert.equal(callsFor('cache/allowed:1'), 1, 'the second pod\'s review is the first one\'s')
    assert.equal((await create(pod('cached-3', ['cache/allowed:1'], { 'x.image-policy.svc.io/y': 'z' }))).statusCode, 201)
    assert.equal(callsFor('cache/allowed:1'), 2, 'other annotations are another review')
    clock.ms += 299_000
    assert.equal((await create(pod('cached-4', ['cache/allowed:1']))).statusCode, 201)
    assert.equal(callsFor('cache/allowed:1'), 2)
    clock.ms += 2_000
    assert.equal((await create(pod('cached-5', ['cache/allowed:1']))).statusCode, 201)
    assert.equal(callsFor('cache/allowed:1'), 3, 'past allowTTL the backend is asked again')

    const denied = 'evil.example.com/cached:1'
    assert.equal((await create(pod('denied-1', [denied]))).statusCode, 403)
    const again = await create(pod('denied-2', [denied]))
    assert.equal(again.statusCode, 403)
    assert.match(again.json().message, /not trusted/, 'the cached denial keeps its reason')
    assert.equal(callsFor(denied), 1)
    clock.ms += 31_000
    assert.equal((await create(pod('denied-3', [denied]))).statusCode, 403)
    assert.equal(callsFor(denied), 2, 'past denyTTL the backend is asked again')
  })

  it('reviews updates of pods too', async () => {
    const created = await create(pod('updated', ['update/base:1']))
    assert.equal(created.statusCode, 201, created.body)
    const before = backend.received.length
    const patch = await api.request({
      method: 'PATCH', url: `${PODS}/updated`, headers: { 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ metadata: { annotations: { 'change.image-policy.svc.io/reason': 'hotfix' } } })
    })
    assert.equal(patch.statusCode, 200, patch.body)
    assert.equal(backend.received.length, before + 1)
    assert.deepEqual(backend.received.at(-1)!.review.spec.annotations, { 'change.image-policy.svc.io/reason': 'hotfix' })
  })

  it('retries a backend answering 500 and then refuses (defaultAllow false), caching nothing', async () => {
    const res = await create(pod('flaky', ['flaky']))
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.json().message, 'pods "flaky" is forbidden: Error contacting webhook: 500')
    assert.equal(callsFor('flaky'), 5, 'five calls, as upstream\'s backoff makes')
    assert.equal((await create(pod('flaky', ['flaky']))).statusCode, 403)
    assert.equal(callsFor('flaky'), 10)
  })
})

describe('ImagePolicyWebhook with the backend down', () => {
  it('refuses pods when defaultAllow is false, naming the call that failed', async (t) => {
    const backend = await startImagePolicyBackend(t)
    const port = await closedPort()
    const api = await buildTestApp(t, { admission: { enable: ['ImagePolicyWebhook'], configFile: configure(t, backend, { retryBackoff: 1 }, `https://127.0.0.1:${port}/review`) } })
    const res = await api.request({ method: 'POST', url: PODS, payload: pod('p', ['nginx']) })
    assert.equal(res.statusCode, 403, res.body)
    assert.match(res.json().message, new RegExp(`^pods "p" is forbidden: Post "https://127\\.0\\.0\\.1:${port}/review": connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`))
  })

  it('admits pods when defaultAllow is true, marked failed-open on the pod and in the audit annotations', async (t) => {
    const backend = await startImagePolicyBackend(t)
    const port = await closedPort()
    const api = await buildTestApp(t, { admission: { enable: ['ImagePolicyWebhook'], configFile: configure(t, backend, { defaultAllow: true }, `https://127.0.0.1:${port}/review`) } })
    let audit: Record<string, string> = {}
    api.app.admission.add({ name: 'test:audit', alwaysOn: true, handles: (a) => a.resource.plural === 'pods', validate: (a) => { audit = { ...a.auditAnnotations } } })
    const res = await api.request({ method: 'POST', url: PODS, payload: pod('p', ['nginx'], { keep: 'me' }) })
    assert.equal(res.statusCode, 201, res.body)
    assert.deepEqual(res.json().metadata.annotations, { keep: 'me', 'alpha.image-policy.svc.io/failed-open': 'true' })
    assert.equal(audit['imagepolicywebhook.image-policy.svc.io/failed-open'], 'true')
    const stored = await api.request({ method: 'GET', url: `${PODS}/p` })
    assert.equal(stored.json().metadata.annotations['alpha.image-policy.svc.io/failed-open'], 'true')
  })
})

describe('ImagePolicyWebhook configuration', () => {
  it('defaults and bounds the TTLs and the backoff as upstream', () => {
    assert.deepEqual(parseImagePolicyConfiguration({ imagePolicy: { kubeConfigFile: 'k' } }),
      { kubeConfigFile: 'k', allowTTLMs: 300_000, denyTTLMs: 30_000, retryBackoffMs: 500, defaultAllow: false })
    assert.deepEqual(parseImagePolicyConfiguration({ imagePolicy: { kubeConfigFile: 'k', allowTTL: -1, denyTTL: 5, retryBackoff: 2000, defaultAllow: true } }),
      { kubeConfigFile: 'k', allowTTLMs: 0, denyTTLMs: 5000, retryBackoffMs: 2000, defaultAllow: true })
    assert.throws(() => parseImagePolicyConfiguration({ imagePolicy: { kubeConfigFile: 'k', allowTTL: 3600 } }), /imagePolicy\.allowTTL: valid value is between 1s and 30m0s, got 1h0m0s/)
    assert.throws(() => parseImagePolicyConfiguration({ imagePolicy: { kubeConfigFile: 'k', denyTTL: -5 } }), /imagePolicy\.denyTTL: valid value is between 1s and 30m0s, got -5s/)
    assert.throws(() => parseImagePolicyConfiguration({ imagePolicy: { kubeConfigFile: 'k', retryBackoff: 600000 } }), /imagePolicy\.retryBackoff: valid value is between 1ns and 5m0s, got 10m0s/)
    assert.throws(() => parseImagePolicyConfiguration({ imagePolicy: { allowTTL: 5 } }), /imagePolicy\.kubeConfigFile is required/)
    assert.throws(() => parseImagePolicyConfiguration({ kubeConfigFile: 'k' }), /needs an imagePolicy section/)
    assert.throws(() => parseImagePolicyConfiguration({ imagePolicy: { kubeConfigFile: 'k', allowTTL: '5m' } }), /imagePolicy\.allowTTL must be an integer, not "5m"/)
    assert.deepEqual([goDuration(1), goDuration(1500), goDuration(500e6), goDuration(90e9), goDuration(3723.5e9)], ['1ns', '1.5µs', '500ms', '1m30s', '1h2m3.5s'])
  })

  it('refuses at start a backend reached over http, a missing kubeconfig, and no configuration', async (t) => {
    const backend = await startImagePolicyBackend(t)
    const http = configure(t, backend, {}, 'http://127.0.0.1:8080/review')
    await assert.rejects(buildTestApp(t, { admission: { enable: ['ImagePolicyWebhook'], configFile: http } }),
      new RegExp(`--admission-control-config-file ${http.replace(/[.]/g, '\\.')}: ImagePolicyWebhook: kubeConfigFile .*backend\\.kubeconfig: the backend's server http://127\\.0\\.0\\.1:8080/review must be an https URL`))
    const dir = mkdtempSync(join(tmpdir(), 'image-policy-config-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(join(dir, 'image-policy.yaml'), stringify({ imagePolicy: { kubeConfigFile: 'missing.kubeconfig' } }))
    writeFileSync(join(dir, 'admission.yaml'), stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'ImagePolicyWebhook', path: 'image-policy.yaml' }] }))
    await assert.rejects(buildTestApp(t, { admission: { enable: ['ImagePolicyWebhook'], configFile: join(dir, 'admission.yaml') } }),
      /image-policy\.yaml: ImagePolicyWebhook: kubeConfigFile \/.*\/missing\.kubeconfig: ENOENT/)
    await assert.rejects(buildTestApp(t, { admission: { enable: ['ImagePolicyWebhook'] } }), /ImagePolicyWebhook needs a configuration/)
  })
})
