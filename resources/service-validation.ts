// A Service's defaults and validation, as the reference server's v1 defaults and
// ValidateService / ValidateServiceUpdate have them (allocation is service-allocation.ts).
import { isDeepStrictEqual } from 'node:util'
import type { FieldError } from './define.js'
import { cidrProblems, dns1035LabelProblems, dnsLabelProblems, dnsSubdomainProblems, invalidEach, portNameProblems, validateLabels } from './validation.js'
import { familyOf } from './value-ranges.js'

type Svc = Record<string, any>
type Port = Record<string, any>

export const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']
export const PROTOCOLS = ['SCTP', 'TCP', 'UDP']
export const IP_FAMILIES = ['IPv4', 'IPv6']
export const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack']
const TRAFFIC_POLICIES = ['Cluster', 'Local']
const SESSION_AFFINITIES = ['ClientIP', 'None']
export const CLUSTER_IP_NONE = 'None'
const DEFAULT_CLIENT_IP_TIMEOUT = 10800
const MAX_CLIENT_IP_TIMEOUT = 86400
const PORT_RANGE_DETAIL = 'must be between 1 and 65535, inclusive'
const IP_DETAIL = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'

export const needsClusterIP = (svc: Svc): boolean => svc.spec?.type !== 'ExternalName'
export const needsNodePorts = (svc: Svc): boolean => svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer'
export const isHeadless = (svc: Svc): boolean => svc.spec?.clusterIP === CLUSTER_IP_NONE
/** A LoadBalancer keeping client addresses needs a port the nodes answer health checks on. */
export const needsHealthCheck = (svc: Svc): boolean => svc.spec?.type === 'LoadBalancer' && svc.spec?.externalTrafficPolicy === 'Local'
export const shouldAllocateNodePorts = (svc: Svc): boolean =>
  svc.spec?.type === 'NodePort' || (svc.spec?.type === 'LoadBalancer' && svc.spec?.allocateLoadBalancerNodePorts !== false)

/** SetDefaults_Service: what decoding a v1 Service fills in. */
export function defaultService (svc: Svc): void {
  const spec = svc.spec ??= {}
  if (spec.type === undefined || spec.type === '') spec.type = 'ClusterIP'
  if (spec.sessionAffinity === undefined || spec.sessionAffinity === '') spec.sessionAffinity = 'None'
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig
  if (spec.sessionAffinity === 'ClientIP') {
    spec.sessionAffinityConfig ??= {}
    spec.sessionAffinityConfig.clientIP ??= {}
    spec.sessionAffinityConfig.clientIP.timeoutSeconds ??= DEFAULT_CLIENT_IP_TIMEOUT
  }
  for (const port of (spec.ports ?? []) as Port[]) {
    if (port.protocol === undefined || port.protocol === '') port.protocol = 'TCP'
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port
  }
  if (needsNodePorts(svc) && (spec.externalTrafficPolicy === undefined || spec.externalTrafficPolicy === '')) spec.externalTrafficPolicy = 'Cluster'
  if (spec.type !== 'ExternalName') spec.internalTrafficPolicy ??= 'Cluster'
  if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true
  svc.status ??= {}
  svc.status.loadBalancer ??= {}
}

/** NormalizeClusterIPs on create: a client that sent only the singular field gets the plural. */
export function normalizeCreatedClusterIPs (svc: Svc): void {
  const spec = svc.spec
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '' && (spec.clusterIPs ?? []).length === 0) spec.clusterIPs = [spec.clusterIP]
}

