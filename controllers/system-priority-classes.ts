// The system priority classes every cluster has: created at start when missing, as the
// reference server's scheduling post-start hook does.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { CONTROLLER_USER, GROUPS } from '../resources/naming.js'
import { SYSTEM_PRIORITY_CLASSES } from '../resources/priorityclasses.js'
import { ApiError } from '../resources/status.js'

export default fp(async function systemPriorityClasses (fastify: FastifyInstance) {
  fastify.addHook('onReady', async () => {
    const store = fastify.resources.find({ group: GROUPS.scheduling, resource: 'priorityclasses' })!
    for (const c of SYSTEM_PRIORITY_CLASSES) {
      try {
        await store.create('', { metadata: { name: c.name }, value: c.value, description: c.description }, { dryRun: false, fieldValidation: 'Strict', force: false },
          { user: { ...CONTROLLER_USER, groups: [...CONTROLLER_USER.groups] }, manager: 'system-priority-classes', warnings: [] })
      } catch (err) {
        // Made by this server's earlier start or by another replica.
        if (!(err instanceof ApiError && err.code === 409)) throw err
      }
    }
  })
}, { name: 'controller:system-priority-classes', dependencies: ['rest'] })
