// LocalSubjectAccessReview (authorization v1, create only, never stored): may this user do this
// in this namespace? The namespace of the review must be the one in the path.
import { defineResource } from './define.js'
import { GROUPS } from './naming.js'
import { badRequest } from './status.js'
import { review, specOf, subjectAccessReviewSchema, subjectOf, throwIfInvalid, validateAttributesChoice, validateSubject } from './access-review.js'

const schema = subjectAccessReviewSchema('LocalSubjectAccessReview', 'LocalSubjectAccessReview checks whether a user or group may perform an action in one namespace.')

export default defineResource({
  group: GROUPS.authorization,
  version: 'v1',
  kind: 'LocalSubjectAccessReview',
  plural: 'localsubjectaccessreviews',
  singular: 'localsubjectaccessreview',
  scope: 'Namespaced',
  schema,
  virtual: {
    async create (body, ctx) {
      const spec = specOf(body)
      const metaNamespace = body.metadata?.namespace
      if (typeof metaNamespace === 'string' && metaNamespace !== '' && metaNamespace !== ctx.namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request')
      }
      const errors = [...validateAttributesChoice(spec), ...validateSubject(spec)]
      if (spec.nonResourceAttributes != null) errors.push({ type: 'Invalid', field: 'spec.nonResourceAttributes', value: spec.nonResourceAttributes, detail: 'disallowed on this kind of request' })
      throwIfInvalid('LocalSubjectAccessReview', errors)
      if ((spec.resourceAttributes?.namespace ?? '') !== ctx.namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${ctx.namespace}`)
      const answer = await review(body, spec, subjectOf(spec), ctx)
      return { ...answer, metadata: { ...answer.metadata, namespace: ctx.namespace } }
    }
  },
  example: {
    metadata: { name: 'can-jane-get-pods' },
    spec: { user: 'jane', resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } }
  }
})
