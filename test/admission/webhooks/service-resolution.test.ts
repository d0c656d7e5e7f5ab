// A webhook named by a service reference and by no --admission-webhook-service-address entry is
// reached through its Service: an ExternalName's host, or a cluster IP this host routes (here a
// loopback range); the certificate is checked for `<name>.<namespace>.svc` either way.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../../helpers/app.js'
import { startAdmissionWebhook } from '../../helpers/admission-webhook.js'
import { eventually } from '../../helpers/eventually.js'
import { hostAddress } from '../../../controllers/kubernetes-service.js'

type AnyObject = Record<string, any>
const VALIDATING = '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations'

const validating = (name: string, service: AnyObject, caBundle: string): AnyObject => ({
  metadata: { name },
  webhooks: [{
    name: `${name}.hooks.example.com`,
    clientConfig: { service: { namespace: 'hooks', ...service }, caBundle },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    namespaceSelector: { matchLabels: { [`hook-${name}`]: 'on' } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1']
  }]
})

it('calls a webhook through an ExternalName Service and through a routable cluster IP', async (t) => {
  const byName = await startAdmissionWebhook(t, ['external.hooks.svc'])
  const byIP = await startAdmissionWebhook(t, ['internal.hooks.svc'], '127.0.0.2')
  const api = await buildTestApp(t, { services: { clusterIPRanges: ['127.0.0.0/24'] } })
  const post = (url: string, payload: AnyObject) => api.request({ method: 'POST', url, payload })
  assert.equal((await post('/api/v1/namespaces', { metadata: { name: 'hooks' } })).statusCode, 201)
  for (const name of ['external', 'internal', 'headless', 'missing']) {
    assert.equal((await post('/api/v1/namespaces', { metadata: { name: `ns-${name}`, labels: { [`hook-${name}`]: 'on' } } })).statusCode, 201)
  }
  assert.equal((await post('/api/v1/namespaces/hooks/services', { metadata: { name: 'external' }, spec: { type: 'ExternalName', externalName: '127.0.0.1' } })).statusCode, 201)
  const internal = await post('/api/v1/namespaces/hooks/services', { metadata: { name: 'internal' }, spec: { clusterIP: '127.0.0.2', ports: [{ port: byIP.port }] } })
  assert.equal(internal.statusCode, 201, internal.body)
  assert.equal((await post('/api/v1/namespaces/hooks/services', { metadata: { name: 'headless' }, spec: { clusterIP: 'None', ports: [{ port: 443 }] } })).statusCode, 201)

  assert.equal((await post(VALIDATING, validating('external', { name: 'external', port: byName.port, path: '/ext' }, byName.caBundle))).statusCode, 201)
  assert.equal((await post(VALIDATING, validating('internal', { name: 'internal', port: byIP.port, path: '/int' }, byIP.caBundle))).statusCode, 201)
  assert.equal((await post(VALIDATING, validating('headless', { name: 'headless', path: '/none' }, byIP.caBundle))).statusCode, 201)
  assert.equal((await post(VALIDATING, validating('missing', { name: 'missing', path: '/none' }, byIP.caBundle))).statusCode, 201)

  assert.equal((await post('/api/v1/namespaces/ns-external/configmaps', { metadata: { name: 'c' } })).statusCode, 201)
  assert.equal(byName.on('/ext')[0]?.headers.host, `external.hooks.svc:${byName.port}`)
  assert.equal((await post('/api/v1/namespaces/ns-internal/configmaps', { metadata: { name: 'c' } })).statusCode, 201)
  assert.equal(byIP.on('/int')[0]?.headers.host, `internal.hooks.svc:${byIP.port}`)

  const headless = await post('/api/v1/namespaces/ns-headless/configmaps', { metadata: { name: 'c' } })
  assert.equal(headless.statusCode, 500)
  assert.match(headless.json().message, /failed calling webhook "headless.hooks.example.com".*cannot route to service with ClusterIP None/)
  const missing = await post('/api/v1/namespaces/ns-missing/configmaps', { metadata: { name: 'c' } })
  assert.equal(missing.statusCode, 500)
  assert.match(missing.json().message, /service "missing" not found/)
})

it('calls a webhook at a ready endpoint of its Service, at the target port a named port resolves to in the pod', async (t) => {
  // Endpoints refuse loopback addresses: the webhook listens on one of this host's own.
  const hostIP = hostAddress()
  if (hostIP === undefined) { t.skip('this host has no address but loopback ones'); return }
  const hook = await startAdmissionWebhook(t, ['routed.hooks.svc'], hostIP)
  // The cluster IP leads nowhere: only the endpoint is reachable.
  const api = await buildTestApp(t, { services: { clusterIPRanges: ['10.200.0.0/24'] } })
  const post = (url: string, payload: AnyObject) => api.request({ method: 'POST', url, payload })
  assert.equal((await post('/api/v1/namespaces', { metadata: { name: 'hooks' } })).statusCode, 201)
  assert.equal((await post('/api/v1/namespaces', { metadata: { name: 'ns-routed', labels: { 'hook-routed': 'on' } } })).statusCode, 201)
  assert.equal((await post('/api/v1/namespaces/hooks/pods', { metadata: { name: 'hook', labels: { app: 'hook' } }, spec: { containers: [{ name: 'c', image: 'hook', ports: [{ name: 'webhook', containerPort: hook.port }] }] } })).statusCode, 201)
  const status = await api.request({
    method: 'PATCH',
    url: '/api/v1/namespaces/hooks/pods/hook/status',
    headers: { 'content-type': 'application/merge-patch+json' },
    payload: { status: { phase: 'Running', podIP: hostIP, podIPs: [{ ip: hostIP }], conditions: [{ type: 'Ready', status: 'True' }] } }
  })
  assert.equal(status.statusCode, 200, status.body)
  assert.equal((await post('/api/v1/namespaces/hooks/services', { metadata: { name: 'routed' }, spec: { selector: { app: 'hook' }, ports: [{ name: 'https', port: 443, targetPort: 'webhook' }] } })).statusCode, 201)
  await eventually(async () => {
    const ep = (await api.request({ method: 'GET', url: '/api/v1/namespaces/hooks/endpoints/routed' })).json()
    assert.equal(ep.subsets?.[0]?.addresses?.[0]?.ip, hostIP)
  })
  assert.equal((await post(VALIDATING, validating('routed', { name: 'routed', path: '/routed' }, hook.caBundle))).statusCode, 201)
  const res = await post('/api/v1/namespaces/ns-routed/configmaps', { metadata: { name: 'c' } })
  assert.equal(res.statusCode, 201, res.body)
  // Named as the Service (its certificate's name), reached at the pod's port.
  assert.equal(hook.on('/routed')[0]?.headers.host, 'routed.hooks.svc')
})
