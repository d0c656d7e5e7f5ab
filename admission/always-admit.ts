// AlwaysAdmit (deprecated, off by default): admits every request, which is what an empty chain
// does already; enabling it only earns the reference server's deprecation warning at start.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

export default fp(async function alwaysAdmit (fastify: FastifyInstance) {
  // Admitting everything needs no look at any request.
  fastify.admission.add({ name: 'AlwaysAdmit', handles: () => false })
}, { name: 'admission:always-admit', dependencies: ['admission'] })
