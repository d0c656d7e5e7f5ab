// LimitRanger: the namespace's LimitRanges give a new pod's containers the requests and limits
// they leave out (mutating), then bound each container, the pod as a whole and each claim's
// storage request (validating), with the reference plugin's messages. Pods are looked at on
// create only (their containers' resources cannot change afterwards); claims on create and update.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { ANNOTATIONS } from '../resources/naming.js'
import { LIMIT_TYPES } from '../resources/limitranges.js'
import { podLimits, podRequests } from '../resources/pod-resources.js'
import { compareQuantities, milliValue, canonicalQuantity, type ResourceList } from '../resources/quantity.js'
import type { AnyObject } from '../resources/define.js'
import type { AdmissionAttributes } from '../resources/admission.js'

const kindOf = (a: AdmissionAttributes): 'pod' | 'claim' | undefined => {
  if (a.resource.group !== '' || a.subresource !== '') return undefined
  if (a.resource.plural === 'pods') return a.operation === 'CREATE' ? 'pod' : undefined
  return a.resource.plural === 'persistentvolumeclaims' ? 'claim' : undefined
}

const show = (q: string): string => canonicalQuantity(q) ?? q

/** Fills what a container leaves out; returns the annotation's parts for it. */
function fillContainer (c: AnyObject, requests: ResourceList, limits: ResourceList, label: string): string[] {
  const res: AnyObject = c.resources ??= {}
  const setLimits = Object.keys(limits).filter(k => res.limits?.[k] === undefined)
  const setRequests = Object.keys(requests).filter(k => res.requests?.[k] === undefined)
  if (setLimits.length > 0) res.limits = { ...res.limits, ...Object.fromEntries(setLimits.map(k => [k, limits[k]])) }
  if (setRequests.length > 0) res.requests = { ...res.requests, ...Object.fromEntries(setRequests.map(k => [k, requests[k]])) }
  const notes: string[] = []
  if (setRequests.length > 0) notes.push(`${setRequests.sort().join(', ')} request for ${label} ${String(c.name)}`)
  if (setLimits.length > 0) notes.push(`${setLimits.sort().join(', ')} limit for ${label} ${String(c.name)}`)
  return notes
}

function fillPod (pod: AnyObject, range: AnyObject): void {
  const requests: ResourceList = {}
  const limits: ResourceList = {}
  for (const item of range.spec?.limits ?? []) {
    if (item.type !== LIMIT_TYPES.container) continue
    Object.assign(requests, item.defaultRequest ?? {})
    Object.assign(limits, item.default ?? {})
  }
  if (Object.keys(requests).length === 0 && Object.keys(limits).length === 0) return
  // The requests a client left out are its limits, as decoding defaults them before admission upstream.
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const res: AnyObject | undefined = c.resources
    if (res?.limits === undefined) continue
    res.requests = { ...Object.fromEntries(Object.entries(res.limits).filter(([k]) => res.requests?.[k] === undefined)), ...res.requests }
  }
  const notes = [
    ...(pod.spec?.containers ?? []).flatMap((c: AnyObject) => fillContainer(c, requests, limits, 'container')),
    ...(pod.spec?.initContainers ?? []).flatMap((c: AnyObject) => fillContainer(c, requests, limits, 'init container'))
  ]
  if (notes.length > 0) pod.metadata.annotations = { ...pod.metadata.annotations, [ANNOTATIONS.limitRanger]: `LimitRanger plugin set: ${notes.join('; ')}` }
}

// Each check returns the reference plugin's sentence, or undefined when the value is within bounds.
function minimum (type: string, name: string, min: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests[name]
  const lim = limits[name]
  if (req === undefined) return `minimum ${name} usage per ${type} is ${show(min)}.  No request is specified`
  if (compareQuantities(req, min) < 0) return `minimum ${name} usage per ${type} is ${show(min)}, but request is ${show(req)}`
  if (lim !== undefined && compareQuantities(lim, min) < 0) return `minimum ${name} usage per ${type} is ${show(min)}, but limit is ${show(lim)}`
}

