// TokenReview (authentication/v1): other components ask whether a bearer token is valid and who
// it stands for. A virtual kind: answered by the authentication chain, never stored.
import fp from 'fastify-plugin'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { defineResource, type AnyObject } from '../resources/define.js'
import { objectSchema } from '../resources/meta.js'
import { GROUPS } from '../resources/naming.js'
import { badRequest } from '../resources/status.js'

const UserInfo = Type.Object({
  username: Type.Optional(Type.String()),
  uid: Type.Optional(Type.String()),
  groups: Type.Optional(Type.Array(Type.String())),
  extra: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String())))
})

const schema = objectSchema(`${GROUPS.authentication}/v1`, 'TokenReview', {
  spec: Type.Object({
    token: Type.Optional(Type.String({ description: 'The opaque bearer token.' })),
    audiences: Type.Optional(Type.Array(Type.String(), { description: 'Audiences the token must be valid for; default the API audiences.' }))
  }),
  status: Type.Optional(Type.Object({
    authenticated: Type.Optional(Type.Boolean()),
    user: Type.Optional(UserInfo),
    audiences: Type.Optional(Type.Array(Type.String())),
    error: Type.Optional(Type.String())
  }))
}, 'TokenReview attempts to authenticate a token to a known user.')

export default fp(async function tokenReview (fastify: FastifyInstance) {
  const review = async (body: AnyObject): Promise<AnyObject> => {
    const token: string = body.spec?.token ?? ''
    if (token === '') throw badRequest('token is required for TokenReview in authentication')
    const audiences: string[] | undefined = body.spec?.audiences
    const answer = { ...body, metadata: { ...body.metadata, creationTimestamp: null } }
    try {
      const result = await fastify.authn.authenticateToken(token, audiences)
      if (result === undefined) return { ...answer, status: { user: {} } }
      const status: AnyObject = { authenticated: true, user: result.user }
      if (audiences !== undefined && audiences.length > 0) status.audiences = result.audiences
      return { ...answer, status }
    } catch (err) {
      return { ...answer, status: { user: {}, error: (err as Error).message } }
    }
  }
  fastify.resources.add(defineResource({
    group: GROUPS.authentication,
    version: 'v1',
    kind: 'TokenReview',
    plural: 'tokenreviews',
    singular: 'tokenreview',
    scope: 'Cluster',
    schema,
    verbs: ['create'],
    sensitive: true,
    virtual: { create: async (body) => await review(body) }
  }))
}, { name: 'token-review', dependencies: ['authn', 'rest'] })
