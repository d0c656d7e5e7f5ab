// Auto-approval of node client certificates: a request to the svclet client signer that fits its
// rules is approved when its requester may create `certificatesigningrequests/selfnodeclient`
// (a node renewing its own certificate) or `certificatesigningrequests/nodeclient` (a bootstrap
// token), asked of the authorizers as the reference controller's SubjectAccessReview asks.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../resources/define.js'
import { ApiError } from '../resources/status.js'
import { GROUPS, SIGNERS } from '../resources/naming.js'
import { CONDITION_TYPES, hasCondition } from '../resources/certificatesigningrequests.js'
import { parseCertificateRequest } from '../resources/certificate-request.js'
import { SIGNER_RULES } from '../auth/csr-signer.js'
import { CONTROLLER_WRITE, controllerCaller, controllerLoop } from './loop.js'

const MANAGER = 'csrapproving'

/** The recognisers, most specific first: which subresource permission approves, and the message. */
const RECOGNISERS = [
  { subresource: 'selfnodeclient', message: 'Auto approving self svclet client certificate after SubjectAccessReview.', fits: (cn: string, username: string) => cn === username },
  { subresource: 'nodeclient', message: 'Auto approving svclet client certificate after SubjectAccessReview.', fits: () => true }
]

export default fp(async function csrApproving (fastify: FastifyInstance) {
  const csrs = () => fastify.resources.find({ group: GROUPS.certificates, resource: 'certificatesigningrequests' })!

  const mayCreate = async (csr: AnyObject, subresource: string): Promise<boolean> => (await fastify.authz.authorize({
    user: { username: csr.spec.username ?? '', uid: csr.spec.uid, groups: csr.spec.groups ?? [], extra: csr.spec.extra },
    verb: 'create', isResourceRequest: true, path: '', apiGroup: GROUPS.certificates, apiVersion: '*',
    resource: 'certificatesigningrequests', subresource, namespace: '', name: ''
  })).decision === 'Allow'

  controllerLoop(fastify, {
    name: 'csrapproving',
    watch: () => [csrs()],
    async sync () {
      const store = csrs()
      // A request changed under us is looked at again shortly, not at the next resync.
      let again: number | undefined
      for (const csr of store.cachedObjects()) {
        if (csr.spec?.signerName !== SIGNERS.apiserverClientSvclet) continue
        if (hasCondition(csr, CONDITION_TYPES.approved) || hasCondition(csr, CONDITION_TYPES.denied)) continue
        const parsed = parseCertificateRequest(Buffer.from(String(csr.spec.request ?? ''), 'base64').toString('latin1'))
        if ('error' in parsed || SIGNER_RULES[SIGNERS.apiserverClientSvclet]!(parsed, csr.spec.usages ?? []) !== undefined) continue
        let message: string | undefined
        for (const r of RECOGNISERS) {
          if (r.fits(parsed.commonName, csr.spec.username ?? '') && await mayCreate(csr, r.subresource)) { message = r.message; break }
        }
        if (message === undefined) continue
        const approved = { type: CONDITION_TYPES.approved, status: 'True', reason: 'AutoApproved', message }
        try {
          await store.update('', csr.metadata.name,
            (old) => ({ ...old, metadata: { ...old.metadata, resourceVersion: csr.metadata.resourceVersion }, status: { ...old.status, conditions: [...(old.status?.conditions ?? []), approved] } }),
            { ...CONTROLLER_WRITE, subresource: 'approval' }, controllerCaller(MANAGER))
        } catch (err) {
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err
          if (err.code === 409) again = 100
        }
      }
      return again
    }
  })
}, { name: 'controller:csrapproving', dependencies: ['rest', 'authz'] })
