// The authorization chain: system:masters ahead of every mode, then the modes in the configured
// order, the first Allow or Deny decides, and no opinion from any mode is 403.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helpers/app.js'

const cases: Array<{ name: string, modes: string[], as: 'admin' | 'bob', want: number }> = [
  { name: 'AlwaysDeny before AlwaysAllow denies', modes: ['AlwaysDeny', 'AlwaysAllow'], as: 'bob', want: 403 },
  { name: 'AlwaysAllow before AlwaysDeny allows', modes: ['AlwaysAllow', 'AlwaysDeny'], as: 'bob', want: 200 },
  { name: 'system:masters is allowed ahead of every mode, even AlwaysDeny', modes: ['AlwaysDeny', 'RBAC'], as: 'admin', want: 200 },
  { name: 'system:masters is allowed with AlwaysDeny alone', modes: ['AlwaysDeny'], as: 'admin', want: 200 },
  { name: 'no opinion from RBAC falls through to AlwaysAllow', modes: ['Node', 'RBAC', 'AlwaysAllow'], as: 'bob', want: 200 },
  { name: 'no opinion from every mode is 403', modes: ['Node', 'RBAC'], as: 'bob', want: 403 }
]

for (const c of cases) {
  test(c.name, async (t) => {
    const { request } = await buildTestApp(t, { authorizationModes: c.modes })
    const res = await request({ method: 'GET', url: '/api/v1/namespaces/default/configmaps', as: c.as })
    assert.equal(res.statusCode, c.want, res.body)
    if (c.want === 403) assert.equal(res.json().reason, 'Forbidden')
  })
}

test('AlwaysDeny reason is part of the 403 message', async (t) => {
  const { request } = await buildTestApp(t, { authorizationModes: ['AlwaysDeny'] })
  const res = await request({ method: 'GET', url: '/api/v1/namespaces', as: 'bob' })
  assert.equal(res.json().message, 'namespaces is forbidden: User "bob" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.')
})

test('an unknown mode stops the server from starting', async (t) => {
  await assert.rejects(buildTestApp(t, { authorizationModes: ['Magic'] }), /unknown authorization mode "Magic"/)
})

test('the server defaults to Node,RBAC with anonymous requests on, and parses the authorization flags', async () => {
  const { parseFlags } = await import('../../bin/flags.js')
  const defaults = parseFlags([], {})
  assert.deepEqual(defaults.authorizationModes, ['Node', 'RBAC'])
  assert.equal(defaults.anonymousAuth, true)
  assert.equal(defaults.authorizationWebhookVersion, 'v1beta1')
  assert.equal(defaults.authorizationWebhookCacheAuthorizedTtlMs, 300_000)
  assert.equal(defaults.authorizationWebhookCacheUnauthorizedTtlMs, 30_000)
  const f = parseFlags(['--authorization-mode=RBAC,Webhook', '--authorization-webhook-config-file', '/etc/wh.kubeconfig', '--authorization-webhook-version=v1',
    '--authorization-webhook-cache-authorized-ttl=1m', '--authorization-webhook-cache-unauthorized-ttl=5s', '--authorization-policy-file=/etc/abac.jsonl', '--anonymous-auth=false'], {})
  assert.deepEqual(f.authorizationModes, ['RBAC', 'Webhook'])
  assert.equal(f.authorizationWebhookConfigFile, '/etc/wh.kubeconfig')
  assert.equal(f.authorizationWebhookVersion, 'v1')
  assert.equal(f.authorizationWebhookCacheAuthorizedTtlMs, 60_000)
  assert.equal(f.authorizationWebhookCacheUnauthorizedTtlMs, 5000)
  assert.equal(f.authorizationPolicyFile, '/etc/abac.jsonl')
  assert.equal(f.anonymousAuth, false)
  assert.throws(() => parseFlags(['--authorization-webhook-version=v2'], {}), /must be v1 or v1beta1/)
})
