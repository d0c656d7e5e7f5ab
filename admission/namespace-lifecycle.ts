// NamespaceLifecycle: no new objects in missing or terminating namespaces, and the system
// namespaces cannot be deleted.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ApiError, forbidden, notFound } from '../resources/status.js'
import { PROTECTED_NAMESPACES } from '../resources/naming.js'

const NAMESPACES = { group: '', resource: 'namespaces' }
const isNamespace = (r: { group: string, plural: string }): boolean => r.group === '' && r.plural === 'namespaces'

export default fp(async function namespaceLifecycle (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'NamespaceLifecycle',
    handles: (a) => isNamespace(a.resource) ? a.operation === 'DELETE' : a.namespace !== '' && a.operation === 'CREATE',
    async validate (a) {
      if (isNamespace(a.resource)) {
        if (PROTECTED_NAMESPACES.includes(a.name)) throw forbidden(NAMESPACES, a.name, 'this namespace may not be deleted')
        return
      }
      const ns = await a.lookup({ group: '', resource: 'namespaces' }, '', a.namespace)
      if (ns === undefined) throw notFound(NAMESPACES, a.namespace)
      if (ns.status?.phase === 'Terminating' || ns.metadata?.deletionTimestamp) {
        const err = forbidden({ group: a.resource.group, resource: a.resource.plural }, a.name,
          `unable to create new content in namespace ${a.namespace} because it is being terminated`)
        err.status.details = { ...err.status.details, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }] }
        throw err as ApiError
      }
    }
  })
}, { name: 'admission:namespace-lifecycle', dependencies: ['admission'] })
