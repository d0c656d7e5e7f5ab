// kubectl against the real server with admission webhooks as a user sets them up: webhook
// configurations applied from a manifest, a real HTTPS webhook (its own CA, named by service and
// reached through --admission-webhook-service-address) that mutates, warns and refuses.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { runServer, startServer } from '../helpers/server.js'
import { freshDatabase } from '../helpers/postgres.js'
import { allow, patchOf, startAdmissionWebhook } from '../helpers/admission-webhook.js'
import { kubectlFor } from '../helpers/kubectl.js'

test('kubectl creates an object a mutating webhook changes, sees its warning, and is refused by a validating webhook', async (t) => {
  const hooks = await startAdmissionWebhook(t, ['policy.hooks.svc'])
  hooks.handle('/mutate', () => patchOf([{ op: 'add', path: '/metadata/labels', value: { 'stamped-by': 'webhook' } }]))
  hooks.handle('/validate', (review) => review.request.object?.data?.forbidden !== undefined
    ? { allowed: false, status: { code: 403, message: 'the key "forbidden" is not allowed' } }
    : allow({ warnings: ['configmaps are checked by policy.hooks.svc'] }))
  const server = await startServer(t, ['--admission-webhook-service-address', `policy.hooks.svc=127.0.0.1:${hooks.port}`])
  const kubectl = (...args: string[]) => kubectlFor({ kubeconfig: server.kubeconfig, version: '1.31' }).check(args)

  const webhook = (name: string, path: string) => ({
    name,
    clientConfig: { service: { namespace: 'hooks', name: 'policy', path }, caBundle: hooks.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1']
  })
  const manifest = join(server.dataDir, 'webhooks.yaml')
  writeFileSync(manifest, [
    stringify({ apiVersion: 'admissionregistration.svc.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'stamp' }, webhooks: [webhook('stamp.hooks.example.com', '/mutate')] }),
    stringify({ apiVersion: 'admissionregistration.svc.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'policy' }, webhooks: [webhook('policy.hooks.example.com', '/validate')] })
  ].join('---\n'))
  const applied = await kubectl('apply', '-f', manifest)
  assert.match(applied.stdout, /mutatingwebhookconfiguration.admissionregistration.svc.io\/stamp created/)
  assert.match(applied.stdout, /validatingwebhookconfiguration.admissionregistration.svc.io\/policy created/)
  assert.match((await kubectl('get', 'validatingwebhookconfigurations')).stdout, /^policy\s+1\s+/m)

  const created = await kubectl('create', 'configmap', 'settings', '--from-literal=mode=fast')
  assert.match(created.stdout, /configmap\/settings created/)
  assert.match(created.stderr, /Warning: configmaps are checked by policy.hooks.svc/)
  const got = JSON.parse((await kubectl('get', 'configmap', 'settings', '-o', 'json')).stdout)
  assert.equal(got.metadata.labels['stamped-by'], 'webhook')

  await assert.rejects(kubectl('create', 'configmap', 'bad', '--from-literal=forbidden=1'), (err: { stderr: string }) => {
    assert.match(err.stderr, /admission webhook "policy.hooks.example.com" denied the request: the key "forbidden" is not allowed/)
    return true
  })
  await assert.rejects(kubectl('get', 'configmap', 'bad'), /NotFound|not found/)
  assert.equal(hooks.on('/validate')[0]!.headers.host, 'policy.hooks.svc')
})

test('a malformed --admission-control-config-file stops the server at start with a message naming it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'admission-e2e-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'admission.yaml')
  writeFileSync(file, stringify({ apiVersion: 'apiserver.config.svc.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'ValidatingAdmissionWebhook' }] }))
  const child = runServer(['--data-dir', join(dir, 'data'), '--storage-url', await freshDatabase(t), '--admission-control-config-file', file])
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString() })
  const code = await new Promise<number | null>(resolve => child.once('exit', resolve))
  assert.equal(code, 1)
  assert.match(stderr, new RegExp(`error: --admission-control-config-file ${file}: plugins\\[0\\] \\(ValidatingAdmissionWebhook\\) needs exactly one of path or configuration`))
})
