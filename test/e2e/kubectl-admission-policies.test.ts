// kubectl 1.33 against the real server with admission policies as a new user sets them up: a
// policy with a parameter ConfigMap refuses a Deployment with too many replicas (the message
// naming policy and binding), a Warn binding warns, an Audit binding writes the audit log, a
// change to the parameter or the policy is in force at once, and a webhook whose matchCondition
// excludes `system:` users is not called for them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { startServer } from '../helpers/server.js'
import { startAdmissionWebhook } from '../helpers/admission-webhook.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { eventually } from '../helpers/eventually.js'
import { GROUPS } from '../../resources/naming.js'

const KUBECTL = '1.33'
const AR = 'admissionregistration.svc.io/v1'
const AUDIT_POLICY = `apiVersion: ${GROUPS.audit}/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: None\n  verbs: [get, list, watch]\n- level: Metadata\n`

test('kubectl: admission policies and webhook matchConditions', { skip: hasKubectl(KUBECTL) ? false : `kubectl ${KUBECTL} is not installed` }, async (t) => {
  const hooks = await startAdmissionWebhook(t)
  hooks.handle('/refuse', () => ({ allowed: false, status: { code: 403, message: 'refused by the webhook' } }))
  const dir = mkdtempSync(join(tmpdir(), 'policies-e2e-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const policyFile = join(dir, 'audit-policy.yaml')
  writeFileSync(policyFile, AUDIT_POLICY)
  const auditLog = join(dir, 'audit.log')
  const server = await startServer(t, ['--audit-policy-file', policyFile, '--audit-log-path', auditLog])
  const kubectl = (...args: string[]) => kubectlFor({ kubeconfig: server.kubeconfig, version: KUBECTL }).check(args)
  const manifest = (name: string, docs: object[]): string => {
    const file = join(server.dataDir, name)
    writeFileSync(file, docs.map(d => stringify(d)).join('---\n'))
    return file
  }

  const applied = await kubectl('apply', '-f', manifest('replicas.yaml', [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'replica-limits', namespace: 'default' }, data: { maxReplicas: '3' } },
    {
      apiVersion: AR,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'replica-limit' },
      spec: {
        failurePolicy: 'Fail',
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] },
        validations: [{ expression: 'object.spec.replicas <= int(params.data.maxReplicas)', messageExpression: "'replicas must be no greater than ' + params.data.maxReplicas" }]
      }
    },
    {
      apiVersion: AR,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'replica-limit-binding' },
      spec: { policyName: 'replica-limit', validationActions: ['Deny'], paramRef: { name: 'replica-limits', namespace: 'default', parameterNotFoundAction: 'Deny' } }
    }
  ]))
  assert.match(applied.stdout, /validatingadmissionpolicy.admissionregistration.svc.io\/replica-limit created/)
  assert.match(applied.stdout, /validatingadmissionpolicybinding.admissionregistration.svc.io\/replica-limit-binding created/)
  assert.match((await kubectl('get', 'validatingadmissionpolicies')).stdout, /^replica-limit\s+1\s+v1\/ConfigMap\s+/m)
  assert.match((await kubectl('get', 'validatingadmissionpolicybindings')).stdout, /^replica-limit-binding\s+replica-limit\s+default\/replica-limits\s+/m)

  await assert.rejects(kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=5'), (err: { stderr: string }) => {
    assert.match(err.stderr, /ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: replicas must be no greater than 3/)
    return true
  })
  assert.match((await kubectl('create', 'deployment', 'small', '--image=nginx', '--replicas=2')).stdout, /deployment.apps\/small created/)

  // The parameter changed: in force at once.
  await kubectl('patch', 'configmap', 'replica-limits', '-p', '{"data":{"maxReplicas":"10"}}')
  assert.match((await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=5')).stdout, /deployment.apps\/web created/)
  // The policy changed: in force at once too.
  await kubectl('patch', 'validatingadmissionpolicy', 'replica-limit', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/validations/0/expression', value: 'object.spec.replicas <= 1' }]))
  // (Not through /scale: the rule names deployments, not deployments/scale, as in the reference.)
  await assert.rejects(kubectl('patch', 'deployment', 'web', '-p', '{"spec":{"replicas":4}}'), /denied request: replicas must be no greater than 10/)
  // The type check of the changed policy: no warning, of its second generation.
  await eventually(async () => assert.match((await kubectl('get', 'validatingadmissionpolicy', 'replica-limit', '-o', 'yaml')).stdout, /status:\n {2}observedGeneration: 2\n {2}typeChecking: \{\}\n/))
  // A field Deployments do not have is warned of.
  await kubectl('patch', 'validatingadmissionpolicy', 'replica-limit', '--type=json', '-p', JSON.stringify([{ op: 'replace', path: '/spec/validations/0/expression', value: 'object.spec.replica <= 1' }]))
  await eventually(async () => {
    const { stdout } = await kubectl('get', 'validatingadmissionpolicy', 'replica-limit', '-o', 'yaml')
    assert.match(stdout, / {2}observedGeneration: 3\n {2}typeChecking:\n {4}expressionWarnings:\n {4}- fieldRef: spec.validations\[0\].expression\n {6}warning: \|\n {8}apps\/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'\n/)
  })

  // Warn and Audit bindings of a policy on ConfigMaps.
  await kubectl('apply', '-f', manifest('labels.yaml', [
    {
      apiVersion: AR,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'require-team' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: 'configmaps need a team label' }]
      }
    },
    { apiVersion: AR, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'require-team-warn' }, spec: { policyName: 'require-team', validationActions: ['Warn', 'Audit'] } }
  ]))
  const warned = await kubectl('create', 'configmap', 'no-team', '--from-literal=a=1')
  assert.match(warned.stdout, /configmap\/no-team created/)
  assert.match(warned.stderr, /Warning: Validation failed for ValidatingAdmissionPolicy 'require-team' with binding 'require-team-warn': configmaps need a team label/)
  const event = await eventually(() => {
    const lines = existsSync(auditLog) ? readFileSync(auditLog, 'utf8').split('\n').filter(l => l !== '').map(l => JSON.parse(l)) : []
    const e = lines.find(l => l.objectRef?.resource === 'configmaps' && l.objectRef?.name === 'no-team' && l.stage === 'ResponseComplete')
    assert.ok(e, 'the create is logged')
    return e
  })
  const failure = JSON.parse(event.annotations['validation.policy.admission.svc.io/validation_failure'])
  assert.deepEqual(failure, [{ message: 'configmaps need a team label', policy: 'require-team', binding: 'require-team-warn', expressionIndex: 0, validationActions: ['Warn', 'Audit'] }])

  // A webhook that refuses every ConfigMap, but not for system: users.
  await kubectl('apply', '-f', manifest('webhook.yaml', [{
    apiVersion: AR,
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'refuse-people' },
    webhooks: [{
      name: 'refuse.hooks.example.com',
      clientConfig: { url: `${hooks.base}/refuse`, caBundle: hooks.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      matchConditions: [{ name: 'exclude-system-users', expression: "!request.userInfo.username.startsWith('system:')" }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1']
    }]
  }]))
  assert.match((await kubectl('create', 'configmap', 'by-system', '--from-literal=a=1', '--as=system:robot', '--as-group=system:masters')).stdout, /configmap\/by-system created/)
  assert.equal(hooks.on('/refuse').length, 0)
  await assert.rejects(kubectl('create', 'configmap', 'by-admin', '--from-literal=a=1'), /admission webhook "refuse.hooks.example.com" denied the request: refused by the webhook/)
  assert.equal(hooks.on('/refuse').length, 1)
})

