// CertificateSigning: setting status.certificate through /status needs `sign` on the request's signer.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { authorizedForSigner, CSR_RESOURCE, isCsr } from './certificate-signer-permission.js'

export default fp(async function certificateSigning (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'CertificateSigning',
    handles: (a) => a.operation === 'UPDATE' && a.subresource === 'status' && isCsr(a),
    async validate (a) {
      // Only a change of the certificate is signing; the signer's other conditions are not.
      if ((a.object?.status?.certificate ?? '') === (a.oldObject?.status?.certificate ?? '')) return
      const signerName: string = a.oldObject?.spec?.signerName ?? ''
      if (await authorizedForSigner(fastify, a.user, 'sign', signerName)) return
      throw forbidden(CSR_RESOURCE, a.name, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`)
    }
  })
}, { name: 'admission:certificate-signing', dependencies: ['admission', 'authz'] })
