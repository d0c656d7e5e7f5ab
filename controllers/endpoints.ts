// The endpoints controller (the reference controller manager's `endpoint`): every Service with a
// selector has an Endpoints object of its name listing its pods' addresses, ready ones under
// `addresses` and the rest under `notReadyAddresses`, at the ports its targetPorts resolve to on
// each pod. The Endpoints of a deleted Service are deleted with it (they have no owner reference
// upstream either: the controller deletes them when it sees the Service go).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'
import type { ResourceStore } from '../storage/resource-store.js'
import { CONTROLLER_WRITE, controllerCaller, controllerLoop } from './loop.js'
import {
  namespaceChanges, syncSelectedServices, findPort, inheritedLabels, isPodReady, podHostname, podInEndpoints, podIPOfFamily, podRef, sameJSON, selectedPods, serviceFamilies
} from './service-endpoints.js'

const MANAGER = 'endpoint-controller'

/** The subsets of a Service's Endpoints: addresses grouped by the ports they share (the reference's RepackSubsets). */
export function endpointSubsets (svc: AnyObject, pods: AnyObject[]): AnyObject[] {
  const publishNotReady = svc.spec?.publishNotReadyAddresses === true
  const family = serviceFamilies(svc)[0]!
  const servicePorts: AnyObject[] = svc.spec?.ports ?? []
  // Per address (its JSON), per port (its JSON, '' for none): ready or not.
  const byPort = new Map<string, Map<string, boolean>>()
  const mark = (port: string, address: string, ready: boolean): void => {
    const addresses = byPort.get(port) ?? new Map<string, boolean>()
    addresses.set(address, (addresses.get(address) ?? false) || ready)
    byPort.set(port, addresses)
  }
  for (const pod of selectedPods(svc, pods)) {
    if (!podInEndpoints(pod, publishNotReady)) continue
    const ip = podIPOfFamily(pod, family)
    if (ip === undefined) continue
    const address: AnyObject = { ip }
    const hostname = podHostname(pod, svc)
    if (hostname !== undefined) address.hostname = hostname
    if (typeof pod.spec?.nodeName === 'string' && pod.spec.nodeName !== '') address.nodeName = pod.spec.nodeName
    address.targetRef = podRef(pod)
    const ready = publishNotReady || isPodReady(pod)
    // Headless Services may have no ports: their addresses alone.
    if (servicePorts.length === 0) mark('', JSON.stringify(address), ready)
    for (const sp of servicePorts) {
      const port = findPort(pod, sp)
      if (port === undefined) continue
      const epp: AnyObject = { name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP' }
      if (typeof sp.appProtocol === 'string') epp.appProtocol = sp.appProtocol
      if (epp.name === '') delete epp.name
      mark(JSON.stringify(epp), JSON.stringify(address), ready)
    }
  }
  // Ports whose addresses (and their readiness) are alike make one subset.
  const groups = new Map<string, { addresses: Map<string, boolean>, ports: string[] }>()
  for (const [port, addresses] of byPort) {
    const key = JSON.stringify([...addresses].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
    const group = groups.get(key) ?? { addresses, ports: [] }
    group.ports.push(port)
    groups.set(key, group)
  }
  const byIP = (a: AnyObject, b: AnyObject): number => a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : (a.targetRef?.uid ?? '') < (b.targetRef?.uid ?? '') ? -1 : 1
  const subsets = [...groups.values()].map(({ addresses, ports }) => {
    const subset: AnyObject = {}
    const all = [...addresses].map(([a, ready]) => ({ address: JSON.parse(a) as AnyObject, ready }))
    const ready = all.filter(a => a.ready).map(a => a.address).sort(byIP)
    const notReady = all.filter(a => !a.ready).map(a => a.address).sort(byIP)
    if (ready.length > 0) subset.addresses = ready
    if (notReady.length > 0) subset.notReadyAddresses = notReady
    const portList = ports.filter(p => p !== '').map(p => JSON.parse(p) as AnyObject)
      .sort((a, b) => (a.name ?? '') < (b.name ?? '') ? -1 : (a.name ?? '') > (b.name ?? '') ? 1 : a.port - b.port)
    if (portList.length > 0) subset.ports = portList
    return subset
  })
  const first = (s: AnyObject): string => (s.addresses ?? s.notReadyAddresses)[0].ip
  return subsets.sort((a, b) => first(a) < first(b) ? -1 : first(a) > first(b) ? 1 : 0)
}

export default fp(async function endpointsController (fastify: FastifyInstance) {
  const store = (resource: string): ResourceStore => fastify.resources.find({ group: '', resource })!
  const caller = controllerCaller(MANAGER)
  /** Services seen deleted: their Endpoints go with them. */
  const gone = new Set<string>()
  const changes = namespaceChanges()

  async function syncService (svc: AnyObject): Promise<void> {
    const endpoints = store('endpoints')
    const { namespace, name } = svc.metadata
    const subsets = endpointSubsets(svc, store('pods').cachedObjects(namespace))
    const labels = inheritedLabels(svc, [])
    const current = endpoints.cachedObject(namespace, name)
    if (current === undefined) {
      const body: AnyObject = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace, labels }, subsets }
      if (Object.keys(labels).length === 0) delete body.metadata.labels
      // No subsets is no field (Go's omitempty), as the reference's objects read.
      if (subsets.length === 0) delete body.subsets
      await endpoints.create(namespace, body, CONTROLLER_WRITE, caller).catch((err: unknown) => { if (!(err instanceof ApiError && err.code === 409)) throw err })
      return
    }
    if (sameJSON(current.subsets ?? [], subsets) && sameJSON(current.metadata.labels ?? {}, labels)) return
    await endpoints.update(namespace, name, (old) => {
      const metadata = { ...old.metadata, labels }
      if (Object.keys(labels).length === 0) delete metadata.labels
      const { subsets: _old, ...rest } = old
      return subsets.length === 0 ? { ...rest, metadata } : { ...rest, metadata, subsets }
    }, { ...CONTROLLER_WRITE, subresource: '' }, caller)
  }

  async function deleteOrphan (key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string]
    if (store('services').cachedObject(namespace, name) !== undefined) return
    const current = store('endpoints').cachedObject(namespace, name)
    if (current === undefined) return
    await store('endpoints').delete(namespace, name, { dryRun: false, preconditions: { uid: current.metadata.uid } }, caller)
      .catch((err: unknown) => { if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err })
  }

  controllerLoop(fastify, {
    name: 'endpoint',
    watch: () => [
      changes.watch(store('pods')),
      {
        store: store('services'),
        when: (e) => {
          if (e.type === 'DELETED') gone.add(e.key.slice(store('services').prefix.length))
          return changes.watch(store('services')).when(e)
        }
      },
      changes.watch(store('endpoints'))
    ],
    async sync () {
      await store('endpoints').caughtUp()
      for (const key of [...gone]) {
        gone.delete(key)
        await deleteOrphan(key)
      }
      return await syncSelectedServices(store('services').cachedObjects(), changes, syncService)
    }
  })
}, { name: 'controller:endpoint', dependencies: ['rest'] })
