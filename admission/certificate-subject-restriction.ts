// CertificateSubjectRestriction: no request to the API-server client signer may name the
// `system:masters` group, which would bypass authorization entirely.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { SIGNERS } from '../resources/naming.js'
import { PRIVILEGED_GROUP } from '../resources/user-info.js'
import { parseCertificateRequest } from '../resources/certificate-request.js'
import { CSR_RESOURCE, isCsr } from './certificate-signer-permission.js'

export default fp(async function certificateSubjectRestriction (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'CertificateSubjectRestriction',
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && isCsr(a),
    validate (a) {
      if (a.object?.spec?.signerName !== SIGNERS.apiserverClient) return
      const parsed = parseCertificateRequest(Buffer.from(String(a.object.spec.request ?? ''), 'base64').toString('latin1'))
      // A request that does not parse was already refused by validation.
      if ('error' in parsed) return
      if (parsed.organizations.includes(PRIVILEGED_GROUP)) {
        throw forbidden(CSR_RESOURCE, a.name, `use of ${SIGNERS.apiserverClient} signer with ${PRIVILEGED_GROUP} group is not allowed`)
      }
    }
  })
}, { name: 'admission:certificate-subject-restriction', dependencies: ['admission'] })
