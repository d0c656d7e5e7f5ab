// A CRD's conversion webhook against a real HTTPS webhook: the ConversionReview sent (v1 and
// v1beta1), the answer's checks with the reference's wording, metadata restored but for labels
// and annotations, objects already converted not sent, and the calls that fail on the way.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { ApiError } from '../../resources/status.js'
import { conversionWebhookTransport, webhookConverter, type WebhookConverterOptions } from '../../plugins/custom-resources/conversion-webhook.js'
import { converting, startConversionWebhook, type ConversionWebhookServer } from '../helpers/conversion-webhook.js'

type AnyObject = Record<string, any>

const transport = conversionWebhookTransport()
const V1 = 'stable.example.com/v1'
const V2 = 'stable.example.com/v2'
const FOR_CRONTAB = 'conversion webhook for stable.example.com/v1, Kind=CronTab'

const cronTab = (name: string, apiVersion = V1, extra: AnyObject = {}): AnyObject => ({
  apiVersion,
  kind: 'CronTab',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '7', labels: { app: name }, ...extra },
  spec: { cronSpec: '* * * * */5' }
})

function converterFor (hook: ConversionWebhookServer, o: Partial<WebhookConverterOptions> & { versions?: string[] } = {}) {
  return webhookConverter({
    crdName: 'crontabs.stable.example.com',
    webhook: { clientConfig: { url: `${hook.base}/convert`, caBundle: hook.caBundle }, conversionReviewVersions: o.versions ?? ['v1'] },
    transport,
    ...o
  })
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Runs `call`, which must fail with a 500 InternalError whose message (after the reference's prefix) matches. */
async function failsWith (call: Promise<unknown>, message: string | RegExp): Promise<void> {
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof ApiError, String(err))
    assert.equal(err.code, 500)
    assert.equal(err.status.reason, 'InternalError')
    const text = err.message.replace(/^Internal error occurred: /, '')
    if (typeof message === 'string') assert.equal(text, message)
    else assert.match(text, message)
    return true
  })
}

describe('the ConversionReview sent', () => {
  it('is apiextensions.k8s.io/v1 when the CRD lists v1 first, and its converted objects are returned', async (t) => {
    const hook = await startConversionWebhook(t)
    hook.handle(converting(o => ({ ...o, spec: { schedule: o.spec.cronSpec } })))
    const out = await converterFor(hook, { versions: ['v1', 'v1beta1'] }).convert([cronTab('a'), cronTab('b')], V2)
    assert.deepEqual(out.map(o => [o.apiVersion, o.metadata.name, o.spec]), [[V2, 'a', { schedule: '* * * * */5' }], [V2, 'b', { schedule: '* * * * */5' }]])
    assert.equal(hook.received.length, 1)
    const { path, query, review } = hook.received[0]!
    assert.equal(path, '/convert')
    assert.equal(query.get('timeout'), '30s')
    assert.equal(review.apiVersion, 'apiextensions.k8s.io/v1')
    assert.equal(review.kind, 'ConversionReview')
    assert.match(review.request.uid, /^[0-9a-f-]{36}$/)
    assert.equal(review.request.desiredAPIVersion, V2)
    assert.deepEqual(review.request.objects, [cronTab('a'), cronTab('b')])
  })

  it('is v1beta1 when that is the first version this server speaks, and its answer needs neither uid nor apiVersion', async (t) => {
    const hook = await startConversionWebhook(t)
    hook.handle(review => ({ response: { result: { status: 'Success' }, convertedObjects: review.request.objects.map((o: AnyObject) => ({ ...o, apiVersion: V2 })) } }))
    const out = await converterFor(hook, { versions: ['v2', 'v1beta1', 'v1'] }).convert([cronTab('a')], V2)
    assert.equal(out[0]!.apiVersion, V2)
    assert.equal(hook.received[0]!.review.apiVersion, 'apiextensions.k8s.io/v1beta1')
  })

  it('is not sent when no listed version is one this server speaks', async (t) => {
    const hook = await startConversionWebhook(t)
    await failsWith(converterFor(hook, { versions: ['v2'] }).convert([cronTab('a')], V2), 'no supported conversion review versions')
    assert.equal(hook.received.length, 0)
  })

  it('leaves out the objects already in the desired version, and is not sent when all are', async (t) => {
    const hook = await startConversionWebhook(t)
    hook.handle(converting(o => ({ ...o, spec: { converted: true } })))
    const converter = converterFor(hook)
    const out = await converter.convert([cronTab('a', V2), cronTab('b'), cronTab('c', V2), cronTab('d')], V2)
    assert.deepEqual(hook.received[0]!.review.request.objects.map((o: AnyObject) => o.metadata.name), ['b', 'd'])
    assert.deepEqual(out.map(o => [o.metadata.name, o.spec.converted ?? false]), [['a', false], ['b', true], ['c', false], ['d', true]])
    const already = [cronTab('e', V2)]
    assert.deepEqual(await converter.convert(already, V2), already)
    assert.equal(hook.received.length, 1)
  })

  it('reaches a service reference at <name>.<namespace>.svc', async (t) => {
    const hook = await startConversionWebhook(t, ['converter.hooks.svc'])
    const viaService = conversionWebhookTransport({ 'converter.hooks.svc': `127.0.0.1:${hook.port}` })
    const converter = webhookConverter({
      crdName: 'crontabs.stable.example.com',
      webhook: { clientConfig: { service: { namespace: 'hooks', name: 'converter', path: '/crd', port: hook.port }, caBundle: hook.caBundle }, conversionReviewVersions: ['v1'] },
      transport: viaService
    })
    assert.equal((await converter.convert([cronTab('a')], V2))[0]!.apiVersion, V2)
    assert.equal(hook.received[0]!.path, '/crd')
  })
})