/** patchAllocatedValues and NormalizeClusterIPs on update: what an older client left out is kept. */
export function carryAllocatedValues (svc: Svc, old: Svc): void {
  const spec = svc.spec
  const was = old.spec ?? {}
  if (needsClusterIP(old) && needsClusterIP(svc)) {
    if (spec.clusterIP === undefined || spec.clusterIP === '') spec.clusterIP = was.clusterIP
    if ((spec.clusterIPs ?? []).length === 0 && (was.clusterIPs ?? []).length > 0) spec.clusterIPs = was.clusterIPs
  }
  if (needsNodePorts(old) && needsNodePorts(svc)) {
    const used = (s: Svc): Set<number> => new Set(((s.spec?.ports ?? []) as Port[]).map(p => p.nodePort).filter(n => typeof n === 'number' && n !== 0))
    const oldUsed = used(old)
    const both = new Set([...used(svc)].filter(n => oldUsed.has(n)))
    const byName = new Map<string, number>(((was.ports ?? []) as Port[]).map(p => [p.name ?? '', p.nodePort ?? 0]))
    for (const port of (spec.ports ?? []) as Port[]) {
      if (port.nodePort !== undefined && port.nodePort !== 0) continue
      const previous = byName.get(port.name ?? '') ?? 0
      if (previous !== 0 && !both.has(previous)) port.nodePort = previous
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(svc) && (spec.healthCheckNodePort ?? 0) === 0 && was.healthCheckNodePort !== undefined) {
    spec.healthCheckNodePort = was.healthCheckNodePort
  }
  const oldIPs: string[] = was.clusterIPs ?? []
  const newIPs: string[] = spec.clusterIPs ?? []
  if (oldIPs.length > 0 && newIPs.length === 0 && (was.clusterIP ?? '') === (spec.clusterIP ?? '')) spec.clusterIPs = oldIPs
  if ((was.clusterIP ?? '') !== (spec.clusterIP ?? '')) {
    const sameIPs = isDeepStrictEqual(oldIPs, spec.clusterIPs ?? [])
    if ((was.clusterIP ?? '') !== '' && (spec.clusterIP ?? '') === '') {
      if (sameIPs) delete spec.clusterIPs
    } else if (sameIPs) spec.clusterIPs = [spec.clusterIP]
  }
}

/** dropTypeDependentFields: a type change clears what only the old type needed, when the client left it as it was. */
export function dropTypeDependentFields (svc: Svc, old: Svc): void {
  const spec = svc.spec
  const was = old.spec ?? {}
  const same = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a ?? null, b ?? null)
  if (needsClusterIP(old) && !needsClusterIP(svc)) {
    if (same(spec.clusterIPs, was.clusterIPs) && same(spec.clusterIP, was.clusterIP)) { delete spec.clusterIP; delete spec.clusterIPs }
    if (same(spec.ipFamilies, was.ipFamilies)) delete spec.ipFamilies
    if (same(spec.ipFamilyPolicy, was.ipFamilyPolicy)) delete spec.ipFamilyPolicy
  }
  if (needsNodePorts(old) && !needsNodePorts(svc)) {
    const nodePorts = (s: Svc) => ((s.spec?.ports ?? []) as Port[]).map(p => p.nodePort ?? 0)
    if (same(nodePorts(svc), nodePorts(old))) for (const p of (spec.ports ?? []) as Port[]) delete p.nodePort
  }
  if (needsHealthCheck(old) && !needsHealthCheck(svc) && spec.healthCheckNodePort === was.healthCheckNodePort) delete spec.healthCheckNodePort
  if (was.type === 'LoadBalancer' && spec.type !== 'LoadBalancer') {
    if (spec.allocateLoadBalancerNodePorts === was.allocateLoadBalancerNodePorts) delete spec.allocateLoadBalancerNodePorts
    if (spec.loadBalancerClass === was.loadBalancerClass) delete spec.loadBalancerClass
  }
  if (needsNodePorts(old) && !needsNodePorts(svc) && spec.externalTrafficPolicy === was.externalTrafficPolicy) delete spec.externalTrafficPolicy
  if (spec.type === 'ExternalName' && was.type !== 'ExternalName' && spec.internalTrafficPolicy === was.internalTrafficPolicy) delete spec.internalTrafficPolicy
  if (spec.type !== 'LoadBalancer') svc.status = { ...(svc.status ?? {}), loadBalancer: {} }
}

const validPort = (n: unknown): boolean => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 65535

