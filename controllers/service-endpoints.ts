// What the endpoint controllers read of a Service and its pods, as the reference's
// endpoint utilities do: which pods count, whether they are ready, the port a Service port
// reaches on each pod, and the labels the objects made for a Service carry.
import { isDeepStrictEqual } from 'node:util'
import { ApiError } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'
import { ENDPOINT_SLICES } from '../resources/naming.js'
import { familyOf } from '../resources/value-ranges.js'
import type { ResourceStore } from '../storage/resource-store.js'
import type { CacheEvent } from '../storage/interface.js'

/** Services the controllers write endpoints for: those with a selector (others are their owners' to describe). */
export const hasSelector = (svc: AnyObject): boolean =>
  svc.spec?.selector !== undefined && svc.spec?.selector !== null && svc.spec?.type !== 'ExternalName'

/** The pods of the Service's namespace its selector selects. */
export function selectedPods (svc: AnyObject, pods: AnyObject[]): AnyObject[] {
  const selector: Record<string, string> = svc.spec.selector
  return pods.filter(p => Object.entries(selector).every(([k, v]) => p.metadata?.labels?.[k] === v))
}

const isTerminal = (pod: AnyObject): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed'

/** The pod's addresses (status.podIPs, else status.podIP). */
export function podIPs (pod: AnyObject): string[] {
  const ips = (pod.status?.podIPs ?? []).map((p: AnyObject) => p?.ip).filter((ip: unknown): ip is string => typeof ip === 'string' && ip !== '')
  if (ips.length > 0) return ips
  return typeof pod.status?.podIP === 'string' && pod.status.podIP !== '' ? [pod.status.podIP] : []
}

/** The reference's ShouldPodBeInEndpoints: running (not finished), with an address, and not terminating unless asked. */
export function podInEndpoints (pod: AnyObject, includeTerminating: boolean): boolean {
  if (isTerminal(pod) || podIPs(pod).length === 0) return false
  return includeTerminating || pod.metadata?.deletionTimestamp === undefined || pod.metadata?.deletionTimestamp === null
}

export const isPodReady = (pod: AnyObject): boolean =>
  (pod.status?.conditions ?? []).some((c: AnyObject) => c?.type === 'Ready' && c?.status === 'True')

/**
 * The reference's FindPort: a numeric targetPort as it is; a named one is the container port of
 * that name and the Service port's protocol (in the pod's containers, then its sidecars).
 */
export function findPort (pod: AnyObject, servicePort: AnyObject): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port
  if (typeof target === 'number') return target
  if (typeof target !== 'string') return undefined
  if (/^[0-9]+$/.test(target)) return Number(target)
  const protocol = servicePort.protocol ?? 'TCP'
  const sidecars = (pod.spec?.initContainers ?? []).filter((c: AnyObject) => c?.restartPolicy === 'Always')
  for (const c of [...(pod.spec?.containers ?? []), ...sidecars]) {
    for (const p of c?.ports ?? []) if (p?.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort
  }
  return undefined
}

/** The reference's ShouldSetHostname: the pod's hostname when its subdomain is the Service. */
export function podHostname (pod: AnyObject, svc: AnyObject): string | undefined {
  const hostname = pod.spec?.hostname
  return typeof hostname === 'string' && hostname !== '' && pod.spec?.subdomain === svc.metadata.name && pod.metadata.namespace === svc.metadata.namespace ? hostname : undefined
}

/** The reference's pod reference in an endpoint. */
export const podRef = (pod: AnyObject): AnyObject => ({ kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid })

/** The families a Service's endpoints are of: its ipFamilies, IPv4 when it has none. */
export const serviceFamilies = (svc: AnyObject): string[] => (svc.spec?.ipFamilies?.length ?? 0) > 0 ? svc.spec.ipFamilies : ['IPv4']

/** The pod's address of a family. */
export const podIPOfFamily = (pod: AnyObject, family: string): string | undefined => podIPs(pod).find(ip => familyOf(ip) === family)

export const isHeadless = (svc: AnyObject): boolean => svc.spec?.clusterIP === 'None'

/** The Service's labels, less the ones the controllers set, with the headless label when it has no cluster IP. */
export function inheritedLabels (svc: AnyObject, reserved: string[]): Record<string, string> {
  const labels: Record<string, string> = {}
  for (const [k, v] of Object.entries((svc.metadata.labels ?? {}) as Record<string, string>)) if (!reserved.includes(k) && k !== ENDPOINT_SLICES.headlessLabel) labels[k] = v
  if (isHeadless(svc)) labels[ENDPOINT_SLICES.headlessLabel] = ''
  return labels
}

export const sameJSON = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a ?? null, b ?? null)

/** A full pass over every namespace at most this often; between them only namespaces where something changed. */
const FULL_PASS_MS = 30_000

/**
 * The namespaces a sync must look at: those where a watched object changed since the last one,
 * and every namespace on the first pass and at each periodic full pass.
 */
export function namespaceChanges () {
  const dirty = new Set<string>()
  let nextFull = 0
  return {
    watch: (store: ResourceStore) => ({
      store,
      when: (e: CacheEvent): boolean => {
        dirty.add(e.key.slice(store.prefix.length).split('/')[0] ?? '')
        return true
      }
    }),
    mark: (namespace: string): void => { dirty.add(namespace) },
    /** Whether a namespace is due in this sync; clears what it hands out. */
    take (): (namespace: string) => boolean {
      const full = Date.now() >= nextFull
      if (full) nextFull = Date.now() + FULL_PASS_MS
      const due = new Set(dirty)
      dirty.clear()
      return (namespace) => full || due.has(namespace)
    }
  }
}

/**
 * One sync of the Services with selectors in the namespaces that are due: each through
 * `syncService`. A Service refused for a conflict, or in a namespace going away, is marked for
 * the next sync (in a second, the answer); other failures stop the sync.
 */
export async function syncSelectedServices (services: AnyObject[], changes: ReturnType<typeof namespaceChanges>, syncService: (svc: AnyObject) => Promise<void>): Promise<number | undefined> {
  let again: number | undefined
  const pending = changes.take()
  for (const svc of services) {
    if (!pending(svc.metadata.namespace) || !hasSelector(svc) || svc.metadata.deletionTimestamp !== undefined) continue
    try {
      await syncService(svc)
    } catch (err) {
      if (!(err instanceof ApiError) || err.code >= 500) throw err
      changes.mark(svc.metadata.namespace)
      again = 1000
    }
  }
  return again
}
