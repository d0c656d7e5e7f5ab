// Two servers on one database: a webhook configuration created through one is in force on the
// other as soon as its watch cache has the configuration, with no restart.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { startAdmissionWebhook } from '../../helpers/admission-webhook.js'

test('a configuration created on one replica refuses requests on the other', async (t) => {
  const hooks = await startAdmissionWebhook(t)
  hooks.handle('/deny', () => ({ allowed: false, status: { code: 403, message: 'refused everywhere' } }))
  const first = await buildTestApp(t)
  const second = await buildTestApp(t, { databaseUrl: first.databaseUrl })
  const created = await first.request({
    method: 'POST',
    url: '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations',
    payload: {
      metadata: { name: 'everywhere' },
      webhooks: [{
        name: 'deny.hooks.example.com',
        clientConfig: { url: `${hooks.base}/deny`, caBundle: hooks.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        sideEffects: 'None',
        admissionReviewVersions: ['v1']
      }]
    }
  })
  assert.equal(created.statusCode, 201, created.body)
  const rv = Number(created.json().metadata.resourceVersion)
  // The second replica has applied the configuration's revision: from then on it is in force.
  await eventually(() => assert.ok(second.app.watchCaches.all().every(c => c.revision >= rv)))
  const res = await second.request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: 'c' } } })
  assert.equal(res.statusCode, 403, res.body)
  assert.equal(res.json().message, 'admission webhook "deny.hooks.example.com" denied the request: refused everywhere')
})