function validatePorts (svc: Svc): FieldError[] {
  const spec = svc.spec
  const ports: Port[] = spec.ports ?? []
  const errors: FieldError[] = []
  if (ports.length === 0 && !isHeadless(svc) && spec.type !== 'ExternalName') errors.push({ type: 'Required', field: 'spec.ports' })
  const names = new Set<string>()
  const keys = new Set<string>()
  const nodePorts = new Set<string>()
  ports.forEach((port, i) => {
    const at = `spec.ports[${i}]`
    const name: string = port.name ?? ''
    if (ports.length > 1 && name === '') errors.push({ type: 'Required', field: `${at}.name` })
    if (name !== '') {
      for (const p of dnsLabelProblems(name)) errors.push({ type: 'Invalid', field: `${at}.name`, value: name, detail: p })
      if (names.has(name)) errors.push({ type: 'Duplicate', field: `${at}.name`, value: name })
      names.add(name)
    }
    if (!validPort(port.port)) errors.push({ type: 'Invalid', field: `${at}.port`, value: port.port, detail: PORT_RANGE_DETAIL })
    if (!PROTOCOLS.includes(port.protocol)) errors.push({ type: 'NotSupported', field: `${at}.protocol`, value: port.protocol, supported: PROTOCOLS })
    if (typeof port.targetPort === 'number') {
      if (!validPort(port.targetPort)) errors.push({ type: 'Invalid', field: `${at}.targetPort`, value: port.targetPort, detail: PORT_RANGE_DETAIL })
    } else if (typeof port.targetPort === 'string') {
      for (const p of portNameProblems(port.targetPort)) errors.push({ type: 'Invalid', field: `${at}.targetPort`, value: port.targetPort, detail: p })
    }
    const key = `${String(port.port)}/${String(port.protocol)}`
    if (keys.has(key)) errors.push({ type: 'Duplicate', field: at, value: { port: port.port, protocol: port.protocol } })
    keys.add(key)
    const nodePort = port.nodePort
    if (nodePort !== undefined && nodePort !== 0) {
      if (spec.type === 'ClusterIP') errors.push({ type: 'Forbidden', field: `${at}.nodePort`, detail: "may not be used when `type` is 'ClusterIP'" })
      else if (!validPort(nodePort)) errors.push({ type: 'Invalid', field: `${at}.nodePort`, value: nodePort, detail: PORT_RANGE_DETAIL })
      const nodeKey = `${String(nodePort)}/${String(port.protocol)}`
      if (nodePorts.has(nodeKey)) errors.push({ type: 'Duplicate', field: `${at}.nodePort`, value: nodePort })
      nodePorts.add(nodeKey)
    }
  })
  return errors
}

/** The cluster IP fields alone (the allocator's loose check before it looks at them). */
export function validateClusterIPs (svc: Svc): FieldError[] {
  const spec = svc.spec
  const errors: FieldError[] = []
  const ips: string[] = spec.clusterIPs ?? []
  const families: string[] = spec.ipFamilies ?? []
  if (spec.type === 'ExternalName') {
    if ((spec.clusterIP ?? '') !== '' || ips.length > 0) errors.push({ type: 'Forbidden', field: 'spec.clusterIPs', detail: 'may not be set for ExternalName services' })
    if (families.length > 0) errors.push({ type: 'Forbidden', field: 'spec.ipFamilies', detail: 'may not be set for ExternalName services' })
    if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) errors.push({ type: 'Forbidden', field: 'spec.ipFamilyPolicy', detail: 'may not be set for ExternalName services' })
    return errors
  }
  if (spec.ipFamilyPolicy !== undefined && !IP_FAMILY_POLICIES.includes(spec.ipFamilyPolicy)) {
    errors.push({ type: 'NotSupported', field: 'spec.ipFamilyPolicy', value: spec.ipFamilyPolicy, supported: IP_FAMILY_POLICIES })
  }
  if ((spec.clusterIP ?? '') !== '' && ips.length > 0 && spec.clusterIP !== ips[0]) {
    errors.push({ type: 'Invalid', field: 'spec.clusterIPs', value: ips, detail: 'first value must match `clusterIP`' })
  }
  if (ips.length > 2) errors.push({ type: 'Invalid', field: 'spec.clusterIPs', value: ips, detail: 'may only hold up to 2 values' })
  ips.forEach((ip, i) => {
    if (i === 0 && ip === CLUSTER_IP_NONE) {
      if (needsNodePorts(svc)) errors.push({ type: 'Invalid', field: 'spec.clusterIPs[0]', value: ip, detail: `may not be set to 'None' for ${String(spec.type)} services` })
      return
    }
    if (ips[0] === CLUSTER_IP_NONE) {
      errors.push({ type: 'Invalid', field: `spec.clusterIPs[${i}]`, value: ips, detail: "must not be set when clusterIPs[0] is 'None'" })
      return
    }
    const family = familyOf(ip)
    if (family === undefined) {
      errors.push({ type: 'Invalid', field: `spec.clusterIPs[${i}]`, value: ip, detail: IP_DETAIL })
      return
    }
    if (families[i] !== undefined && IP_FAMILIES.includes(families[i]!) && families[i] !== family) {
      errors.push({ type: 'Invalid', field: `spec.clusterIPs[${i}]`, value: ips, detail: `expected an ${families[i]!} value as indicated by \`ipFamilies[${i}]\`` })
    }
  })
  if (ips.length === 2 && ips[0] !== CLUSTER_IP_NONE && familyOf(ips[0]!) !== undefined && familyOf(ips[0]!) === familyOf(ips[1]!)) {
    errors.push({ type: 'Invalid', field: 'spec.clusterIPs', value: ips, detail: 'may specify no more than one IP for each IP family' })
  }
  if (families.length > 2) errors.push({ type: 'Invalid', field: 'spec.ipFamilies', value: families, detail: 'may specify no more than one IP for each IP family' })
  const seen = new Set<string>()
  families.forEach((f, i) => {
    if (!IP_FAMILIES.includes(f)) errors.push({ type: 'NotSupported', field: `spec.ipFamilies[${i}]`, value: f, supported: IP_FAMILIES })
    else if (seen.has(f)) errors.push({ type: 'Duplicate', field: `spec.ipFamilies[${i}]`, value: f })
    seen.add(f)
  })
  return errors
}

