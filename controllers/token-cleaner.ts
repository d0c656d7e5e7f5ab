// Token cleaner: deletes bootstrap token secrets once their expiration has passed.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { NAMESPACES, SECRET_TYPES } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import { bootstrapExpiry } from '../auth/authenticators/bootstrap-token.js'
import { controllerCaller, controllerLoop } from './loop.js'

export default fp(async function tokenCleaner (fastify: FastifyInstance) {
  const secrets = () => fastify.resources.find({ group: '', resource: 'secrets' })!
  controllerLoop(fastify, {
    name: 'tokencleaner',
    watch: () => [{ store: secrets(), when: e => e.attrs.fields.type === SECRET_TYPES.bootstrapToken }],
    async sync () {
      const store = secrets()
      let next: number | undefined
      for (const secret of store.cachedObjects(NAMESPACES.system)) {
        if (secret.type !== SECRET_TYPES.bootstrapToken) continue
        const expiry = bootstrapExpiry(secret)
        if (expiry === undefined) continue
        const left = expiry - Date.now()
        if (left > 0) { next = Math.min(next ?? left, left); continue }
        try {
          await store.delete(NAMESPACES.system, secret.metadata.name,
            { dryRun: false, preconditions: { uid: secret.metadata.uid } }, controllerCaller('tokencleaner'))
        } catch (err) {
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err
        }
      }
      return next
    }
  })
}, { name: 'controller:tokencleaner', dependencies: ['rest'] })
