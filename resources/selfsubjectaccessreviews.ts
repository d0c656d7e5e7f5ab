// SelfSubjectAccessReview (authorization v1, create only, never stored): may I do this?
import { Type } from '@sinclair/typebox'
import { defineResource } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { NonResourceAttributes, ResourceAttributes, review, specOf, SubjectAccessReviewStatus, throwIfInvalid, validateAttributesChoice } from './access-review.js'
import { message } from './protobuf.js'

const schema = objectSchema(`${GROUPS.authorization}/v1`, 'SelfSubjectAccessReview', {
  spec: Type.Object({
    resourceAttributes: Type.Optional(ResourceAttributes),
    nonResourceAttributes: Type.Optional(NonResourceAttributes)
  }, { additionalProperties: false, ...message('SelfSubjectAccessReviewSpec', { resourceAttributes: 1, nonResourceAttributes: 2 }) }),
  status: Type.Optional(SubjectAccessReviewStatus)
}, 'SelfSubjectAccessReview checks whether the caller may perform an action.', { spec: 2, status: 3 })

export default defineResource({
  group: GROUPS.authorization,
  version: 'v1',
  kind: 'SelfSubjectAccessReview',
  plural: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  scope: 'Cluster',
  schema,
  virtual: {
    async create (body, ctx) {
      const spec = specOf(body)
      throwIfInvalid('SelfSubjectAccessReview', validateAttributesChoice(spec))
      return await review(body, spec, ctx.user, ctx)
    }
  },
  example: {
    metadata: { name: 'can-i-list-pods' },
    spec: { resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } }
  }
})