function validateTraffic (svc: Svc): FieldError[] {
  const spec = svc.spec
  const errors: FieldError[] = []
  if (needsNodePorts(svc)) {
    if (spec.externalTrafficPolicy === undefined || spec.externalTrafficPolicy === '') errors.push({ type: 'Required', field: 'spec.externalTrafficPolicy' })
    else if (!TRAFFIC_POLICIES.includes(spec.externalTrafficPolicy)) errors.push({ type: 'NotSupported', field: 'spec.externalTrafficPolicy', value: spec.externalTrafficPolicy, supported: TRAFFIC_POLICIES })
  } else if (spec.externalTrafficPolicy !== undefined && spec.externalTrafficPolicy !== '') {
    errors.push({ type: 'Invalid', field: 'spec.externalTrafficPolicy', value: spec.externalTrafficPolicy, detail: 'may only be set for externally-accessible services' })
  }
  const hc = spec.healthCheckNodePort
  if (hc !== undefined && hc !== 0) {
    if (!needsHealthCheck(svc)) errors.push({ type: 'Invalid', field: 'spec.healthCheckNodePort', value: hc, detail: "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'" })
    else if (!validPort(hc)) errors.push({ type: 'Invalid', field: 'spec.healthCheckNodePort', value: hc, detail: PORT_RANGE_DETAIL })
  }
  if (spec.type !== 'ExternalName') {
    if (spec.internalTrafficPolicy === undefined) errors.push({ type: 'Required', field: 'spec.internalTrafficPolicy' })
    else if (!TRAFFIC_POLICIES.includes(spec.internalTrafficPolicy)) errors.push({ type: 'NotSupported', field: 'spec.internalTrafficPolicy', value: spec.internalTrafficPolicy, supported: TRAFFIC_POLICIES })
  }
  return errors
}

const LOAD_BALANCER_ONLY = "may only be used when `type` is 'LoadBalancer'"
export const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges'

/**
 * The source ranges, from the field or else from the older annotation (comma-separated):
 * LoadBalancers only, each a CIDR once trimmed (values padded with spaces were accepted when
 * they moved from the annotation). The field path is the reference's, capital L included.
 */
function validateSourceRanges (svc: Svc): FieldError[] {
  const ranges: string[] = svc.spec.loadBalancerSourceRanges ?? []
  const annotation: unknown = svc.metadata?.annotations?.[SOURCE_RANGES_ANNOTATION]
  const errors: FieldError[] = []
  if (ranges.length > 0) {
    const field = 'spec.LoadBalancerSourceRanges'
    if (svc.spec.type !== 'LoadBalancer') errors.push({ type: 'Forbidden', field, detail: LOAD_BALANCER_ONLY })
    ranges.forEach((r, i) => errors.push(...invalidEach(`${field}[${i}]`, r.trim(), cidrProblems(r.trim()))))
  } else if (typeof annotation === 'string') {
    const field = `metadata.annotations[${SOURCE_RANGES_ANNOTATION}]`
    if (svc.spec.type !== 'LoadBalancer') errors.push({ type: 'Forbidden', field, detail: LOAD_BALANCER_ONLY })
    const value = annotation.trim()
    if (value !== '') for (const r of value.split(',')) errors.push(...invalidEach(field, r.trim(), cidrProblems(r.trim())))
  }
  return errors
}

function validateLoadBalancerFields (svc: Svc): FieldError[] {
  const spec = svc.spec
  const errors = validateSourceRanges(svc)
  if (spec.type === 'LoadBalancer') return errors
  if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts !== null) errors.push({ type: 'Forbidden', field: 'spec.allocateLoadBalancerNodePorts', detail: LOAD_BALANCER_ONLY })
  if ((spec.loadBalancerClass ?? '') !== '') errors.push({ type: 'Forbidden', field: 'spec.loadBalancerClass', detail: LOAD_BALANCER_ONLY })
  return errors
}

