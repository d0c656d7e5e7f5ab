// What a pod asks for as a whole, as the reference resource helpers compute it: the containers'
// sum, at least the largest init container (sidecars, restartPolicy Always, run beside the
// rest and add up), and the pod overhead when asked.
import { addLists, compareQuantities, type ResourceList } from './quantity.js'
import type { AnyObject } from './define.js'

type Part = 'requests' | 'limits'

function maxInto (into: ResourceList, list: ResourceList): void {
  for (const [k, v] of Object.entries(list)) if (!Object.hasOwn(into, k) || compareQuantities(v, into[k]) > 0) into[k] = v
}

function aggregate (spec: AnyObject | undefined, part: Part, overhead: boolean): ResourceList {
  let total: ResourceList = {}
  for (const c of spec?.containers ?? []) total = addLists(total, c.resources?.[part] ?? {})
  let sidecars: ResourceList = {}
  const initMax: ResourceList = {}
  for (const c of spec?.initContainers ?? []) {
    const own: ResourceList = c.resources?.[part] ?? {}
    let effective: ResourceList
    if (c.restartPolicy === 'Always') {
      total = addLists(total, own)
      sidecars = addLists(sidecars, own)
      effective = sidecars
    } else effective = addLists(own, sidecars)
    maxInto(initMax, effective)
  }
  maxInto(total, initMax)
  if (overhead && spec?.overhead !== undefined) {
    const extra: ResourceList = spec.overhead
    // Requests take the whole overhead; limits only where the pod sets one.
    total = part === 'requests' ? addLists(total, extra) : addLists(total, Object.fromEntries(Object.entries(extra).filter(([k]) => Object.hasOwn(total, k))))
  }
  return total
}

export const podRequests = (pod: AnyObject, o: { overhead: boolean }): ResourceList => aggregate(pod.spec, 'requests', o.overhead)
export const podLimits = (pod: AnyObject, o: { overhead: boolean }): ResourceList => aggregate(pod.spec, 'limits', o.overhead)

const QOS_RESOURCES = ['cpu', 'memory']

/** QoS class BestEffort: no container requests or limits any cpu or memory. */
export function isBestEffort (pod: AnyObject): boolean {
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    for (const part of ['requests', 'limits'] as const) {
      for (const name of QOS_RESOURCES) {
        const v = c.resources?.[part]?.[name]
        if (v !== undefined && compareQuantities(v, '0') > 0) return false
      }
    }
  }
  return true
}
