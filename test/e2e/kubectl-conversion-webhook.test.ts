// kubectl 1.33 against the started server with a CRD whose versions convert through a webhook
// (a real HTTPS process on loopback beside the server): objects written in one version are read
// in the other, converted by the webhook, and a failing webhook shows as the reference's error.
import { describe, it, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { hasKubectl, kubectlFor, type Kubectl } from '../helpers/kubectl.js'
import { startServer, type RunningServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'
import { converting, startConversionWebhook, type ConversionWebhookServer } from '../helpers/conversion-webhook.js'

type Obj = Record<string, any>

/** v1 says spec.replicas, v2 spec.size. */
function rename (o: Obj): Obj {
  const spec = { ...(o.spec ?? {}) }
  if (o.apiVersion === 'shapes.example.com/v2' && 'replicas' in spec) { spec.size = spec.replicas; delete spec.replicas }
  if (o.apiVersion === 'shapes.example.com/v1' && 'size' in spec) { spec.replicas = spec.size; delete spec.size }
  return { ...o, spec }
}

const crd = (hook: ConversionWebhookServer): string => JSON.stringify({
  apiVersion: 'apiextensions.svc.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'boxes.shapes.example.com' },
  spec: {
    group: 'shapes.example.com',
    scope: 'Namespaced',
    names: { plural: 'boxes', singular: 'box', kind: 'Box' },
    versions: ['v1', 'v2'].map(name => ({
      name,
      served: true,
      storage: name === 'v1',
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { [name === 'v1' ? 'replicas' : 'size']: { type: 'integer' } } } } } },
      additionalPrinterColumns: [{ name: name === 'v1' ? 'Replicas' : 'Size', type: 'integer', jsonPath: name === 'v1' ? '.spec.replicas' : '.spec.size' }]
    })),
    conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: `${hook.base}/convert`, caBundle: hook.caBundle }, conversionReviewVersions: ['v1'] } }
  }
})

describe('kubectl with a conversion webhook', { concurrency: 1, skip: hasKubectl('1.33') ? false : 'no kubectl 1.33 installed' }, () => {
  let server: RunningServer
  let kubectl: Kubectl
  let hook: ConversionWebhookServer
  const cleanups: Array<() => unknown> = []
  before(async () => {
    server = await startServer({ after: fn => { cleanups.push(fn) } })
    hook = await startConversionWebhook({ after: fn => { cleanups.push(fn) } })
    hook.handle(converting(rename))
    kubectl = kubectlFor({ kubeconfig: server.kubeconfig, version: '1.33', home: server.dataDir })
    await kubectl.ok(['create', '-f', '-'], crd(hook))
    await kubectl.ok(['wait', '--for', 'condition=established', '--timeout', '30s', 'crd/boxes.shapes.example.com'])
  })
  after(async () => { for (const fn of cleanups.reverse()) await fn() })

  it('writes in v2 and reads in v1 and v2, each through the webhook', async () => {
    await eventually(async () => { assert.ok((await kubectl.attempt(['get', 'boxes.v2.shapes.example.com'])).ok) })
    await kubectl.ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'shapes.example.com/v2', kind: 'Box', metadata: { name: 'b1', namespace: 'default' }, spec: { size: 4 } }))
    const asV1 = JSON.parse(await kubectl.ok(['get', 'boxes.v1.shapes.example.com', 'b1', '-o', 'json']))
    assert.equal(asV1.apiVersion, 'shapes.example.com/v1')
    assert.deepEqual(asV1.spec, { replicas: 4 })
    const asV2 = JSON.parse(await kubectl.ok(['get', 'boxes.v2.shapes.example.com', 'b1', '-o', 'json']))
    assert.equal(asV2.apiVersion, 'shapes.example.com/v2')
    assert.deepEqual(asV2.spec, { size: 4 })
    // Each version's printer columns.
    assert.match(await kubectl.ok(['get', 'boxes.v2.shapes.example.com']), /^NAME\s+SIZE\n+b1\s+4\s*$/m)
    await kubectl.ok(['patch', 'boxes.v2.shapes.example.com', 'b1', '--type', 'merge', '-p', '{"spec":{"size":7}}'])
    assert.deepEqual(JSON.parse(await kubectl.ok(['get', 'boxes.v1.shapes.example.com', 'b1', '-o', 'json'])).spec, { replicas: 7 })
    assert.ok(hook.received.some(r => r.review.request.desiredAPIVersion === 'shapes.example.com/v1'))
  })

  it('shows the webhook\'s failure as the reference does', async () => {
    hook.handle(review => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure', message: 'boxes are closed' } } }))
    try {
      const res = await kubectl.run(['get', 'boxes.v2.shapes.example.com', 'b1'])
      assert.notEqual(res.code, 0)
      assert.match(res.stderr, /conversion webhook for shapes\.example\.com\/v1, Kind=Box failed: boxes are closed/)
    } finally {
      hook.handle(converting(rename))
    }
  })
})
