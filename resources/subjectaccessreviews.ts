// SubjectAccessReview (authorization v1, create only, never stored): may this user do this?
import { Type } from '@sinclair/typebox'
import { defineResource } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import {
  NonResourceAttributes, ResourceAttributes, review, specOf, SubjectAccessReviewStatus, SubjectFields, subjectOf,
  throwIfInvalid, validateAttributesChoice, validateSubject
} from './access-review.js'

const schema = objectSchema(`${GROUPS.authorization}/v1`, 'SubjectAccessReview', {
  spec: Type.Object({
    resourceAttributes: Type.Optional(ResourceAttributes),
    nonResourceAttributes: Type.Optional(NonResourceAttributes),
    ...SubjectFields
  }, { additionalProperties: false }),
  status: Type.Optional(SubjectAccessReviewStatus)
}, 'SubjectAccessReview checks whether a user or group may perform an action.')

export default defineResource({
  group: GROUPS.authorization,
  version: 'v1',
  kind: 'SubjectAccessReview',
  plural: 'subjectaccessreviews',
  singular: 'subjectaccessreview',
  scope: 'Cluster',
  schema,
  virtual: {
    async create (body, ctx) {
      const spec = specOf(body)
      throwIfInvalid('SubjectAccessReview', [...validateAttributesChoice(spec), ...validateSubject(spec)])
      return await review(body, spec, subjectOf(spec), ctx)
    }
  }
})
