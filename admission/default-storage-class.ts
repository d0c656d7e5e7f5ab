// DefaultStorageClass: a claim created without a storage class gets the default one; with
// several defaults the claim is refused. Updates are left alone.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { ANNOTATIONS, GROUPS } from '../resources/naming.js'
import type { AnyObject } from '../resources/define.js'

const isDefault = (sc: AnyObject): boolean => sc.metadata?.annotations?.[ANNOTATIONS.defaultStorageClass] === 'true'

export default fp(async function defaultStorageClass (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'DefaultStorageClass',
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'persistentvolumeclaims',
    async mutate (a) {
      const claim = a.object
      // An explicit class, even "", is the claim's own choice.
      if (claim === undefined || typeof claim.spec?.storageClassName === 'string') return
      // A class created just before the claim counts: read up to the newest revision.
      const defaults = (await a.listConsistent({ group: GROUPS.storage, resource: 'storageclasses' })).filter(isDefault)
      if (defaults.length > 1) {
        throw forbidden({ group: '', resource: 'persistentvolumeclaims' }, a.name, `Internal error occurred: ${defaults.length} default StorageClasses were found`)
      }
      if (defaults.length === 0) return
      claim.spec ??= {}
      claim.spec.storageClassName = defaults[0]!.metadata.name
    }
  })
}, { name: 'admission:default-storage-class', dependencies: ['admission'] })