function maximum (type: string, name: string, max: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests[name]
  const lim = limits[name]
  if (lim === undefined) return `maximum ${name} usage per ${type} is ${show(max)}.  No limit is specified`
  if (compareQuantities(lim, max) > 0) return `maximum ${name} usage per ${type} is ${show(max)}, but limit is ${show(lim)}`
  if (req !== undefined && compareQuantities(req, max) > 0) return `maximum ${name} usage per ${type} is ${show(max)}, but request is ${show(req)}`
}

/** Claims: the maximum bounds the request alone (a claim's limits are not user input). */
function maximumRequest (type: string, name: string, max: string, requests: ResourceList): string | undefined {
  const req = requests[name]
  if (req === undefined) return `maximum ${name} usage per ${type} is ${show(max)}.  No request is specified`
  if (compareQuantities(req, max) > 0) return `maximum ${name} usage per ${type} is ${show(max)}, but request is ${show(req)}`
}

function ratio (type: string, name: string, most: string, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests[name]
  const lim = limits[name]
  if (req === undefined || milliValue(req) === 0n) return `${name} max limit to request ratio per ${type} is ${show(most)}, but no request is specified or request is 0`
  if (lim === undefined || milliValue(lim) === 0n) return `${name} max limit to request ratio per ${type} is ${show(most)}, but no limit is specified or limit is 0`
  const observed = Number(milliValue(lim)) / Number(milliValue(req))
  if (observed * 1000 > Number(milliValue(most))) return `${name} max limit to request ratio per ${type} is ${show(most)}, but provided ratio is ${observed.toFixed(6)}`
}

function bound (item: AnyObject, requests: ResourceList, limits: ResourceList): string[] {
  const out: Array<string | undefined> = []
  for (const [k, v] of Object.entries(item.min ?? {})) out.push(minimum(item.type, k, v as string, requests, limits))
  for (const [k, v] of Object.entries(item.max ?? {})) out.push(maximum(item.type, k, v as string, requests, limits))
  for (const [k, v] of Object.entries(item.maxLimitRequestRatio ?? {})) out.push(ratio(item.type, k, v as string, requests, limits))
  return out.filter((m): m is string => m !== undefined)
}

function podProblems (pod: AnyObject, range: AnyObject): string[] {
  const out: string[] = []
  for (const item of range.spec?.limits ?? []) {
    if (item.type === LIMIT_TYPES.container) {
      for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
        out.push(...bound(item, c.resources?.requests ?? {}, c.resources?.limits ?? {}))
      }
    } else if (item.type === LIMIT_TYPES.pod) {
      out.push(...bound(item, podRequests(pod, { overhead: false }), podLimits(pod, { overhead: false })))
    }
  }
  return out
}

function claimProblems (claim: AnyObject, range: AnyObject): string[] {
  const out: Array<string | undefined> = []
  const requests: ResourceList = claim.spec?.resources?.requests ?? {}
  for (const item of range.spec?.limits ?? []) {
    if (item.type !== LIMIT_TYPES.claim) continue
    for (const [k, v] of Object.entries(item.min ?? {})) out.push(minimum(item.type, k, v as string, requests, {}))
    for (const [k, v] of Object.entries(item.max ?? {})) out.push(maximumRequest(item.type, k, v as string, requests))
  }
  return out.filter((m): m is string => m !== undefined)
}

/** Several problems read as the reference aggregate error: `[a, b]`. */
const aggregate = (problems: string[]): string => problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`

export default fp(async function limitRanger (fastify: FastifyInstance) {
  const ranges = (a: AdmissionAttributes): Promise<AnyObject[]> => a.listRecent({ group: '', resource: 'limitranges' }, a.namespace)
  fastify.admission.add({
    name: 'LimitRanger',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.object !== undefined && kindOf(a) !== undefined &&
      a.oldObject?.metadata?.deletionTimestamp == null,
    async mutate (a) {
      if (kindOf(a) !== 'pod') return
      for (const range of await ranges(a)) fillPod(a.object!, range)
    },
    async validate (a) {
      const kind = kindOf(a)
      for (const range of await ranges(a)) {
        const problems = kind === 'pod' ? podProblems(a.object!, range) : claimProblems(a.object!, range)
        if (problems.length > 0) throw forbidden({ group: '', resource: a.resource.plural }, a.name, aggregate(problems))
      }
    }
  })
}, { name: 'admission:limit-ranger', dependencies: ['admission'] })
