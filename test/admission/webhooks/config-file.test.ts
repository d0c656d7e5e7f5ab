// --admission-control-config-file: the webhook plugins' kubeConfigFile, whose users are matched
// by the webhook's URL host or service DNS name (exact, `*.` prefixes, `*`); service references
// reached through --admission-webhook-service-address with the certificate checked for
// `<name>.<namespace>.svc`; a malformed file stops start-up.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { buildTestApp } from '../../helpers/app.js'
import { startAdmissionWebhook } from '../../helpers/admission-webhook.js'
import { readAdmissionConfigFile } from '../../../admission/config-file.js'
import { credentialResolverFromKubeconfig } from '../../../auth/webhook-credentials.js'
import { ensureCertificates } from '../../../auth/pki.js'

type AnyObject = Record<string, any>
const VALIDATING = '/apis/admissionregistration.svc.io/v1/validatingwebhookconfigurations'

const scratch = (t: { after (fn: () => unknown): void }): string => {
  const dir = mkdtempSync(join(tmpdir(), 'admission-config-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const validating = (clientConfig: AnyObject): AnyObject => ({
  metadata: { name: 'creds' },
  webhooks: [{
    name: 'creds.hooks.example.com',
    clientConfig,
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1']
  }]
})

describe('the admission configuration file', () => {
  it('presents the kubeConfigFile\'s token and client certificate to a webhook named by URL', async (t) => {
    const dir = scratch(t)
    const hooks = await startAdmissionWebhook(t)
    const client = await ensureCertificates(join(dir, 'client'))
    writeFileSync(join(dir, 'webhooks.kubeconfig'), stringify({
      apiVersion: 'v1', kind: 'Config',
      users: [
        { name: `127.0.0.1:${hooks.port}`, user: { token: 'secret-for-loopback', 'client-certificate-data': Buffer.from(client.adminCertPem).toString('base64'), 'client-key-data': Buffer.from(client.adminKeyPem).toString('base64') } },
        { name: '*', user: { token: 'the-default' } }
      ]
    }))
    // The plugin's configuration in a file of its own, its kubeConfigFile relative to that file.
    writeFileSync(join(dir, 'webhook-admission.yaml'), stringify({ apiVersion: 'apiserver.config.svc.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: 'webhooks.kubeconfig' }))
    writeFileSync(join(dir, 'admission.yaml'), stringify({
      apiVersion: 'apiserver.config.svc.io/v1', kind: 'AdmissionConfiguration',
      plugins: [{ name: 'ValidatingAdmissionWebhook', path: 'webhook-admission.yaml' }]
    }))
    const api = await buildTestApp(t, { admission: { configFile: join(dir, 'admission.yaml') } })
    assert.equal((await api.request({ method: 'POST', url: VALIDATING, payload: validating({ url: `${hooks.base}/creds`, caBundle: hooks.caBundle }) })).statusCode, 201)
    const res = await api.request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: 'c' } } })
    assert.equal(res.statusCode, 201, res.body)
    const call = hooks.on('/creds')[0]!
    assert.equal(call.headers.authorization, 'Bearer secret-for-loopback')
    assert.equal(call.clientCN, 'admin')
  })

  it('reaches a service reference through its configured address, verified as <name>.<namespace>.svc, with wildcard credentials', async (t) => {
    const dir = scratch(t)
    const hooks = await startAdmissionWebhook(t, ['checker.hooks.svc'])
    writeFileSync(join(dir, 'webhooks.kubeconfig'), stringify({
      apiVersion: 'v1', kind: 'Config',
      users: [{ name: '*.hooks.svc:8443', user: { username: 'api', password: 'pw' } }, { name: '*', user: { token: 'the-default' } }]
    }))
    writeFileSync(join(dir, 'admission.yaml'), stringify({
      apiVersion: 'apiserver.config.svc.io/v1', kind: 'AdmissionConfiguration',
      plugins: [{ name: 'ValidatingAdmissionWebhook', configuration: { apiVersion: 'apiserver.config.svc.io/v1', kind: 'WebhookAdmissionConfiguration', kubeConfigFile: join(dir, 'webhooks.kubeconfig') } }]
    }))
    const api = await buildTestApp(t, {
      admission: { configFile: join(dir, 'admission.yaml'), webhookServiceAddresses: { 'checker.hooks.svc:8443': `127.0.0.1:${hooks.port}`, 'wrong-name.hooks.svc': `127.0.0.1:${hooks.port}` } }
    })
    const config = validating({ service: { namespace: 'hooks', name: 'checker', port: 8443, path: '/by-service' }, caBundle: hooks.caBundle })
    assert.equal((await api.request({ method: 'POST', url: VALIDATING, payload: config })).statusCode, 201)
    const res = await api.request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: 'c' } } })
    assert.equal(res.statusCode, 201, res.body)
    const call = hooks.on('/by-service')[0]!
    assert.equal(call.headers.host, 'checker.hooks.svc:8443')
    assert.equal(call.headers.authorization, `Basic ${Buffer.from('api:pw').toString('base64')}`)

    // A certificate that does not name the service is a call error (failurePolicy Fail).
    const wrong = validating({ service: { namespace: 'hooks', name: 'wrong-name', path: '/wrong' }, caBundle: hooks.caBundle })
    wrong.metadata.name = 'wrong'
    wrong.webhooks[0].name = 'wrong.hooks.example.com'
    assert.equal((await api.request({ method: 'POST', url: VALIDATING, payload: wrong })).statusCode, 201)
    const refused = await api.request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: 'd' } } })
    assert.equal(refused.statusCode, 500, refused.body)
    assert.match(refused.json().message, /failed calling webhook "wrong.hooks.example.com".*wrong-name\.hooks\.svc/)
  })

  it('refuses a webhook whose certificate the caBundle does not verify', async (t) => {
    const hooks = await startAdmissionWebhook(t)
    const other = await startAdmissionWebhook(t)
    const api = await buildTestApp(t)
    assert.equal((await api.request({ method: 'POST', url: VALIDATING, payload: validating({ url: `${hooks.base}/x`, caBundle: other.caBundle }) })).statusCode, 201)
    const res = await api.request({ method: 'POST', url: '/api/v1/namespaces/default/configmaps', payload: { metadata: { name: 'c' } } })
    assert.equal(res.statusCode, 500)
    assert.match(res.json().message, /failed calling webhook "creds.hooks.example.com"/)
    assert.equal(hooks.on('/x').length, 0)
  })

  it('matches credentials exactly, by `*.` prefixes, without the port 443, then `*`', (t) => {
    const dir = scratch(t)
    writeFileSync(join(dir, 'k'), stringify({ users: [
      { name: 'a.ns.svc', user: { token: 'exact' } },
      { name: '*.other.svc', user: { token: 'prefix' } },
      { name: 'hooks.example.com', user: { token: 'no-port' } },
      { name: '*', user: { token: 'default' } }
    ] }))
    const resolve = credentialResolverFromKubeconfig(join(dir, 'k'), dir)
    assert.equal(resolve('a.ns.svc').authorization, 'Bearer exact')
    assert.equal(resolve('b.other.svc').authorization, 'Bearer prefix')
    assert.equal(resolve('hooks.example.com:443').authorization, 'Bearer no-port')
    assert.equal(resolve('elsewhere.example.com').authorization, 'Bearer default')
  })

  const malformed: Array<[string, unknown, RegExp]> = [
    ['a document of another kind', { apiVersion: 'apiserver.config.svc.io/v1', kind: 'Config' }, /kind must be AdmissionConfiguration/],
    ['an unknown apiVersion', { apiVersion: 'apiserver.config.svc.io/v9', kind: 'AdmissionConfiguration' }, /apiVersion must be one of/],
    ['a plugin with both path and configuration', { apiVersion: 'apiserver.config.svc.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'X', path: 'a', configuration: {} }] }, /exactly one of path or configuration/],
    ['a plugin without a name', { apiVersion: 'apiserver.config.svc.io/v1', kind: 'AdmissionConfiguration', plugins: [{ configuration: {} }] }, /needs a name/]
  ]
  for (const [name, doc, pattern] of malformed) {
    it(`stops start-up on ${name}`, (t) => {
      const dir = scratch(t)
      writeFileSync(join(dir, 'admission.yaml'), stringify(doc))
      assert.throws(() => readAdmissionConfigFile(join(dir, 'admission.yaml')), pattern)
    })
  }

  it('stops the server from building on a webhook configuration of the wrong kind or a missing kubeConfigFile', async (t) => {
    const dir = scratch(t)
    writeFileSync(join(dir, 'admission.yaml'), stringify({
      apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration',
      plugins: [{ name: 'MutatingAdmissionWebhook', configuration: { kind: 'WebhookAdmissionConfiguration', kubeConfigFile: join(dir, 'absent') } }]
    }))
    await assert.rejects(buildTestApp(t, { admission: { configFile: join(dir, 'admission.yaml') } }), /kubeConfigFile .*absent/)
    writeFileSync(join(dir, 'wrong.yaml'), stringify({
      apiVersion: 'apiserver.config.svc.io/v1', kind: 'AdmissionConfiguration',
      plugins: [{ name: 'ValidatingAdmissionWebhook', configuration: { kind: 'Something' } }]
    }))
    await assert.rejects(buildTestApp(t, { admission: { configFile: join(dir, 'wrong.yaml') } }), /must be of kind WebhookAdmissionConfiguration/)
  })
})

describe('the admission webhook flags', () => {
  it('parses --admission-control-config-file and --admission-webhook-service-address (comma list, repeatable)', async () => {
    const { parseFlags } = await import('../../../bin/flags.js')
    const f = parseFlags(['--admission-control-config-file', '/etc/admission.yaml',
      '--admission-webhook-service-address', 'a.hooks.svc=127.0.0.1:8443,b.hooks.svc:9443=[::1]:9443',
      '--admission-webhook-service-address=c.hooks.svc=10.0.0.7:443'], {})
    assert.equal(f.admissionControlConfigFile, '/etc/admission.yaml')
    assert.deepEqual(f.admissionWebhookServiceAddresses, { 'a.hooks.svc': '127.0.0.1:8443', 'b.hooks.svc:9443': '[::1]:9443', 'c.hooks.svc': '10.0.0.7:443' })
  })
  it('refuses an address without a port', async () => {
    const { parseFlags } = await import('../../../bin/flags.js')
    assert.throws(() => parseFlags(['--admission-webhook-service-address', 'a.hooks.svc=127.0.0.1'], {}), /want <name>.<namespace>.svc\[:port\]=host:port/)
  })
})
