// NamespaceExists (off by default): a create, update or delete of a namespaced object in a
// namespace that does not exist is 404, naming the namespace.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { notFound } from '../resources/status.js'
import type { AdmissionAttributes } from '../resources/admission.js'

/** A request about an object inside a namespace (namespaces themselves are not). */
export const isNamespaced = (a: AdmissionAttributes): boolean =>
  a.namespace !== '' && !(a.resource.group === '' && a.resource.plural === 'namespaces')

export default fp(async function namespaceExists (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'NamespaceExists',
    handles: (a) => a.operation !== 'CONNECT' && isNamespaced(a),
    async validate (a) {
      // The look-up falls back to a consistent read when the cache lacks the namespace.
      if (await a.lookup({ group: '', resource: 'namespaces' }, '', a.namespace) === undefined) throw notFound({ group: '', resource: 'namespaces' }, a.namespace)
    }
  })
}, { name: 'admission:namespace-exists', dependencies: ['admission'] })
