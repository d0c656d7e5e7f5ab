// OwnerReferencesPermissionEnforcement (off by default): changing an object's
// metadata.ownerReferences needs permission to delete the object (a create is exempt: its author
// could as well not have made it), and setting blockOwnerDeletion on a reference needs update
// on the owner's `finalizers` subresource, since a blocking dependent holds a foreground
// deletion of its owner.
import { isDeepStrictEqual } from 'node:util'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { canonicalGroup } from '../resources/naming.js'
import type { AnyObject } from '../resources/define.js'
import type { Attributes } from '../resources/authorization.js'
import type { AdmissionAttributes } from '../resources/admission.js'

type OwnerReference = Record<string, any>

const refsOf = (obj: AnyObject | undefined): OwnerReference[] => Array.isArray(obj?.metadata?.ownerReferences) ? obj.metadata.ownerReferences : []
const blocking = (ref: OwnerReference): boolean => ref.blockOwnerDeletion === true

/** Compared as JSON: a field set to undefined is a field absent. */
const sameRefs = (a: OwnerReference[], b: OwnerReference[]): boolean => isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)))

/** References that block their owner's deletion now and did not before (new, or switched on). */
export function newlyBlockingRefs (obj: AnyObject | undefined, old: AnyObject | undefined): OwnerReference[] {
  const before = new Map(refsOf(old).map(r => [r.uid, r]))
  return refsOf(obj).filter(r => blocking(r) && !blocking(before.get(r.uid) ?? {}))
}

const splitApiVersion = (apiVersion: string): { group: string, version: string } => {
  const slash = apiVersion.lastIndexOf('/')
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) }
}

/** pods/status is left alone: old node agents rewrite whole pods there, and its strategy keeps the references. */
const exempt = (a: AdmissionAttributes): boolean => a.resource.group === '' && a.resource.plural === 'pods' && a.subresource === 'status'

export default fp(async function ownerReferencesPermissionEnforcement (fastify: FastifyInstance) {
  const ask = async (attrs: Omit<Attributes, 'isResourceRequest' | 'path'>): Promise<{ allowed: boolean, reason: string }> => {
    const verdict = await fastify.authz.authorize({ ...attrs, isResourceRequest: true, path: '' })
    return { allowed: verdict.decision === 'Allow', reason: verdict.reason ?? '' }
  }

  /** The `update <owner>/finalizers` questions for one reference: one per kind the reference may name. */
  const finalizerQuestions = (a: AdmissionAttributes, ref: OwnerReference): Array<Omit<Attributes, 'isResourceRequest' | 'path'>> | string => {
    const { group, version } = splitApiVersion(String(ref.apiVersion ?? ''))
    const owners = fastify.resources.served().filter(r => r.kind === ref.kind && r.group === canonicalGroup(group) && r.virtual === undefined)
    if (owners.length === 0) return `no matches for kind ${JSON.stringify(String(ref.kind ?? ''))} in version ${JSON.stringify(group === '' ? version : `${group}/${version}`)}`
    return owners.map(r => ({
      user: a.user, verb: 'update', apiGroup: r.group, apiVersion: r.version, resource: r.plural, subresource: 'finalizers', name: String(ref.name ?? ''),
      // A namespaced owner is in its dependent's namespace.
      namespace: r.namespaced ? a.namespace : ''
    }))
  }

  fastify.admission.add({
    name: 'OwnerReferencesPermissionEnforcement',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.object !== undefined && !exempt(a) &&
      !(a.operation === 'CREATE' ? refsOf(a.object).length === 0 : sameRefs(refsOf(a.object), refsOf(a.oldObject))),
    async validate (a) {
      const gr = { group: a.resource.group, resource: a.resource.plural }
      if (a.operation !== 'CREATE') {
        const del = await ask({ user: a.user, verb: 'delete', namespace: a.namespace, apiGroup: a.resource.group, apiVersion: a.resource.version, resource: a.resource.plural, subresource: a.subresource, name: a.name })
        if (!del.allowed) throw forbidden(gr, a.name, `cannot set an ownerRef on a resource you can't delete: ${del.reason}, <nil>`)
      }
      const refs = newlyBlockingRefs(a.object, a.oldObject)
      if (refs.length === 0) return
      // One question first covers every owner for users who may finalize anything.
      const anything = await ask({ user: a.user, verb: 'update', namespace: a.namespace, apiGroup: '*', apiVersion: '*', resource: '*', subresource: 'finalizers', name: '*' })
      if (anything.allowed) return
      for (const ref of refs) {
        const questions = finalizerQuestions(a, ref)
        if (typeof questions === 'string') {
          throw forbidden(gr, a.name, `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${String(ref.apiVersion)} Kind ${String(ref.kind)}: ${questions}`)
        }
        for (const q of questions) {
          const answer = await ask(q)
          if (!answer.allowed) throw forbidden(gr, a.name, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${answer.reason}, <nil>`)
        }
      }
    }
  })
}, { name: 'admission:owner-references-permission-enforcement', dependencies: ['admission', 'authz'] })
