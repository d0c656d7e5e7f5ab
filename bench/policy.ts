// The `policy` workload's ValidatingAdmissionPolicy: three expressions, all true for the bench's
// creates, bound to one namespace.
import { LABELS } from '../resources/naming.js'

export const BENCH_POLICY = {
  metadata: { name: 'bench-three-expressions' },
  spec: {
    matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
    validations: [
      { expression: "object.metadata.name.startsWith('pp')" },
      { expression: 'size(object.data) <= 64' },
      { expression: "request.userInfo.username != '' && !has(object.metadata.finalizers)" }
    ]
  }
}

export const benchPolicyBinding = (namespace: string): object => ({
  metadata: { name: BENCH_POLICY.metadata.name },
  spec: { policyName: BENCH_POLICY.metadata.name, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { [LABELS.namespaceName]: namespace } } } }
})
