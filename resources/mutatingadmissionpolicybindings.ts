// MutatingAdmissionPolicyBinding (admissionregistration.svc.io/v1alpha1, cluster scope; behind
// the MutatingAdmissionPolicy gate as its policy is): puts a MutatingAdmissionPolicy in force for
// the requests its matchResources name (intersected with the policy's matchConstraints), with the
// parameter objects its paramRef finds.
import { Type } from '@sinclair/typebox'
import { defineResource, type AnyObject } from './define.js'
import { AGE_COLUMN, objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { keepZero, message } from './protobuf.js'
import { MatchResources, ParamRef, validateBindingSpec, validateMutableOperations } from './admission-policy.js'

const opt = Type.Optional

const schema = objectSchema(`${GROUPS.admissionregistration}/v1alpha1`, 'MutatingAdmissionPolicyBinding', {
  spec: opt(Type.Object({
    policyName: opt(Type.String()),
    paramRef: opt(ParamRef),
    matchResources: opt(MatchResources)
  }, { additionalProperties: false, default: {}, ...message('MutatingAdmissionPolicyBindingSpec', { policyName: keepZero(1), paramRef: 2, matchResources: 3 }) }))
}, 'MutatingAdmissionPolicyBinding binds the MutatingAdmissionPolicy with parametrized resources.', { spec: 2 })

function validate (b: AnyObject) {
  const spec = b.spec ?? {}
  const errors = validateBindingSpec(spec, 'spec.matchResources')
  errors.push(...validateMutableOperations(spec.matchResources, 'spec.matchResources.resourceRules.operations'))
  return errors
}

export default defineResource({
  group: GROUPS.admissionregistration,
  version: 'v1alpha1',
  kind: 'MutatingAdmissionPolicyBinding',
  plural: 'mutatingadmissionpolicybindings',
  singular: 'mutatingadmissionpolicybinding',
  categories: ['api-extensions'],
  scope: 'Cluster',
  schema,
  generation: true,
  featureGate: 'MutatingAdmissionPolicy',
  strategy: { validate },
  columns: [AGE_COLUMN],
  example: {
    metadata: { name: 'sidecar-label' },
    spec: { policyName: 'sidecar-label', matchResources: { namespaceSelector: { matchLabels: { environment: 'test' } } } }
  }
})
