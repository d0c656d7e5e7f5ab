// PersistentVolumeClaimResize: a claim may grow only when bound and when its class allows expansion.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { GROUPS } from '../resources/naming.js'
import { compareQuantities } from '../resources/quantity.js'

const CLAIMS = { group: '', resource: 'persistentvolumeclaims' }

export default fp(async function persistentVolumeClaimResize (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'PersistentVolumeClaimResize',
    handles: (a) => a.operation === 'UPDATE' && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'persistentvolumeclaims',
    async validate (a) {
      const claim = a.object
      const old = a.oldObject
      if (claim === undefined || old === undefined) return
      if (compareQuantities(claim.spec?.resources?.requests?.storage, old.spec?.resources?.requests?.storage) <= 0) return
      if (old.status?.phase !== 'Bound') throw forbidden(CLAIMS, a.name, 'Only bound persistent volume claims can be expanded')
      const className: string = claim.spec?.storageClassName ?? ''
      const allowed = className !== '' && className === (old.spec?.storageClassName ?? '') &&
        (await a.lookup({ group: GROUPS.storage, resource: 'storageclasses' }, '', className))?.allowVolumeExpansion === true
      if (!allowed) {
        throw forbidden(CLAIMS, a.name, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize')
      }
    }
  })
}, { name: 'admission:persistent-volume-claim-resize', dependencies: ['admission'] })
