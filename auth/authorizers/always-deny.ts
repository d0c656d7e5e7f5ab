import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

export default fp(async function alwaysDeny (fastify: FastifyInstance) {
  fastify.authz.add('AlwaysDeny', () => ({ decision: 'Deny', reason: 'Everything is forbidden.' }),
    () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }))
}, { name: 'authz:always-deny', dependencies: ['authz'] })