describe('the answer', () => {
  it('of a Failed result fails with its message, or with its status when it has none', async (t) => {
    const hook = await startConversionWebhook(t)
    const converter = converterFor(hook)
    hook.handle(review => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure', message: 'cronSpec cannot be converted' } } }))
    await failsWith(converter.convert([cronTab('a')], V2), `${FOR_CRONTAB} failed: cronSpec cannot be converted`)
    hook.handle(review => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure' } } }))
    await failsWith(converter.convert([cronTab('a')], V2), `${FOR_CRONTAB} failed: response.result.status was 'Failure', not 'Success'`)
  })

  it('must carry the request uid and be a v1 ConversionReview, in either spelling of the group', async (t) => {
    const hook = await startConversionWebhook(t)
    const converter = converterFor(hook)
    const answer = converting()
    hook.handle(review => ({ ...answer(review), response: { ...answer(review).response, uid: 'someone-else' } }))
    await failsWith(converter.convert([cronTab('a')], V2), new RegExp(`^${FOR_CRONTAB} failed: expected response.uid="[0-9a-f-]{36}", got "someone-else"$`))
    hook.handle(review => ({ ...answer(review), apiVersion: 'apiextensions.k8s.io/v1beta1' }))
    await failsWith(converter.convert([cronTab('a')], V2), `${FOR_CRONTAB} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview`)
    hook.handle(review => ({ ...answer(review), apiVersion: 'apiextensions.svc.io/v1' }))
    assert.equal((await converter.convert([cronTab('a')], V2))[0]!.apiVersion, V2)
    hook.handle(review => ({ apiVersion: review.apiVersion, kind: 'ConversionReview' }))
    await failsWith(converter.convert([cronTab('a')], V2), `${FOR_CRONTAB} failed: no response provided`)
  })

  it('is decoded as the typed review: a field of the wrong type fails as Go\'s decoder words it', async (t) => {
    const hook = await startConversionWebhook(t)
    hook.handle(review => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: 7 } }))
    await failsWith(converterFor(hook).convert([cronTab('a')], V2), `${FOR_CRONTAB} failed: json: cannot unmarshal number into Go struct field ConversionResponse.response.uid of type types.UID`)
  })

  it('must hold as many objects as were sent', async (t) => {
    const hook = await startConversionWebhook(t)
    const answer = converting()
    hook.handle(review => { const a = answer(review); a.response.convertedObjects.pop(); return a })
    await failsWith(converterFor(hook).convert([cronTab('a'), cronTab('b')], V2), `${FOR_CRONTAB} returned 1 objects, expected 2`)
  })

  it('must hold objects of the desired apiVersion and of the same kind, name, namespace and uid', async (t) => {
    const hook = await startConversionWebhook(t)
    const converter = converterFor(hook)
    const cases: Array<[(o: AnyObject) => AnyObject, string]> = [
      [o => ({ ...o, apiVersion: 'stable.example.com/v3' }), 'invalid groupVersion (expected stable.example.com/v2, received stable.example.com/v3)'],
      [o => ({ ...o, kind: 'Crontab' }), 'invalid kind (expected CronTab, received Crontab)'],
      [o => ({ ...o, metadata: { ...o.metadata, name: 'renamed' } }), 'must have the same name: b != renamed'],
      [o => ({ ...o, metadata: { ...o.metadata, namespace: 'elsewhere' } }), 'must have the same namespace: default != elsewhere'],
      [o => ({ ...o, metadata: { ...o.metadata, uid: 'other' } }), 'must have the same UID: uid-b != other']
    ]
    for (const [change, detail] of cases) {
      // The second object is the bad one: the reference numbers it 2 once counted.
      hook.handle(converting((o, i) => i === 1 ? change(o) : o))
      await failsWith(converter.convert([cronTab('a'), cronTab('b')], V2), `${FOR_CRONTAB} returned invalid converted object at index 2: ${detail}`)
    }
    hook.handle(converting((o, i) => i === 0 ? { apiVersion: V2 } : o))
    await failsWith(converter.convert([cronTab('a')], V2), `${FOR_CRONTAB} returned invalid converted object at index 0: Object 'Kind' is missing in '{"apiVersion":"${V2}"}'`)
  })

  it('changes only labels and annotations of the metadata: the rest is the original\'s', async (t) => {
    const hook = await startConversionWebhook(t)
    hook.handle(converting(o => ({
      ...o,
      metadata: { ...o.metadata, resourceVersion: '999', generation: 42, finalizers: ['x'], labels: { tier: 'web' }, annotations: { note: 'converted' } }
    })))
    const original = cronTab('a', V1, { generation: 3 })
    const before = structuredClone(original)
    const [out] = await converterFor(hook).convert([original], V2)
    assert.deepEqual(out!.metadata, { name: 'a', namespace: 'default', uid: 'uid-a', resourceVersion: '7', generation: 3, labels: { tier: 'web' }, annotations: { note: 'converted' } })
    assert.deepEqual(original, before, 'the input is not modified')

    hook.handle(converting(o => ({ ...o, metadata: { name: 'a', namespace: 'default', uid: 'uid-a' } })))
    const [bare] = await converterFor(hook).convert([cronTab('a', V1, { annotations: { keep: 'no' } })], V2)
    assert.deepEqual(bare!.metadata, { name: 'a', namespace: 'default', uid: 'uid-a', resourceVersion: '7' }, 'labels and annotations the webhook dropped are dropped')
  })

  it('must have metadata, with labels and annotations the reference would store', async (t) => {
    const hook = await startConversionWebhook(t)
    const converter = converterFor(hook)
    const prefix = `${FOR_CRONTAB} returned invalid metadata in object at index 1: `
    const cases: Array<[(o: AnyObject) => AnyObject, string]> = [
      [o => ({ ...o, metadata: { ...o.metadata, labels: { app: 7 } } }), 'metadata.labels[app] must be a string, but is int64 in converted object'],
      [o => ({ ...o, metadata: { ...o.metadata, labels: ['x'] } }), 'invalid metadata.labels of type []interface {} in converted object'],
      [o => ({ ...o, metadata: { ...o.metadata, annotations: { 'not a key': 'x' } } }), 'metadata.annotation: Invalid value: "not a key": ']
    ]
    for (const [change, detail] of cases) {
      hook.handle(converting(change))
      await failsWith(converter.convert([cronTab('a')], V2), new RegExp(`^${escape(prefix + detail)}`))
    }
    // Only an original without name, namespace and uid gets this far without metadata.
    hook.handle(converting(({ metadata: _, ...rest }) => rest))
    await failsWith(converter.convert([{ apiVersion: V1, kind: 'CronTab', metadata: {} }], V2), `${prefix}missing metadata in converted object`)
  })
})

