// TokenReview (authentication v1, create only, never stored): other components ask whether a
// bearer token is valid and who it stands for; the server's authentication chain answers.
import { Type } from '@sinclair/typebox'
import { defineResource, type AnyObject } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { message } from './protobuf.js'
import { badRequest } from './status.js'

/** authentication/v1 UserInfo: what TokenReview and SelfSubjectReview answer of a user. */
export const UserInfoSchema = Type.Object({
  username: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  groups: Type.Optional(Type.Array(Type.String())),
  extra: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String())))
}, { additionalProperties: false, ...message('UserInfo', { username: 1, uid: 2, groups: 3, extra: { number: 4, listMessage: 'ExtraValue' } }) })

const schema = objectSchema(`${GROUPS.authentication}/v1`, 'TokenReview', {
  spec: Type.Object({
    token: Type.Optional(Type.String({ description: 'The opaque bearer token.' })),
    audiences: Type.Optional(Type.Array(Type.String(), { description: 'Audiences the token must be valid for; default the API audiences.' }))
  }, { ...message('TokenReviewSpec', { token: 1, audiences: 2 }) }),
  status: Type.Optional(Type.Object({
    authenticated: Type.Optional(Type.Boolean()),
    user: Type.Optional(UserInfoSchema),
    audiences: Type.Optional(Type.Array(Type.String())),
    error: Type.Optional(Type.String())
  }, { ...message('TokenReviewStatus', { authenticated: 1, user: 2, error: 3, audiences: 4 }) }))
}, 'TokenReview attempts to authenticate a token to a known user.', { spec: 2, status: 3 })

export default defineResource({
  group: GROUPS.authentication,
  version: 'v1',
  kind: 'TokenReview',
  plural: 'tokenreviews',
  singular: 'tokenreview',
  scope: 'Cluster',
  schema,
  verbs: ['create'],
  sensitive: true,
  virtual: {
    async create (body, ctx) {
      const token: string = body.spec?.token ?? ''
      if (token === '') throw badRequest('token is required for TokenReview in authentication')
      const audiences: string[] | undefined = body.spec?.audiences
      const answer = { ...body, metadata: { ...body.metadata, creationTimestamp: null } }
      try {
        const result = await ctx.authenticateToken(token, audiences)
        if (result === undefined) return { ...answer, status: { user: {} } }
        const status: AnyObject = { authenticated: true, user: result.user }
        if (audiences !== undefined && audiences.length > 0) status.audiences = result.audiences
        return { ...answer, status }
      } catch (err) {
        return { ...answer, status: { user: {}, error: (err as Error).message } }
      }
    }
  },
  example: {
    metadata: { name: 'is-this-token-valid' },
    spec: { token: 'a-token-no-authenticator-knows' }
  }
})
