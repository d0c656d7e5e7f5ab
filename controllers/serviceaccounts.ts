// Service-account controller: every active namespace has a `default` service account.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { SERVICE_ACCOUNTS } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import { CONTROLLER_WRITE, controllerCaller, controllerLoop } from './loop.js'

export default fp(async function serviceAccountController (fastify: FastifyInstance) {
  const namespaces = () => fastify.resources.find({ group: '', resource: 'namespaces' })!
  const accounts = () => fastify.resources.find({ group: '', resource: 'serviceaccounts' })!
  controllerLoop(fastify, {
    name: 'serviceaccount',
    watch: () => [namespaces(), accounts()],
    async sync () {
      const store = accounts()
      for (const ns of namespaces().cachedObjects()) {
        if (ns.metadata?.deletionTimestamp != null) continue
        const name: string = ns.metadata.name
        if (store.cachedObject(name, SERVICE_ACCOUNTS.defaultName) !== undefined) continue
        try {
          await store.create(name, { metadata: { name: SERVICE_ACCOUNTS.defaultName } }, CONTROLLER_WRITE, controllerCaller('service-account-controller'))
        } catch (err) {
          // Exists already (cache behind) or the namespace began terminating meanwhile.
          if (!(err instanceof ApiError && (err.code === 409 || err.code === 403 || err.code === 404))) throw err
        }
      }
      return undefined
    }
  })
}, { name: 'controller:serviceaccount', dependencies: ['rest'] })
