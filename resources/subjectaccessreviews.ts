// SubjectAccessReview (authorization v1, create only, never stored): may this user do this?
import { defineResource } from './define.js'
import { GROUPS } from './naming.js'
import { review, specOf, subjectAccessReviewSchema, subjectOf, throwIfInvalid, validateAttributesChoice, validateSubject } from './access-review.js'

const schema = subjectAccessReviewSchema('SubjectAccessReview', 'SubjectAccessReview checks whether a user or group may perform an action.')

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
  },
  example: {
    metadata: { name: 'can-jane-list-pods' },
    spec: { user: 'jane', groups: ['developers'], resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } }
  }
})
