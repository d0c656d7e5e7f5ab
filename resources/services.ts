// Service (core v1): a stable name and virtual address for a set of endpoints. Its cluster IPs
// and node ports are claimed from the server's pools (service-allocation.ts) so that no two
// Services hold one, whichever replica wrote them; defaults and validation are the reference
// server's (service-validation.ts).
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource } from './define.js'
import { serviceProxySubresource } from './proxy-locations.js'
import { AGE_COLUMN, Int32, Int64, objectSchema, StringMap } from './meta.js'
import { AtomicList, Condition, MapList } from './core-types.js'
import { IntOrString } from './pod-types.js'
import { beginServiceCreate, beginServiceUpdate, SERVICE_POOLS, serviceHeldValues } from './service-allocation.js'
import {
  carryAllocatedValues, defaultService, dropTypeDependentFields, normalizeCreatedClusterIPs, serviceNameProblems, validateService, validateServiceUpdate
} from './service-validation.js'
import { ipRange, parseCidr, parsePortRange, portRange, type ValueRange } from './value-ranges.js'
import { JSON_ONLY, keepZero, message, wireOnly } from './protobuf.js'
import { warnOnWrite } from './deprecation-warnings.js'
import { DEPRECATED_ANNOTATIONS } from './naming.js'

// The topology annotation under its name before 1.27 (upstream service.kubernetes.io/topology-aware-hints), deprecated for topology-mode.
const TOPOLOGY_AWARE_HINTS = DEPRECATED_ANNOTATIONS.topologyAwareHints
const TOPOLOGY_MODE = DEPRECATED_ANNOTATIONS.topologyMode

const opt = Type.Optional
const S = (props: Parameters<typeof Type.Object>[0], extra: object = {}) => Type.Object(props, { additionalProperties: false, ...extra })
const str = () => Type.String()

const ServicePort = S({
  name: opt(str()),
  protocol: opt(Type.String({ default: 'TCP' })),
  appProtocol: opt(str()),
  port: Int32(),
  targetPort: opt(IntOrString()),
  nodePort: opt(Int32())
}, message('ServicePort', { name: 1, protocol: 2, appProtocol: keepZero(6), port: keepZero(3), targetPort: 4, nodePort: 5 }))

const PortStatus = S({ port: Int32(), protocol: str(), error: opt(str()) }, message('PortStatus', { port: keepZero(1), protocol: keepZero(2), error: keepZero(3) }))
const LoadBalancerStatus = S({
  ingress: opt(AtomicList(S({ ip: opt(str()), hostname: opt(str()), ipMode: opt(str()), ports: opt(AtomicList(PortStatus)) }, message('LoadBalancerIngress', { ip: 1, hostname: 2, ipMode: keepZero(3), ports: 4 }))))
}, message('LoadBalancerStatus', { ingress: 1 }))

const schema = objectSchema('v1', 'Service', {
  spec: opt(S({
    ports: opt(MapList(ServicePort, ['port', 'protocol'])),
    selector: opt(StringMap({ 'x-kubernetes-map-type': 'atomic' })),
    clusterIP: opt(str()),
    clusterIPs: opt(AtomicList(str())),
    type: opt(str()),
    externalIPs: opt(AtomicList(str())),
    sessionAffinity: opt(str()),
    loadBalancerIP: opt(str()),
    loadBalancerSourceRanges: opt(AtomicList(str())),
    externalName: opt(str()),
    externalTrafficPolicy: opt(str()),
    healthCheckNodePort: opt(Int32()),
    publishNotReadyAddresses: opt(Type.Boolean()),
    sessionAffinityConfig: opt(S({ clientIP: opt(S({ timeoutSeconds: opt(Int32()) }, message('ClientIPConfig', { timeoutSeconds: keepZero(1) }))) }, message('SessionAffinityConfig', { clientIP: 1 }))),
    ipFamilies: opt(AtomicList(str())),
    ipFamilyPolicy: opt(str()),
    allocateLoadBalancerNodePorts: opt(Type.Boolean()),
    loadBalancerClass: opt(str()),
    internalTrafficPolicy: opt(str()),
    trafficDistribution: opt(str())
  }, message('ServiceSpec', {
    ports: 1,
    selector: 2,
    clusterIP: 3,
    clusterIPs: 18,
    type: 4,
    externalIPs: 5,
    sessionAffinity: 7,
    loadBalancerIP: 8,
    loadBalancerSourceRanges: 9,
    externalName: 10,
    externalTrafficPolicy: 11,
    healthCheckNodePort: 12,
    publishNotReadyAddresses: 13,
    sessionAffinityConfig: 14,
    ipFamilies: 19,
    ipFamilyPolicy: keepZero(17),
    allocateLoadBalancerNodePorts: keepZero(20),
    loadBalancerClass: keepZero(21),
    internalTrafficPolicy: keepZero(22),
    trafficDistribution: keepZero(23)
  }))),
  status: opt(S({
    loadBalancer: opt(LoadBalancerStatus),
    conditions: opt(MapList(Condition(message('meta.v1.Condition', { type: keepZero(1), status: keepZero(2), lastProbeTime: JSON_ONLY, lastTransitionTime: 4, reason: keepZero(5), message: keepZero(6) }, undefined, { observedGeneration: wireOnly(3, Int64()) })), ['type']))
  }, message('ServiceStatus', { loadBalancer: 1, conditions: 2 })))
}, 'Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.', { spec: 2, status: 3 })

type Svc = Record<string, any>

/** What --service-cluster-ip-range and --service-node-port-range configure. */
export interface ServiceRanges {
  /** One CIDR, or two of different families (dual stack), the primary first. Default 10.96.0.0/12. */
  clusterIPRanges?: string[]
  /** Default 30000-32767. */
  nodePortRange?: string
}

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.96.0.0/12'
export const DEFAULT_SERVICE_NODE_PORT_RANGE = '30000-32767'

