// SelfSubjectRulesReview (authorization v1, create only, never stored): what may I do in this
// namespace? Incomplete when an authorization mode cannot list its rules.
import { Type } from '@sinclair/typebox'
import { defineResource } from './define.js'
import { objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { badRequest } from './status.js'
import { keepZero, message } from './protobuf.js'

const Strings = () => Type.Array(Type.String())

const schema = objectSchema(`${GROUPS.authorization}/v1`, 'SelfSubjectRulesReview', {
  spec: Type.Object({ namespace: Type.Optional(Type.String()) }, { additionalProperties: false, ...message('SelfSubjectRulesReviewSpec', { namespace: 1 }) }),
  status: Type.Optional(Type.Object({
    resourceRules: Type.Array(Type.Object({
      verbs: Strings(), apiGroups: Type.Optional(Strings()), resources: Type.Optional(Strings()), resourceNames: Type.Optional(Strings())
    }, { additionalProperties: false, ...message('ResourceRule', { verbs: 1, apiGroups: 2, resources: 3, resourceNames: 4 }) })),
    nonResourceRules: Type.Array(Type.Object({ verbs: Strings(), nonResourceURLs: Type.Optional(Strings()) }, { additionalProperties: false, ...message('NonResourceRule', { verbs: 1, nonResourceURLs: 2 }) })),
    incomplete: Type.Boolean(),
    evaluationError: Type.Optional(Type.String())
  }, { additionalProperties: false, ...message('SubjectRulesReviewStatus', { resourceRules: 1, nonResourceRules: 2, incomplete: keepZero(3), evaluationError: 4 }) }))
}, 'SelfSubjectRulesReview lists what the caller may do in a namespace.', { spec: 2, status: 3 })

export default defineResource({
  group: GROUPS.authorization,
  version: 'v1',
  kind: 'SelfSubjectRulesReview',
  plural: 'selfsubjectrulesreviews',
  singular: 'selfsubjectrulesreview',
  scope: 'Cluster',
  schema,
  virtual: {
    async create (body, ctx) {
      const namespace = body.spec?.namespace
      if (typeof namespace !== 'string' || namespace === '') throw badRequest('no namespace on request')
      const rules = await ctx.rules(ctx.user, namespace)
      const status: Record<string, unknown> = { resourceRules: rules.resourceRules, nonResourceRules: rules.nonResourceRules, incomplete: rules.incomplete }
      if (rules.evaluationError !== undefined) status.evaluationError = rules.evaluationError
      return { metadata: { ...(body.metadata ?? {}) }, spec: body.spec, status }
    }
  },
  example: {
    metadata: { name: 'my-rules' },
    spec: { namespace: 'default' }
  }
})
