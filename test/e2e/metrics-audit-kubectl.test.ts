// The server process with the flags of issue 18, through kubectl: a group turned off by
// --runtime-config is gone from `kubectl api-resources`; the audit log names who created,
// changed and deleted an object and holds no Secret value; /metrics answers kubectl's raw GET.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { eventually } from '../helpers/eventually.js'
import { GROUPS } from '../../resources/naming.js'

const KUBECTL = '1.31'

test('kubectl: --runtime-config, the audit log and /metrics', { skip: hasKubectl(KUBECTL) ? false : 'kubectl 1.31 is not installed' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-e2e-'))
  const policy = join(dir, 'policy.yaml')
  const log = join(dir, 'audit.log')
  writeFileSync(policy, `apiVersion: ${GROUPS.audit}/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: None\n  verbs: [get, list, watch]\n- level: RequestResponse\n`)
  const server = await startServer(t, ['--runtime-config', `${GROUPS.storage}/v1=false`, '--audit-policy-file', policy, '--audit-log-path', log])
  const kubectl = (...args: string[]) => kubectlFor({ kubeconfig: server.kubeconfig, version: KUBECTL }).ok(args)

  const resources = await kubectl('api-resources', '-o', 'name')
  assert.match(resources, /^configmaps$/m)
  assert.match(resources, /\.rbac\.authorization\.svc\.io$/m)
  assert.doesNotMatch(resources, /storage\.svc\.io/)

  await kubectl('create', 'configmap', 'audited', '--from-literal=k=v1')
  await kubectl('patch', 'configmap', 'audited', '-p', '{"data":{"k":"v2"}}')
  await kubectl('delete', 'configmap', 'audited')
  await kubectl('create', 'secret', 'generic', 'pw', '--from-literal=password=correct-horse-battery')

  const events = await eventually(() => {
    const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l)) : []
    assert.ok(lines.some(e => e.objectRef?.resource === 'secrets'), 'the secret create is logged')
    return lines
  })
  const changes = events.filter(e => e.objectRef?.resource === 'configmaps')
  assert.deepEqual(changes.map(e => [e.verb, e.objectRef.name ?? '', e.responseStatus.code]), [['create', 'audited', 201], ['patch', 'audited', 200], ['delete', 'audited', 200]])
  // Who: the kubeconfig's client certificate user, on every change.
  const users = new Set(changes.map(e => e.user.username))
  assert.equal(users.size, 1)
  assert.ok(changes[0].user.groups.includes('system:masters'))
  const text = readFileSync(log, 'utf8')
  assert.equal(text.includes('correct-horse-battery'), false)
  assert.equal(text.includes(Buffer.from('correct-horse-battery').toString('base64')), false)

  const metrics = await kubectl('get', '--raw', '/metrics')
  assert.match(metrics, /^apiserver_request_total\{.*verb="POST".*resource="configmaps".*\} 1$/m)
})

test('kubectl prints the deprecation warning of an older version', { skip: hasKubectl(KUBECTL) ? false : 'kubectl 1.31 is not installed' }, async (t) => {
  const server = await startServer(t, ['--runtime-config', `${GROUPS.storage}/v1beta1=true`])
  const got = await kubectlFor({ kubeconfig: server.kubeconfig, version: KUBECTL }).check(['get', `csistoragecapacities.v1beta1.${GROUPS.storage}`])
  assert.match(got.stderr, new RegExp(`Warning: ${GROUPS.storage.replace(/\./g, '\\.')}/v1beta1 CSIStorageCapacity is deprecated in v1\\.24\\+, unavailable in v1\\.27\\+; use ${GROUPS.storage.replace(/\./g, '\\.')}/v1 CSIStorageCapacity`))
})
