import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

export default fp(async function alwaysAllow (fastify: FastifyInstance) {
  fastify.authz.add('AlwaysAllow', () => ({ decision: 'Allow' }), () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false
  }))
}, { name: 'authz:always-allow', dependencies: ['authz'] })
