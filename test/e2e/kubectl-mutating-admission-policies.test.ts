// kubectl 1.33 against the real server with MutatingAdmissionPolicy turned on (its feature gate
// and its group version): `kubectl apply -f` of a policy and its binding, then a ConfigMap
// created afterwards carries the label and annotation the policy's two mutations add.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { startServer } from '../helpers/server.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { eventually } from '../helpers/eventually.js'

const KUBECTL = '1.33'
const AR = 'admissionregistration.svc.io/v1alpha1'

test('kubectl: a MutatingAdmissionPolicy labels new ConfigMaps', { skip: hasKubectl(KUBECTL) ? false : `kubectl ${KUBECTL} is not installed` }, async (t) => {
  const server = await startServer(t, ['--feature-gates', 'MutatingAdmissionPolicy=true', '--runtime-config', `${AR}=true`])
  const kubectl = (...args: string[]) => kubectlFor({ kubeconfig: server.kubeconfig, version: KUBECTL }).check(args)
  const file = join(server.dataDir, 'mutating-policy.yaml')
  writeFileSync(file, [
    {
      apiVersion: AR,
      kind: 'MutatingAdmissionPolicy',
      metadata: { name: 'team-label' },
      spec: {
        failurePolicy: 'Fail',
        reinvocationPolicy: 'IfNeeded',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        matchConditions: [{ name: 'not-system', expression: '!object.metadata.name.startsWith("kube-")' }],
        mutations: [
          { patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "blue"}}}' } },
          { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"mutated-by": "team-label"}}]' } }
        ]
      }
    },
    { apiVersion: AR, kind: 'MutatingAdmissionPolicyBinding', metadata: { name: 'team-label' }, spec: { policyName: 'team-label' } }
  ].map(d => stringify(d)).join('---\n'))

  const applied = await kubectl('apply', '-f', file)
  assert.match(applied.stdout, /mutatingadmissionpolicy.admissionregistration.svc.io\/team-label created/)
  assert.match(applied.stdout, /mutatingadmissionpolicybinding.admissionregistration.svc.io\/team-label created/)
  assert.match((await kubectl('get', 'mutatingadmissionpolicies')).stdout, /^team-label\s+/m)

  // In force as soon as the watch cache has the binding (about a second).
  await eventually(async () => {
    await kubectl('create', 'configmap', `settings-${Date.now()}`, '--from-literal=a=b')
    const shown = JSON.parse((await kubectl('get', 'configmaps', '-o', 'json')).stdout)
    const made = shown.items.filter((c: { metadata: { name: string } }) => c.metadata.name.startsWith('settings-'))
    const last = made[made.length - 1]
    assert.equal(last.metadata.labels?.team, 'blue')
    assert.equal(last.metadata.annotations?.['mutated-by'], 'team-label')
  })
})
