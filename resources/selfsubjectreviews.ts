// SelfSubjectReview (authentication v1, create only, never stored): who am I? Answers the
// caller's own user info, as authentication (and impersonation) left it (`kubectl auth whoami`).
import { Type } from '@sinclair/typebox'
import { defineResource } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { message } from './protobuf.js'
import { UserInfoSchema } from './tokenreviews.js'

const schema = objectSchema(`${GROUPS.authentication}/v1`, 'SelfSubjectReview', {
  status: Type.Optional(Type.Object({
    userInfo: Type.Optional(UserInfoSchema)
  }, { additionalProperties: false, ...message('SelfSubjectReviewStatus', { userInfo: 1 }) }))
}, 'SelfSubjectReview contains the user information that the server has about the caller.', { status: 2 })

export default defineResource({
  group: GROUPS.authentication,
  version: 'v1',
  kind: 'SelfSubjectReview',
  plural: 'selfsubjectreviews',
  singular: 'selfsubjectreview',
  scope: 'Cluster',
  schema,
  virtual: {
    async create (_body, ctx) {
      const userInfo: Record<string, unknown> = { username: ctx.user.username }
      if (ctx.user.uid !== undefined && ctx.user.uid !== '') userInfo.uid = ctx.user.uid
      if (ctx.user.groups.length > 0) userInfo.groups = [...ctx.user.groups]
      if (ctx.user.extra !== undefined && Object.keys(ctx.user.extra).length > 0) userInfo.extra = structuredClone(ctx.user.extra)
      return { metadata: { creationTimestamp: null }, status: { userInfo } }
    }
  },
  example: {
    metadata: { name: 'who-am-i' }
  }
})