/** ValidateService. */
export function validateService (svc: Svc): FieldError[] {
  const spec = svc.spec
  if (spec === undefined) return [{ type: 'Required', field: 'spec' }]
  const errors: FieldError[] = []
  if (!SERVICE_TYPES.includes(spec.type)) errors.push({ type: 'NotSupported', field: 'spec.type', value: spec.type, supported: SERVICE_TYPES })
  if (spec.type === 'ExternalName') {
    const name: string = (spec.externalName ?? '').replace(/\.$/, '')
    if (name === '') errors.push({ type: 'Required', field: 'spec.externalName' })
    else for (const p of dnsSubdomainProblems(name)) errors.push({ type: 'Invalid', field: 'spec.externalName', value: spec.externalName, detail: p })
  }
  errors.push(...validatePorts(svc), ...validateClusterIPs(svc), ...validateTraffic(svc), ...validateLoadBalancerFields(svc))
  if (!SESSION_AFFINITIES.includes(spec.sessionAffinity)) errors.push({ type: 'NotSupported', field: 'spec.sessionAffinity', value: spec.sessionAffinity, supported: SESSION_AFFINITIES })
  const timeout = spec.sessionAffinityConfig?.clientIP?.timeoutSeconds
  if (spec.sessionAffinity === 'ClientIP' && (typeof timeout !== 'number' || timeout <= 0 || timeout > MAX_CLIENT_IP_TIMEOUT)) {
    errors.push({ type: 'Invalid', field: 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', value: timeout, detail: `must be greater than 0 and less than ${MAX_CLIENT_IP_TIMEOUT}` })
  }
  if (spec.sessionAffinity === 'None' && spec.sessionAffinityConfig !== undefined) {
    errors.push({ type: 'Invalid', field: 'spec.sessionAffinityConfig', value: spec.sessionAffinityConfig, detail: `must not be set when session affinity is None` })
  }
  ((spec.externalIPs ?? []) as string[]).forEach((ip, i) => {
    if (familyOf(ip) === undefined) errors.push({ type: 'Invalid', field: `spec.externalIPs[${i}]`, value: ip, detail: IP_DETAIL })
  })
  errors.push(...validateLabels(spec.selector, 'spec.selector'))
  return errors
}

/** ValidateServiceUpdate beyond ValidateService: the addresses may only be added or released, never changed. */
export function validateServiceUpdate (svc: Svc, old: Svc): FieldError[] {
  if (svc.spec?.type === 'ExternalName' || old.spec?.type === 'ExternalName') return []
  if (isHeadless(svc) && isHeadless(old)) return []
  const errors: FieldError[] = []
  const changed = (field: string, was: string[], now: string[], what: string) => {
    if (was.length === now.length) {
      was.forEach((v, i) => { if (v !== now[i]) errors.push({ type: 'Invalid', field: `${field}[${i}]`, value: now, detail: 'may not change once set' }) })
      return
    }
    if (was.length > now.length) {
      if (now.length === 0) errors.push({ type: 'Invalid', field: `${field}[0]`, value: now, detail: `primary ${what} can not be unset` })
      if (was.length > 0 && now.length > 0 && now[0] !== was[0]) errors.push({ type: 'Invalid', field: `${field}[0]`, value: now, detail: 'may not change once set' })
      if (now.length === 1 && svc.spec?.ipFamilyPolicy !== 'SingleStack') {
        errors.push({ type: 'Invalid', field: `${field}[0]`, value: now, detail: `\`ipFamilyPolicy\` must be set to 'SingleStack' when releasing the secondary ${what}` })
      }
      return
    }
    if (was.length > 0 && now[0] !== was[0]) errors.push({ type: 'Invalid', field: `${field}[0]`, value: now, detail: 'may not change once set' })
  }
  changed('spec.clusterIPs', old.spec?.clusterIPs ?? [], svc.spec?.clusterIPs ?? [], 'clusterIP')
  changed('spec.ipFamilies', old.spec?.ipFamilies ?? [], svc.spec?.ipFamilies ?? [], 'IP family')
  return errors
}

/** Service names are DNS-1035 labels (they become DNS names and environment variables). */
export function serviceNameProblems (name: string): Array<{ type: 'Invalid' | 'TooLong', detail: string }> {
  return dns1035LabelProblems(name).map(detail => ({ type: detail.startsWith('must be no more than') ? 'TooLong' as const : 'Invalid' as const, detail }))
}
