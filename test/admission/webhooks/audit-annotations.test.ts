// The audit annotations of a mutating webhook's call: whether it mutated the object at every
// level (a refusal included), its whole patch (which may carry a Secret's data) only at Request
// or above.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { patchOf, startAdmissionWebhook } from '../../helpers/admission-webhook.js'
import { parsePolicy } from '../../../plugins/audit/policy.js'
import { GROUPS } from '../../../resources/naming.js'

type Event = Record<string, any>
const SECRET_VALUE = 'c2VjcmV0LWZyb20tdGhlLXdlYmhvb2s='

const POLICY = parsePolicy({
  apiVersion: `${GROUPS.audit}/v1`,
  kind: 'Policy',
  rules: [
    { level: 'Request', resources: [{ group: '', resources: ['configmaps'] }], namespaces: ['request-level'] },
    // Asks for everything about Secrets: they are capped at Metadata regardless.
    { level: 'RequestResponse', resources: [{ group: '', resources: ['secrets'] }] },
    { level: 'Metadata' }
  ]
})

test('a webhook\'s patch is in the audit log only at level Request or above, never for a Secret', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-audit-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'audit.log')
  const { request } = await buildTestApp(t, { audit: { policy: POLICY, path } })
  const hooks = await startAdmissionWebhook(t)
  hooks.handle('/stamp', (review) => review.request.kind.kind === 'Secret'
    ? patchOf([{ op: 'add', path: '/data/injected', value: SECRET_VALUE }])
    : patchOf([{ op: 'add', path: '/metadata/labels/stamped', value: 'yes' }]))
  const configured = await request({
    method: 'POST',
    url: '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations',
    payload: {
      metadata: { name: 'stamp' },
      webhooks: [{
        name: 'stamp.hooks.example.com',
        clientConfig: { url: `${hooks.base}/stamp`, caBundle: hooks.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps', 'secrets'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1']
      }]
    }
  })
  assert.equal(configured.statusCode, 201, configured.body)
  hooks.handle('/refuse', () => ({ allowed: false, status: { code: 403, message: 'refused' } }))
  const refuse = await request({
    method: 'POST',
    url: '/apis/admissionregistration.svc.io/v1/mutatingwebhookconfigurations',
    payload: {
      metadata: { name: 'refuse' },
      webhooks: [{
        name: 'refuse.hooks.example.com',
        clientConfig: { url: `${hooks.base}/refuse`, caBundle: hooks.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        objectSelector: { matchLabels: { refuse: 'yes' } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1']
      }]
    }
  })
  assert.equal(refuse.statusCode, 201, refuse.body)
  for (const ns of ['request-level', 'metadata-level']) {
    assert.equal((await request({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: ns } } })).statusCode, 201)
    const cm = await request({ method: 'POST', url: `/api/v1/namespaces/${ns}/configmaps`, payload: { metadata: { name: 'cm', labels: { app: 'x' } } } })
    assert.equal(cm.statusCode, 201, cm.body)
  }
  const refused = await request({ method: 'POST', url: '/api/v1/namespaces/metadata-level/configmaps', payload: { metadata: { name: 'refused', labels: { refuse: 'yes' } } } })
  assert.equal(refused.statusCode, 403, refused.body)
  const secret = await request({ method: 'POST', url: '/api/v1/namespaces/request-level/secrets', payload: { metadata: { name: 's' }, data: {} } })
  assert.equal(secret.statusCode, 201, secret.body)

  const created = (e: Event): boolean => e.stage === 'ResponseComplete' && e.verb === 'create' && e.objectRef !== undefined
  const events = await eventually(() => {
    const all = existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l) as Event) : []
    const writes = all.filter(e => created(e) && ['configmaps', 'secrets'].includes(e.objectRef.resource))
    assert.equal(writes.length, 4)
    return writes
  })
  const annotations = (resource: string, ns: string, code = 201): Record<string, string> =>
    events.find(e => e.objectRef.resource === resource && e.objectRef.namespace === ns && e.responseStatus.code === code)!.annotations ?? {}
  const mutation = 'mutation.webhook.admission.svc.io/round_0_index_0'
  const patch = 'patch.webhook.admission.svc.io/round_0_index_0'

  const atRequest = annotations('configmaps', 'request-level')
  assert.deepEqual(JSON.parse(atRequest[mutation]!), { configuration: 'stamp', webhook: 'stamp.hooks.example.com', mutated: true })
  assert.equal(atRequest[patch], JSON.stringify({ configuration: 'stamp', webhook: 'stamp.hooks.example.com', patch: [{ op: 'add', path: '/metadata/labels/stamped', value: 'yes' }], patchType: 'JSONPatch' }))

  const atMetadata = annotations('configmaps', 'metadata-level')
  assert.ok(atMetadata[mutation] !== undefined, JSON.stringify(atMetadata))
  assert.equal(atMetadata[patch], undefined)

  const ofSecret = annotations('secrets', 'request-level')
  assert.ok(ofSecret[mutation] !== undefined, JSON.stringify(ofSecret))
  assert.equal(ofSecret[patch], undefined)
  // A call that ends the request still says the webhook did not mutate the object.
  const ofRefused = annotations('configmaps', 'metadata-level', 403)
  assert.deepEqual(JSON.parse(ofRefused[mutation]!), { configuration: 'refuse', webhook: 'refuse.hooks.example.com', mutated: false })

  assert.ok(!readFileSync(path, 'utf8').includes(SECRET_VALUE), 'the Secret\'s data is nowhere in the audit log')
})