describe('the call', () => {
  it('fails when nothing listens at the webhook', async (t) => {
    const hook = await startConversionWebhook(t)
    const closed = createServer()
    await new Promise<void>(resolve => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as { port: number }).port
    await new Promise(resolve => closed.close(resolve))
    const converter = converterFor(hook, { webhook: { clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle: hook.caBundle }, conversionReviewVersions: ['v1'] } })
    await failsWith(converter.convert([cronTab('a')], V2), new RegExp(`^${FOR_CRONTAB} failed: Post "https://127\\.0\\.0\\.1:${port}/convert\\?timeout=30s": .*ECONNREFUSED`))
  })

  it('fails when the webhook\'s certificate is not signed by the caBundle', async (t) => {
    const hook = await startConversionWebhook(t)
    const other = await startConversionWebhook(t)
    const converter = converterFor(hook, { webhook: { clientConfig: { url: `${hook.base}/convert`, caBundle: other.caBundle }, conversionReviewVersions: ['v1'] } })
    await failsWith(converter.convert([cronTab('a')], V2), new RegExp(`^${escape(`${FOR_CRONTAB} failed: Post "${hook.base}/convert?timeout=30s": `)}.*certificate`))
    assert.equal(hook.received.length, 0)
  })

  it('gives up after its timeout, which the webhook is told', async (t) => {
    const hook = await startConversionWebhook(t)
    hook.handle(() => 'hang')
    const started = Date.now()
    await failsWith(converterFor(hook, { timeoutSeconds: 0.3 }).convert([cronTab('a')], V2), new RegExp(`^${FOR_CRONTAB} failed: Post ".*\\?timeout=0\\.3s": .*timed out`))
    assert.ok(Date.now() - started < 5000)
    assert.equal(hook.received[0]!.query.get('timeout'), '0.3s')
  })

  it('refuses an answer far larger than what was sent', async (t) => {
    const hook = await startConversionWebhook(t)
    hook.handle(review => ({ ...converting()(review), padding: 'x'.repeat(4 * 1024 * 1024) }))
    await failsWith(converterFor(hook).convert([cronTab('a')], V2), new RegExp(`^${FOR_CRONTAB} failed: Post ".*": the response is larger than \\d+ bytes$`))
  })

  it('fails on an answer that is not JSON', async (t) => {
    const hook = await startConversionWebhook(t)
    hook.handle(() => ({ raw: 'converted!' }))
    await failsWith(converterFor(hook).convert([cronTab('a')], V2), new RegExp(`^${FOR_CRONTAB} failed: Post ".*": answered 200 with a body that is not JSON$`))
  })
})

it('refuses a clientConfig with neither a URL nor a service when built', () => {
  assert.throws(() => webhookConverter({ crdName: 'crontabs.stable.example.com', webhook: { clientConfig: {}, conversionReviewVersions: ['v1'] }, transport }),
    (err: unknown) => err instanceof ApiError && err.code === 500 &&
      err.message === 'Internal error occurred: failed calling webhook "conversion_webhook_for_crontabs.stable.example.com": webhook configuration must have either service or URL')
})
