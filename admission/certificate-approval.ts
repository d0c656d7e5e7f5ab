// CertificateApproval: an update to /approval needs `approve` on the request's signer.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { authorizedForSigner, CSR_RESOURCE, isCsr } from './certificate-signer-permission.js'

export default fp(async function certificateApproval (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'CertificateApproval',
    handles: (a) => a.operation === 'UPDATE' && a.subresource === 'approval' && isCsr(a),
    async validate (a) {
      const signerName: string = a.oldObject?.spec?.signerName ?? ''
      if (await authorizedForSigner(fastify, a.user, 'approve', signerName)) return
      throw forbidden(CSR_RESOURCE, a.name, `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`)
    }
  })
}, { name: 'admission:certificate-approval', dependencies: ['admission', 'authz'] })
