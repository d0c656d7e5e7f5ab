// Whether a user may act for a signer: the verb (`approve`, `sign`) on `signers` in the
// certificates group, named `<domain>/<path>` or, failing that, `<domain>/*` (as the reference
// server's IsAuthorizedForSignerName asks).
import type { FastifyInstance } from 'fastify'
import { GROUPS } from '../resources/naming.js'
import type { UserInfo } from '../resources/user-info.js'

export async function authorizedForSigner (fastify: FastifyInstance, user: UserInfo, verb: 'approve' | 'sign', signerName: string): Promise<boolean> {
  const ask = async (name: string): Promise<boolean> => (await fastify.authz.authorize({
    user, verb, isResourceRequest: true, path: '', apiGroup: GROUPS.certificates, apiVersion: '*', resource: 'signers', subresource: '', namespace: '', name
  })).decision === 'Allow'
  if (await ask(signerName)) return true
  const slash = signerName.indexOf('/')
  return slash > 0 && await ask(`${signerName.slice(0, slash)}/*`)
}

export const CSR_RESOURCE = { group: GROUPS.certificates, resource: 'certificatesigningrequests' }
export const isCsr = (a: { resource: { group: string, plural: string } }): boolean =>
  a.resource.group === GROUPS.certificates && a.resource.plural === 'certificatesigningrequests'
