// ValidatingAdmissionPolicyBinding (admissionregistration.svc.io/v1, cluster scope): puts a
// ValidatingAdmissionPolicy in force for the requests its matchResources name (intersected with
// the policy's matchConstraints), with the parameter objects its paramRef finds and the actions
// (Deny, Warn, Audit) a failed validation takes.
import { Type } from '@sinclair/typebox'
import { defineResource, type AnyObject } from './define.js'
import { AGE_COLUMN, objectSchema } from './meta.js'
import { SetList } from './core-types.js'
import { GROUPS } from './naming.js'
import { keepZero, message } from './protobuf.js'
import { MatchResources, ParamRef, validateBindingSpec, validateValidationActions } from './admission-policy.js'

const opt = Type.Optional

const schema = objectSchema(`${GROUPS.admissionregistration}/v1`, 'ValidatingAdmissionPolicyBinding', {
  spec: opt(Type.Object({
    policyName: opt(Type.String()),
    paramRef: opt(ParamRef),
    matchResources: opt(MatchResources),
    validationActions: opt(SetList(Type.String(), { description: 'Deny, Warn and/or Audit (not both Deny and Warn).' }))
  }, { additionalProperties: false, default: {}, ...message('ValidatingAdmissionPolicyBindingSpec', { policyName: keepZero(1), paramRef: 2, matchResources: 3, validationActions: 4 }) }))
}, 'ValidatingAdmissionPolicyBinding binds a ValidatingAdmissionPolicy to the requests and parameters it applies to.', { spec: 2 })

function validate (b: AnyObject) {
  const spec = b.spec ?? {}
  const errors = validateBindingSpec(spec, 'spec.matchResouces')
  errors.push(...validateValidationActions(spec.validationActions, 'spec.validationActions'))
  return errors
}

/** The ParamRef column as the reference prints it: the namespace (or a star for every namespace) and name, or the selector. */
function paramRefText (b: AnyObject): string {
  const pr = b.spec?.paramRef
  if (pr == null) return '<unset>'
  if (typeof pr.name === 'string' && pr.name !== '') return `${pr.namespace != null && pr.namespace !== '' ? String(pr.namespace) : '*'}/${pr.name}`
  const labels = Object.entries(pr.selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${String(v)}`)
  return labels.length > 0 ? labels.join(',') : '<unset>'
}

export default defineResource({
  group: GROUPS.admissionregistration,
  version: 'v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  plural: 'validatingadmissionpolicybindings',
  singular: 'validatingadmissionpolicybinding',
  categories: ['api-extensions'],
  scope: 'Cluster',
  schema,
  generation: true,
  strategy: { validate },
  columns: [
    { name: 'PolicyName', type: 'string', description: 'PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding binds to.', value: (b: AnyObject) => b.spec?.policyName ?? '' },
    { name: 'ParamRef', type: 'string', description: 'ParamRef specifies the parameter resource used to configure the admission control policy.', value: paramRefText },
    AGE_COLUMN
  ],
  example: {
    metadata: { name: 'replica-limit-test' },
    spec: {
      policyName: 'replica-limit',
      validationActions: ['Deny'],
      paramRef: { name: 'replica-limit', namespace: 'default', parameterNotFoundAction: 'Deny' },
      matchResources: { namespaceSelector: { matchLabels: { environment: 'test' } } }
    }
  }
})
