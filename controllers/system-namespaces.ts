// The namespaces every cluster has: created at start when missing.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { CONTROLLER_USER, NAMESPACES } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'

export default fp(async function systemNamespaces (fastify: FastifyInstance) {
  fastify.addHook('onReady', async () => {
    const store = fastify.resources.find({ group: '', resource: 'namespaces' })!
    for (const name of Object.values(NAMESPACES)) {
      try {
        await store.create('', { metadata: { name } }, { dryRun: false, fieldValidation: 'Strict', force: false },
          { user: { ...CONTROLLER_USER, groups: [...CONTROLLER_USER.groups] }, manager: 'system-namespaces', warnings: [] })
      } catch (err) {
        if (!(err instanceof ApiError && err.code === 409)) throw err
      }
    }
  })
}, { name: 'controller:system-namespaces', dependencies: ['rest'] })
