// NamespaceAutoProvision (off by default): a create in a namespace that does not exist creates
// the namespace first, as the server itself (the reference server's loopback client), so the
// create goes on. A dry run creates nothing.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ApiError, forbidden } from '../resources/status.js'
import { SERVER_NAME } from '../resources/naming.js'
import { APISERVER_USER } from '../resources/user-info.js'
import { isNamespaced } from './namespace-exists.js'

export default fp(async function namespaceAutoProvision (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'NamespaceAutoProvision',
    handles: (a) => a.operation === 'CREATE' && isNamespaced(a),
    async mutate (a) {
      if (a.dryRun || await a.lookup({ group: '', resource: 'namespaces' }, '', a.namespace) !== undefined) return
      const namespaces = fastify.resources.find({ group: '', resource: 'namespaces' })!
      try {
        await namespaces.create('', { metadata: { name: a.namespace } }, { dryRun: false, fieldValidation: 'Strict', force: false },
          { user: { ...APISERVER_USER, groups: [...APISERVER_USER.groups] }, manager: SERVER_NAME, warnings: [] })
      } catch (err) {
        // Another request made it meanwhile.
        if (err instanceof ApiError && err.code === 409) return
        throw forbidden({ group: a.resource.group, resource: a.resource.plural }, a.name, err instanceof Error ? err.message : String(err))
      }
    }
  })
}, { name: 'admission:namespace-autoprovision', dependencies: ['admission'] })
