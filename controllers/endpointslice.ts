// The endpointslice controller (the reference controller manager's `endpointslice`): every
// Service with a selector has EndpointSlices, one set per address family it serves, listing its
// pods that have an address of that family (terminating ones too, marked so), in slices of at
// most 100 whose endpoints share their ports. Each slice is labelled with its Service and this
// controller and owned by the Service, so the garbage collector deletes it with the Service; a
// Service with no endpoints keeps one empty slice per family (the reference's placeholder).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'
import { ENDPOINT_SLICES, GROUPS } from '../resources/naming.js'
import type { ResourceStore } from '../storage/resource-store.js'
import { CONTROLLER_WRITE, controllerCaller, controllerLoop } from './loop.js'
import {
  namespaceChanges, syncSelectedServices, findPort, inheritedLabels, isPodReady, podHostname, podInEndpoints, podIPOfFamily, podRef, sameJSON, selectedPods, serviceFamilies
} from './service-endpoints.js'

const MANAGER = 'endpointslice-controller'
/** The reference's --max-endpoints-per-slice default. */
const MAX_ENDPOINTS_PER_SLICE = 100
/** Generated slice names are the Service's name, cut to leave room for the suffix. */
const MAX_PREFIX = 63 - 5 - 1

/** One desired slice: its ports and endpoints. */
interface DesiredSlice { ports: AnyObject[] | undefined, endpoints: AnyObject[] }

/** The slices a Service should have of one address family, endpoints grouped by their ports. */
export function desiredSlices (svc: AnyObject, pods: AnyObject[], family: string): DesiredSlice[] {
  const byPorts = new Map<string, { ports: AnyObject[], endpoints: AnyObject[] }>()
  const candidates = selectedPods(svc, pods).filter(p => podInEndpoints(p, true))
    .sort((a, b) => a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0)
  for (const pod of candidates) {
    const ip = podIPOfFamily(pod, family)
    if (ip === undefined) continue
    const terminating = pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null
    const serving = isPodReady(pod)
    // A terminating endpoint is never ready unless the Service publishes not-ready addresses.
    const ready = svc.spec?.publishNotReadyAddresses === true || (serving && !terminating)
    const endpoint: AnyObject = { addresses: [ip], conditions: { ready, serving, terminating }, targetRef: podRef(pod) }
    const hostname = podHostname(pod, svc)
    if (hostname !== undefined) endpoint.hostname = hostname
    if (typeof pod.spec?.nodeName === 'string' && pod.spec.nodeName !== '') endpoint.nodeName = pod.spec.nodeName
    const ports: AnyObject[] = []
    for (const sp of svc.spec?.ports ?? []) {
      const port = findPort(pod, sp)
      if (port === undefined) continue
      const p: AnyObject = { name: sp.name ?? '', protocol: sp.protocol ?? 'TCP', port }
      if (typeof sp.appProtocol === 'string') p.appProtocol = sp.appProtocol
      ports.push(p)
    }
    const key = JSON.stringify(ports)
    const group = byPorts.get(key) ?? { ports, endpoints: [] }
    group.endpoints.push(endpoint)
    byPorts.set(key, group)
  }
  const slices: DesiredSlice[] = []
  for (const { ports, endpoints } of byPorts.values()) {
    for (let i = 0; i < endpoints.length; i += MAX_ENDPOINTS_PER_SLICE) slices.push({ ports, endpoints: endpoints.slice(i, i + MAX_ENDPOINTS_PER_SLICE) })
  }
  return slices.length > 0 ? slices : [{ ports: undefined, endpoints: [] }]
}

/** The labels of a Service's slices. */
export function sliceLabels (svc: AnyObject): Record<string, string> {
  return {
    ...inheritedLabels(svc, [ENDPOINT_SLICES.serviceNameLabel, ENDPOINT_SLICES.managedByLabel]),
    [ENDPOINT_SLICES.serviceNameLabel]: svc.metadata.name,
    [ENDPOINT_SLICES.managedByLabel]: ENDPOINT_SLICES.controllerName
  }
}

const ownerOf = (svc: AnyObject): AnyObject =>
  ({ apiVersion: 'v1', kind: 'Service', name: svc.metadata.name, uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true })