/** The pools the flags configure; throws, naming the flag, when they are malformed. */
export function servicePools (ranges: ServiceRanges = {}): Array<{ name: string, range: ValueRange }> {
  const cidrs = ranges.clusterIPRanges ?? [DEFAULT_SERVICE_CLUSTER_IP_RANGE]
  if (cidrs.length === 0 || cidrs.length > 2) throw new Error('--service-cluster-ip-range: want one CIDR, or two of different IP families')
  const pools = cidrs.map(text => {
    const cidr = parseCidr(text.trim())
    if (cidr === undefined) throw new Error(`--service-cluster-ip-range: "${text}" is not a CIDR`)
    const range = ipRange(cidr)
    if (range.size < 1n) throw new Error(`--service-cluster-ip-range: ${text} holds no address to allocate`)
    return { name: SERVICE_POOLS.clusterIPs(cidr.family), range }
  })
  if (pools.length === 2 && pools[0]!.name === pools[1]!.name) throw new Error('--service-cluster-ip-range: the two ranges must be of different IP families (dual stack)')
  const ports = parsePortRange(ranges.nodePortRange ?? DEFAULT_SERVICE_NODE_PORT_RANGE)
  if (ports === undefined) throw new Error(`--service-node-port-range: "${String(ranges.nodePortRange)}" is not a port range (30000-32767)`)
  return [...pools, { name: SERVICE_POOLS.nodePorts, range: portRange(ports) }]
}

/** The first address of the primary range: the `kubernetes` Service's cluster IP. */
export function firstServiceIP (ranges: ServiceRanges = {}): string {
  const primary = servicePools(ranges)[0]!
  return primary.range.valueAt(0n)
}

function clusterIPText (svc: Svc): string {
  const ips: string[] = svc.spec?.clusterIPs ?? []
  if (ips.length > 0) return ips.join(',')
  return svc.spec?.clusterIP !== undefined && svc.spec.clusterIP !== '' ? svc.spec.clusterIP : '<none>'
}

function externalIPText (svc: Svc): string {
  const spec = svc.spec ?? {}
  const external: string[] = spec.externalIPs ?? []
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>'
    case 'LoadBalancer': {
      const ingress = ((svc.status?.loadBalancer?.ingress ?? []) as Svc[]).map(i => i.ip ?? i.hostname).filter((v): v is string => typeof v === 'string' && v !== '')
      const all = [...ingress, ...external]
      return all.length > 0 ? all.join(',') : '<pending>'
    }
    case 'ExternalName': return spec.externalName ?? '<none>'
    default: return '<unknown>'
  }
}

function portsText (svc: Svc): string {
  const ports: Svc[] = svc.spec?.ports ?? []
  if (ports.length === 0) return '<none>'
  return ports.map(p => (p.nodePort ?? 0) > 0 ? `${String(p.port)}:${String(p.nodePort)}/${String(p.protocol)}` : `${String(p.port)}/${String(p.protocol)}`).join(',')
}

function selectorText (svc: Svc): string {
  const entries = Object.entries((svc.spec?.selector ?? {}) as Record<string, string>).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${v}`).join(',')
}

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'Service',
  plural: 'services',
  singular: 'service',
  shortNames: ['svc'],
  categories: ['all'],
  scope: 'Namespaced',
  schema,
  nameRule: serviceNameProblems,
  deleteReturns: 'Object',
  subresources: { status: statusSubresource(), proxy: serviceProxySubresource },
  strategy: {
    ...warnOnWrite((svc: Record<string, any>) => Object.hasOwn(svc.metadata?.annotations ?? {}, TOPOLOGY_AWARE_HINTS)
      ? [`annotation ${TOPOLOGY_AWARE_HINTS} is deprecated, please use ${TOPOLOGY_MODE} instead`]
      : []),
    // PUT creates, as the reference's strategy allows (AllowCreateOnUpdate).
    allowCreateOnUpdate: true,
    prepareForCreate (svc) {
      defaultService(svc)
      normalizeCreatedClusterIPs(svc)
    },
    prepareForUpdate (svc, old) {
      defaultService(svc)
      carryAllocatedValues(svc, old)
      dropTypeDependentFields(svc, old)
    },
    beginCreate: async (svc, ctx) => await beginServiceCreate(svc, ctx),
    beginUpdate: async (svc, old, ctx) => await beginServiceUpdate(svc, old, ctx),
    heldValues: serviceHeldValues,
    validate: (svc) => validateService(svc),
    validateUpdate: (svc, old) => validateServiceUpdate(svc, old)
  },
  columns: [
    { name: 'Type', type: 'string', description: 'The type of the service', value: (s: Svc) => s.spec?.type },
    { name: 'Cluster-IP', type: 'string', description: 'The cluster addresses of the service', value: clusterIPText },
    { name: 'External-IP', type: 'string', description: 'The addresses the service is reached at from outside', value: externalIPText },
    { name: 'Port(s)', type: 'string', description: 'The ports of the service, with their node ports', value: portsText },
    AGE_COLUMN,
    { name: 'Selector', type: 'string', priority: 1, description: 'The pods the service routes to', value: selectorText }
  ],
  fieldSelectors: {
    'spec.clusterIP': (s: Svc) => s.spec?.clusterIP,
    'spec.type': (s: Svc) => s.spec?.type
  },
  example: {
    metadata: { name: 'web' },
    spec: { selector: { app: 'web' }, ports: [{ protocol: 'TCP', port: 80, targetPort: 8080 }] },
    status: { loadBalancer: {}, conditions: [{ type: 'example.com/Reachable', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'ProbeSucceeded', message: 'the service answered a probe' }] }
  }
})
