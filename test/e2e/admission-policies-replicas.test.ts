// Two server processes on one database: an admission policy written through one replica is
// enforced by the other within moments, from its own watch cache, and a change made through the
// other is enforced by the first. Validating and mutating policies alike.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { startServer } from '../helpers/server.js'
import { eventually } from '../helpers/eventually.js'

const KUBECTL = '1.33'
const V1 = 'admissionregistration.svc.io/v1'
const V1ALPHA1 = 'admissionregistration.svc.io/v1alpha1'
const ARGS = ['--feature-gates', 'MutatingAdmissionPolicy=true', '--runtime-config', `${V1ALPHA1}=true`]

const configMap = (name: string, data: Record<string, string> = {}): string =>
  stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data })

test('admission policies written through one replica are enforced by the other', { skip: hasKubectl(KUBECTL) ? false : `kubectl ${KUBECTL} is not installed` }, async (t) => {
  const a = await startServer(t, ARGS)
  const b = await startServer(t, [...ARGS, '--storage-url', a.databaseUrl, '--cert-dir', join(a.dataDir, 'pki')])
  const onA = kubectlFor({ kubeconfig: a.kubeconfig, version: KUBECTL, home: join(a.dataDir, 'home') })
  const onB = kubectlFor({ kubeconfig: b.kubeconfig, version: KUBECTL, home: join(b.dataDir, 'home') })

  await onA.ok(['apply', '-f', '-'], [
    {
      apiVersion: V1,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'no-secrets-in-configmaps' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
        validations: [{ expression: "!has(object.data) || !('password' in object.data)", message: 'a ConfigMap may not hold a password' }]
      }
    },
    { apiVersion: V1, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'no-secrets-in-configmaps' }, spec: { policyName: 'no-secrets-in-configmaps', validationActions: ['Deny'] } }
  ].map(d => stringify(d)).join('---\n'))

  // B, which took no part in the write, refuses what the policy forbids.
  await eventually(async () => {
    const refused = await onB.run(['create', '-f', '-'], configMap('leaky', { password: 'hunter2' }))
    assert.notEqual(refused.code, 0, 'B created a ConfigMap the policy forbids')
    assert.match(refused.stderr, /ValidatingAdmissionPolicy 'no-secrets-in-configmaps' with binding 'no-secrets-in-configmaps' denied request: a ConfigMap may not hold a password/)
  }, 5_000, 200)
  assert.equal(await onB.ok(['create', '-f', '-'], configMap('harmless', { colour: 'blue' })), 'configmap/harmless created\n')

  // Changed through B, the policy's new rule holds on A.
  await onB.ok(['patch', 'validatingadmissionpolicy', 'no-secrets-in-configmaps', '--type=json', '-p',
    JSON.stringify([{ op: 'replace', path: '/spec/validations/0/expression', value: "!has(object.data) || !('token' in object.data)" }])])
  await eventually(async () => {
    const refused = await onA.run(['create', '-f', '-'], configMap('tokened', { token: 'abc' }))
    assert.notEqual(refused.code, 0, 'A created a ConfigMap the changed policy forbids')
    assert.match(refused.stderr, /denied request: a ConfigMap may not hold a password/)
  }, 5_000, 200)
  assert.equal(await onA.ok(['create', '-f', '-'], configMap('was-leaky', { password: 'now allowed' })), 'configmap/was-leaky created\n')

  // A mutating policy written through B labels what A creates.
  await onB.ok(['apply', '-f', '-'], [
    {
      apiVersion: V1ALPHA1,
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: 'owner-label' },
      spec: {
        failurePolicy: 'Fail',
        reinvocationPolicy: 'Never',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"owner": "platform"}}}' } }]
      }
    },
    { apiVersion: V1ALPHA1, kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'owner-label' }, spec: { policyName: 'owner-label' } }
  ].map(d => stringify(d)).join('---\n'))
  let n = 0
  await eventually(async () => {
    const name = `labelled-${n++}`
    await onA.ok(['create', '-f', '-'], configMap(name))
    assert.equal(await onA.ok(['get', 'configmap', name, '-o', 'jsonpath={.metadata.labels.owner}']), 'platform')
  }, 5_000, 200)
})
