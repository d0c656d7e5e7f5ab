// TokenRequest: POST serviceaccounts/<name>/token issues a bound token for that account.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../resources/define.js'
import { GROUPS } from '../resources/naming.js'
import { badRequest, conflict, invalid, notFound, type FieldError } from '../resources/status.js'
import { readObject } from './authenticators/lookup.js'

const MIN_EXPIRATION_SECONDS = 600
const MAX_EXPIRATION_SECONDS = 2 ** 32
const DEFAULT_EXPIRATION_SECONDS = 3600
const API_VERSION = `${GROUPS.authentication}/v1`

/** Kinds a token may be bound to: kind → plural and whether it lives in the account's namespace. */
const BINDABLE: Record<string, { plural: string, namespaced: boolean }> = {
  Pod: { plural: 'pods', namespaced: true },
  Secret: { plural: 'secrets', namespaced: true },
  Node: { plural: 'nodes', namespaced: false }
}

export default fp(async function tokenRequest (fastify: FastifyInstance) {
  const tokens = fastify.serviceAccountTokens
  const apiAudiences = (): string[] => fastify.authn.apiAudiences.length > 0 ? fastify.authn.apiAudiences : [tokens.issuer]

  fastify.resources.addSubresource({ group: '', resource: 'serviceaccounts' }, 'token', {
    verbs: ['create'],
    sensitive: true,
    requestKind: { apiVersion: API_VERSION, kind: 'TokenRequest' },
    async create (_ctx, account, body) {
      const kind = { group: GROUPS.authentication, kind: 'TokenRequest' }
      const name: string = account.metadata.name
      const namespace: string = account.metadata.namespace
      if (body.metadata?.name !== undefined && body.metadata.name !== '' && body.metadata.name !== name) {
        throw badRequest('the name of the object in the request body does not match the name in the URL')
      }
      // Fields a typed client leaves null (kubectl 1.27 sends `audiences: null`) are unset.
      const spec: AnyObject = Object.fromEntries(Object.entries(body.spec ?? {}).filter(([, v]) => v !== null))
      const errors: FieldError[] = []
      spec.expirationSeconds ??= DEFAULT_EXPIRATION_SECONDS
      if (!Number.isInteger(spec.expirationSeconds)) errors.push({ type: 'Invalid', field: 'spec.expirationSeconds', value: spec.expirationSeconds, detail: 'must be an integer' })
      else if (spec.expirationSeconds < MIN_EXPIRATION_SECONDS) errors.push({ type: 'Invalid', field: 'spec.expirationSeconds', value: spec.expirationSeconds, detail: 'may not specify a duration less than 10 minutes' })
      else if (spec.expirationSeconds > MAX_EXPIRATION_SECONDS) errors.push({ type: 'TooLong', field: 'spec.expirationSeconds', value: spec.expirationSeconds, detail: 'may not specify a duration larger than 2^32 seconds' })
      if (spec.audiences !== undefined && (!Array.isArray(spec.audiences) || spec.audiences.some((a: unknown) => typeof a !== 'string'))) {
        errors.push({ type: 'Invalid', field: 'spec.audiences', value: spec.audiences, detail: 'must be a list of strings' })
      }
      if (errors.length > 0) throw invalid(kind, name, errors)
      if (spec.audiences === undefined || spec.audiences.length === 0) spec.audiences = apiAudiences()
      if (account.metadata.deletionTimestamp != null) throw conflict({ group: '', resource: 'serviceaccounts' }, name, 'the service account is being deleted')

      let bound: { kind: string, name: string, uid: string } | undefined
      const ref = spec.boundObjectRef as AnyObject | undefined
      if (ref !== undefined && ref !== null) {
        const target = BINDABLE[ref.kind]
        if (target === undefined || (ref.apiVersion !== undefined && ref.apiVersion !== 'v1')) {
          throw badRequest(`cannot bind token for serviceaccount "${name}" to object of type ${String(ref.apiVersion ?? 'v1')}, Kind=${String(ref.kind)}`)
        }
        const obj = await readObject(fastify, { group: '', resource: target.plural }, target.namespaced ? namespace : '', String(ref.name ?? ''))
        if (obj === undefined) throw notFound({ group: '', resource: target.plural }, String(ref.name ?? ''))
        if (ref.uid !== undefined && ref.uid !== '' && ref.uid !== obj.metadata.uid) {
          throw conflict({ group: '', resource: ref.kind }, ref.name,
            `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`)
        }
        bound = { kind: ref.kind, name: obj.metadata.name, uid: obj.metadata.uid }
        spec.boundObjectRef = { kind: ref.kind, apiVersion: 'v1', name: bound.name, uid: bound.uid }
      }
      const issued = await tokens.issue({
        account: { namespace, name, uid: account.metadata.uid },
        audiences: spec.audiences,
        expirationSeconds: spec.expirationSeconds,
        bound
      })
      return {
        kind: 'TokenRequest',
        // In the group the client named (its typed client decodes only its own spelling).
        apiVersion: typeof body.apiVersion === 'string' ? body.apiVersion : API_VERSION,
        metadata: { name, namespace, creationTimestamp: null },
        spec,
        status: { token: issued.token, expirationTimestamp: issued.expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') }
      }
    }
  })
}, { name: 'token-request', dependencies: ['rest', 'authn', 'service-account-tokens'] })