const controlledBy = (slice: AnyObject, svc: AnyObject): boolean =>
  (slice.metadata.ownerReferences ?? []).some((r: AnyObject) => r.controller === true && r.uid === svc.metadata.uid)

export default fp(async function endpointSliceController (fastify: FastifyInstance) {
  const pods = (): ResourceStore => fastify.resources.find({ group: '', resource: 'pods' })!
  const services = (): ResourceStore => fastify.resources.find({ group: '', resource: 'services' })!
  const slices = (): ResourceStore => fastify.resources.find({ group: GROUPS.discovery, resource: 'endpointslices' })!
  const caller = controllerCaller(MANAGER)
  const changes = namespaceChanges()

  /** The slices this controller keeps for a Service's name (whoever owns them now). */
  const managedSlices = (namespace: string, name: string): AnyObject[] => slices().cachedObjects(namespace)
    .filter(s => s.metadata.labels?.[ENDPOINT_SLICES.serviceNameLabel] === name && s.metadata.labels?.[ENDPOINT_SLICES.managedByLabel] === ENDPOINT_SLICES.controllerName)
    .sort((a, b) => a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0)

  async function syncService (svc: AnyObject): Promise<void> {
    const { namespace, name } = svc.metadata
    const labels = sliceLabels(svc)
    const existing = managedSlices(namespace, name)
    // Slices of an earlier Service of this name are not this one's to reuse.
    const stale = existing.filter(s => !controlledBy(s, svc))
    const owned = existing.filter(s => controlledBy(s, svc))
    const podsHere = pods().cachedObjects(namespace)
    const writes: Array<Promise<unknown>> = []
    for (const family of serviceFamilies(svc)) {
      const desired = desiredSlices(svc, podsHere, family)
      const ofFamily = owned.filter(s => s.addressType === family)
      for (const [i, want] of desired.entries()) {
        const have = ofFamily[i]
        if (have === undefined) {
          const body: AnyObject = {
            apiVersion: `${GROUPS.discovery}/v1`,
            kind: 'EndpointSlice',
            metadata: { generateName: `${name.slice(0, MAX_PREFIX)}-`, namespace, labels, ownerReferences: [ownerOf(svc)] },
            addressType: family,
            endpoints: want.endpoints
          }
          if (want.ports !== undefined) body.ports = want.ports
          writes.push(slices().create(namespace, body, CONTROLLER_WRITE, caller))
          continue
        }
        if (sameJSON(have.endpoints ?? [], want.endpoints) && sameJSON(have.ports, want.ports) && sameJSON(have.metadata.labels, labels)) continue
        writes.push(slices().update(namespace, have.metadata.name, (old) => {
          const next: AnyObject = { ...old, metadata: { ...old.metadata, labels, resourceVersion: have.metadata.resourceVersion }, endpoints: want.endpoints }
          if (want.ports !== undefined) next.ports = want.ports
          else delete next.ports
          return next
        }, { ...CONTROLLER_WRITE, subresource: '' }, caller))
      }
      stale.push(...ofFamily.slice(desired.length))
    }
    // Slices of a family the Service no longer serves.
    const families = serviceFamilies(svc)
    stale.push(...owned.filter(s => !families.includes(s.addressType)))
    for (const s of stale) {
      writes.push(slices().delete(namespace, s.metadata.name, { dryRun: false, preconditions: { uid: s.metadata.uid } }, caller).catch((err: unknown) => {
        if (!(err instanceof ApiError && err.code === 404)) throw err
      }))
    }
    const failed = (await Promise.allSettled(writes)).find((r): r is PromiseRejectedResult => r.status === 'rejected')
    if (failed !== undefined) throw failed.reason
  }

  controllerLoop(fastify, {
    name: 'endpointslice',
    watch: () => [changes.watch(pods()), changes.watch(services()), changes.watch(slices())],
    async sync () {
      // Created slices must be seen before the next pass counts what exists.
      await slices().caughtUp()
      return await syncSelectedServices(services().cachedObjects(), changes, syncService)
    }
  })
}, { name: 'controller:endpointslice', dependencies: ['rest'] })
