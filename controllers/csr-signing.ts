// The signing controller: issues certificates for approved requests of the built-in signers
// with the cluster signing CA, or marks a request outside its signer's rules Failed.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../resources/define.js'
import { ApiError } from '../resources/status.js'
import { GROUPS } from '../resources/naming.js'
import { CONDITION_TYPES, hasCondition } from '../resources/certificatesigningrequests.js'
import { clusterSigner, type ClusterSigningOptions } from '../auth/csr-signer.js'
import { CONTROLLER_WRITE, controllerCaller, controllerLoop } from './loop.js'

const MANAGER = 'certificate-controller'
export const SIGNER_FAILURE_REASON = 'SignerValidationFailure'

/** Approved, not denied or failed, and not yet issued: what a signer still owes. */
export const awaitsSigning = (csr: AnyObject): boolean =>
  hasCondition(csr, CONDITION_TYPES.approved) && !hasCondition(csr, CONDITION_TYPES.denied) &&
  !hasCondition(csr, CONDITION_TYPES.failed) && (csr.status?.certificate ?? '') === ''

export default fp(async function csrSigning (fastify: FastifyInstance, opts: { signing: ClusterSigningOptions }) {
  const signer = await clusterSigner(opts.signing)
  const csrs = () => fastify.resources.find({ group: GROUPS.certificates, resource: 'certificatesigningrequests' })!
  controllerLoop(fastify, {
    name: 'csrsigning',
    watch: () => [csrs()],
    async sync () {
      const store = csrs()
      // A request changed under us is looked at again shortly, not at the next resync.
      let again: number | undefined
      for (const csr of store.cachedObjects()) {
        if (!awaitsSigning(csr) || !signer.handles(csr.spec?.signerName)) continue
        const result = await signer.sign(csr.spec)
        const status: AnyObject = 'certificatePem' in result
          ? { ...csr.status, certificate: Buffer.from(result.certificatePem).toString('base64') }
          : { ...csr.status, conditions: [...(csr.status?.conditions ?? []), { type: CONDITION_TYPES.failed, status: 'True', reason: SIGNER_FAILURE_REASON, message: result.failure }] }
        try {
          // Conditional on the version signed: a request changed meanwhile is looked at again.
          await store.update('', csr.metadata.name,
            (old) => ({ ...old, metadata: { ...old.metadata, resourceVersion: csr.metadata.resourceVersion }, status }),
            { ...CONTROLLER_WRITE, subresource: 'status' }, controllerCaller(MANAGER))
        } catch (err) {
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err
          if (err.code === 409) again = 100
        }
      }
      return again
    }
  })
}, { name: 'controller:csrsigning', dependencies: ['rest'] })
