// StorageObjectInUseProtection: new claims and volumes carry the protection finalizer, so they
// stay until the protection controller sees them unused.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { FINALIZERS } from '../resources/naming.js'

const FINALIZER_OF: Record<string, string> = {
  persistentvolumeclaims: FINALIZERS.pvcProtection,
  persistentvolumes: FINALIZERS.pvProtection
}

export default fp(async function storageObjectInUseProtection (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'StorageObjectInUseProtection',
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && a.resource.group === '' && FINALIZER_OF[a.resource.plural] !== undefined,
    mutate (a) {
      const obj = a.object
      if (obj === undefined) return
      const finalizer = FINALIZER_OF[a.resource.plural]!
      obj.metadata ??= {}
      const finalizers: string[] = obj.metadata.finalizers ?? []
      if (!finalizers.includes(finalizer)) obj.metadata.finalizers = [...finalizers, finalizer]
    }
  })
}, { name: 'admission:storage-object-in-use-protection', dependencies: ['admission'] })
