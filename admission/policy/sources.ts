// What both admission policy plugins read at each request: the stored policies (compiled once
// per stored version) with their bindings, from the kinds' watch caches (a change is in force on
// every replica as soon as its cache has it), and the values their expressions see.
import type { FastifyInstance } from 'fastify'
import type { AdmissionAttributes } from '../../resources/admission.js'
import type { AnyObject } from '../../resources/define.js'
import type { CachedObject } from '../../storage/interface.js'
import { GROUPS } from '../../resources/naming.js'
import type { ResourceForm } from '../../resources/resource-forms.js'
import { convertDyn } from '../../machinery/cel/types.js'
import { reviewRequest } from '../webhooks/review.js'

/** A stored binding as the plugins read it: the policy it binds, its parameters, its matchResources, the whole spec. */
export interface Binding { name: string, policyName: string, paramRef?: AnyObject, matchResources?: AnyObject, spec: AnyObject }

const bindings = new WeakMap<CachedObject, Binding>()

function bindingOf (o: CachedObject): Binding {
  let b = bindings.get(o)
  if (b === undefined) {
    const obj = JSON.parse(o.json) as AnyObject
    const spec: AnyObject = obj.spec ?? {}
    b = { name: String(obj.metadata?.name ?? ''), policyName: String(spec.policyName ?? ''), paramRef: spec.paramRef ?? undefined, matchResources: spec.matchResources ?? undefined, spec }
    bindings.set(o, b)
  }
  return b
}

/** One policy kind's stored policies and bindings: `compile` a stored policy, `plurals` the two kinds. */
export function policySource<P extends { name: string }> (fastify: FastifyInstance, plurals: { policies: string, bindings: string }, compile: (p: AnyObject) => P) {
  const compiled = new WeakMap<CachedObject, P>()
  const policyOf = (o: CachedObject): P => {
    let p = compiled.get(o)
    if (p === undefined) { p = compile(JSON.parse(o.json) as AnyObject); compiled.set(o, p) }
    return p
  }
  const policyKind = { group: GROUPS.admissionregistration, resource: plurals.policies }
  const bindingKind = { group: GROUPS.admissionregistration, resource: plurals.bindings }
  /** Every policy that has a binding, with its bindings; empty (and cheap) when there are none. */
  return (): Array<{ policy: P, bindings: Binding[] }> => {
    // The REST machinery registers the kinds after the admission plugins: found at request time.
    const policyStore = fastify.resources.find(policyKind)
    const bindingStore = fastify.resources.find(bindingKind)
    // Every write asks: with nothing stored, nothing is listed.
    if (policyStore === undefined || bindingStore === undefined || policyStore.cache.size === 0 || bindingStore.cache.size === 0) return []
    const boundObjects = bindingStore.cache.list(bindingStore.prefix)
    if (boundObjects.length === 0) return []
    const policyObjects = policyStore.cache.list(policyStore.prefix)
    if (policyObjects.length === 0) return []
    const byPolicy = new Map<string, Binding[]>()
    for (const o of boundObjects) {
      const b = bindingOf(o)
      const list = byPolicy.get(b.policyName)
      if (list === undefined) byPolicy.set(b.policyName, [b])
      else list.push(b)
    }
    const out: Array<{ policy: P, bindings: Binding[] }> = []
    for (const o of policyObjects) {
      const policy = policyOf(o)
      const bound = byPolicy.get(policy.name)
      if (bound !== undefined) out.push({ policy, bindings: bound })
    }
    return out
  }
}

/** The request as CEL sees it in the policy's form: `object`, `oldObject` and `request` (AdmissionRequest without the objects). */
export function requestValues (a: AdmissionAttributes, uid: string, form: ResourceForm): Record<string, unknown> {
  const review = reviewRequest(a, uid, 'v1', form).request as AnyObject
  const { object, oldObject, ...request } = review
  return { object: convertDyn(object ?? null), oldObject: convertDyn(oldObject ?? null), request: convertDyn(request) }
}

/** The request's namespace (null for cluster-scoped objects and for a Namespace itself, as the reference). */
export async function namespaceOf (a: AdmissionAttributes): Promise<unknown> {
  const isNamespace = a.resource.group === '' && a.resource.plural === 'namespaces'
  if (a.namespace === '' || isNamespace) return null
  const ns = await a.lookup({ group: '', resource: 'namespaces' }, '', a.namespace)
  return ns === undefined ? null : convertDyn(ns)
}
