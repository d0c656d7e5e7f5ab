// EndpointSlice (discovery.svc.io/v1): a slice of the endpoints behind a Service, of one address
// type. The endpointslice controller keeps the slices of Services with a selector; others may be
// written by anyone (labelled with their manager). Topology labels are the v1beta1 way of naming
// an endpoint's node: the v1 API drops what is written there, keeping a node name it carried.
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { Int32, objectSchema, StringMap } from './meta.js'
import { AtomicList, ObjectReference, SetList, immutable } from './core-types.js'
import { GROUPS, HOSTNAME_LABEL } from './naming.js'
import { dnsLabelProblems, dnsSubdomainProblems, invalidEach, labelValueProblems, qualifiedNameProblems, validateLabels } from './validation.js'
import { keepZero, message } from './protobuf.js'
import { isIPv4Address, isIPv6Address, listWithMore, validateEndpointIP } from './endpoint-addresses.js'
import { PORT_PROTOCOLS } from './endpoints.js'

const opt = Type.Optional
const S = (props: Parameters<typeof Type.Object>[0], extra: object = {}) => Type.Object(props, { additionalProperties: false, ...extra })

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6']
const MAX_ENDPOINTS = 1000
const MAX_ADDRESSES = 100
const MAX_PORTS = 20000
const MAX_TOPOLOGY_LABELS = 16
const MAX_ZONE_HINTS = 8

const EndpointConditions = S({
  ready: opt(Type.Boolean({ description: 'Whether this endpoint is ready to receive traffic.' })),
  serving: opt(Type.Boolean({ description: 'Whether this endpoint can receive traffic, whether or not it is terminating.' })),
  terminating: opt(Type.Boolean({ description: 'Whether this endpoint is terminating.' }))
}, { description: 'EndpointConditions represents the current condition of an endpoint.', ...message('EndpointConditions', { ready: keepZero(1), serving: keepZero(2), terminating: keepZero(3) }) })

const ForZone = S({ name: Type.String({ description: 'The name of the zone.' }) }, message('ForZone', { name: keepZero(1) }))
const ForNode = S({ name: Type.String({ description: 'The name of the node.' }) }, message('ForNode', { name: keepZero(1) }))
const EndpointHints = S({
  forZones: opt(AtomicList(ForZone, { description: 'The zone(s) this endpoint should be consumed by.' })),
  forNodes: opt(AtomicList(ForNode, { description: 'The node(s) this endpoint should be consumed by.' }))
}, { description: 'EndpointHints provides hints describing how an endpoint should be consumed.', ...message('EndpointHints', { forZones: 1, forNodes: 2 }) })

const Endpoint = S({
  addresses: SetList(Type.String(), { description: 'The addresses of this endpoint, interpreted per the slice\'s addressType.' }),
  conditions: opt(EndpointConditions),
  hostname: opt(Type.String({ description: 'The hostname of this endpoint.' })),
  targetRef: opt(ObjectReference),
  deprecatedTopology: opt(StringMap({ description: 'Topology information of the endpoint; deprecated, dropped when written through v1.' })),
  nodeName: opt(Type.String({ description: 'The name of the node hosting this endpoint.' })),
  zone: opt(Type.String({ description: 'The name of the zone this endpoint exists in.' })),
  hints: opt(EndpointHints)
}, { description: 'Endpoint represents a single logical "backend" implementing a service.', ...message('Endpoint', { addresses: 1, conditions: keepZero(2), hostname: keepZero(3), targetRef: 4, deprecatedTopology: 5, nodeName: keepZero(6), zone: keepZero(7), hints: 8 }) })

const EndpointPort = S({
  name: opt(Type.String({ default: '', description: 'The name of this port; must be unique in the slice.' })),
  protocol: opt(Type.String({ default: 'TCP', description: 'The IP protocol for this port: TCP, UDP, or SCTP. Default is TCP.' })),
  port: opt(Int32({ description: 'The port number of the endpoint; unset means all ports.' })),
  appProtocol: opt(Type.String({ description: 'The application protocol for this port.' }))
}, { description: 'EndpointPort represents a Port used by an EndpointSlice', 'x-kubernetes-map-type': 'atomic', ...message('EndpointPort', { name: keepZero(1), protocol: keepZero(2), port: keepZero(3), appProtocol: keepZero(4) }) })

const schema = objectSchema(`${GROUPS.discovery}/v1`, 'EndpointSlice', {
  addressType: Type.String({ description: 'The type of address carried by this EndpointSlice: IPv4, IPv6 or FQDN. Immutable.' }),
  endpoints: AtomicList(Endpoint, { description: 'A list of unique endpoints in this slice.' }),
  ports: opt(AtomicList(EndpointPort, { description: 'The network ports exposed by each endpoint in this slice.' }))
}, 'EndpointSlice represents a set of service endpoints.', { endpoints: 2, ports: 3, addressType: keepZero(4) })

type Obj = Record<string, any>

function validateAddress (address: string, addressType: string, at: string): FieldError[] {
  switch (addressType) {
    case 'IPv4': return isIPv4Address(address)
      ? validateEndpointIP(address, at)
      : [{ type: 'Invalid', field: at, value: address, detail: 'must be a valid IPv4 address' }, ...validateEndpointIP(address, at)]
    case 'IPv6': return isIPv6Address(address)
      ? validateEndpointIP(address, at)
      : [{ type: 'Invalid', field: at, value: address, detail: 'must be a valid IPv6 address' }, ...validateEndpointIP(address, at)]
    case 'FQDN': return fqdnErrors(address, at)
    // Address types the server does not know are not looked at.
    default: return []
  }
}

/** The reference's IsFullyQualifiedDomainName. */
function fqdnErrors (address: string, at: string): FieldError[] {
  if (address === '') return [{ type: 'Required', field: at }]
  const name = address.endsWith('.') ? address.slice(0, -1) : address
  const subdomain = dnsSubdomainProblems(name)
  if (subdomain.length > 0) return [{ type: 'Invalid', field: at, value: name, detail: subdomain.join(',') }]
  const labels = name.split('.')
  if (labels.length < 2) return [{ type: 'Invalid', field: at, value: name, detail: 'should be a domain with at least two segments separated by dots' }]
  for (const label of labels) {
    const problems = dnsLabelProblems(label)
    if (problems.length > 0) return [{ type: 'Invalid', field: at, value: label, detail: problems.join(',') }]
  }
  return []
}

function validateEndpoints (endpoints: Obj[], addressType: string): FieldError[] {
  if (endpoints.length > MAX_ENDPOINTS) return [{ type: 'TooMany', field: 'endpoints', value: endpoints.length, detail: `must have at most ${MAX_ENDPOINTS} items` }]
  const errors: FieldError[] = []
  for (const [i, ep] of endpoints.entries()) {
    const at = `endpoints[${i}]`
    const addresses: string[] = ep.addresses ?? []
    if (addresses.length === 0) errors.push({ type: 'Required', field: `${at}.addresses`, detail: 'must contain at least 1 address' })
    else if (addresses.length > MAX_ADDRESSES) errors.push({ type: 'TooMany', field: `${at}.addresses`, value: addresses.length, detail: `must have at most ${MAX_ADDRESSES} items` })
    addresses.forEach((a, j) => errors.push(...validateAddress(a, addressType, `${at}.addresses[${j}]`)))
    if (typeof ep.nodeName === 'string') errors.push(...invalidEach(`${at}.nodeName`, ep.nodeName, dnsSubdomainProblems(ep.nodeName)))
    const topology: Record<string, string> = ep.deprecatedTopology ?? {}
    if (Object.keys(topology).length > MAX_TOPOLOGY_LABELS) {
      errors.push({ type: 'TooMany', field: `${at}.deprecatedTopology`, value: Object.keys(topology).length, detail: `must have at most ${MAX_TOPOLOGY_LABELS} items` })
    }
    errors.push(...validateLabels(topology, `${at}.deprecatedTopology`))
    if (typeof ep.hostname === 'string') errors.push(...invalidEach(`${at}.hostname`, ep.hostname, dnsLabelProblems(ep.hostname)))
    if (ep.hints !== undefined && ep.hints !== null) errors.push(...validateHints(ep.hints, `${at}.hints`))
  }
  return errors
}

function validateHints (hints: Obj, at: string): FieldError[] {
  const zones: Obj[] = hints.forZones ?? []
  if (zones.length > MAX_ZONE_HINTS) return [{ type: 'TooMany', field: `${at}.forZones`, value: zones.length, detail: `must have at most ${MAX_ZONE_HINTS} items` }]
  const errors: FieldError[] = []
  const seen = new Set<string>()
  for (const [i, z] of zones.entries()) {
    const field = `${at}.forZones[${i}].name`
    const name: string = z.name ?? ''
    if (seen.has(name)) errors.push({ type: 'Duplicate', field, value: name })
    seen.add(name)
    errors.push(...invalidEach(field, name, labelValueProblems(name)))
  }
  return errors
}

function validatePorts (ports: Obj[]): FieldError[] {
  if (ports.length > MAX_PORTS) return [{ type: 'TooMany', field: 'ports', value: ports.length, detail: `must have at most ${MAX_PORTS} items` }]
  const errors: FieldError[] = []
  const names = new Set<string>()
  for (const [i, p] of ports.entries()) {
    const at = `ports[${i}]`
    const name: string = p.name ?? ''
    if (name !== '') errors.push(...invalidEach(`${at}.name`, name, dnsLabelProblems(name)))
    if (names.has(name)) errors.push({ type: 'Duplicate', field: `${at}.name`, value: name })
    names.add(name)
    if (p.protocol === undefined || p.protocol === null) errors.push({ type: 'Required', field: `${at}.protocol` })
    else if (!PORT_PROTOCOLS.includes(p.protocol)) errors.push({ type: 'NotSupported', field: `${at}.protocol`, value: p.protocol, supported: PORT_PROTOCOLS })
    if (typeof p.appProtocol === 'string') errors.push(...invalidEach(`${at}.appProtocol`, p.appProtocol, qualifiedNameProblems(p.appProtocol)))
  }
  return errors
}

function validateSlice (eps: Obj): FieldError[] {
  const addressType: string = eps.addressType ?? ''
  const errors: FieldError[] = []
  if (addressType === '') errors.push({ type: 'Required', field: 'addressType' })
  else if (!ADDRESS_TYPES.includes(addressType)) errors.push({ type: 'NotSupported', field: 'addressType', value: addressType, supported: ADDRESS_TYPES })
  errors.push(...validateEndpoints(eps.endpoints ?? [], addressType))
  errors.push(...validatePorts(eps.ports ?? []))
  return errors
}

/**
 * The reference's dropTopologyOnV1: topology written through v1 is dropped, unless the
 * endpoints did not change; a node name it carried that the old slice knew fills an empty nodeName.
 */
function dropTopology (eps: Obj, old: Obj | undefined): void {
  if (old !== undefined && isDeepStrictEqual(old.endpoints ?? null, eps.endpoints ?? null)) return
  const known = new Set<string>()
  for (const ep of old?.endpoints ?? []) {
    const node = ep?.deprecatedTopology?.[HOSTNAME_TOPOLOGY_LABEL]
    if (typeof node === 'string') known.add(node)
  }
  for (const ep of eps.endpoints ?? []) {
    if (ep === null || typeof ep !== 'object') continue
    const node = ep.deprecatedTopology?.[HOSTNAME_TOPOLOGY_LABEL]
    if ((ep.nodeName === undefined || ep.nodeName === null) && typeof node === 'string' && known.has(node) && dnsSubdomainProblems(node).length === 0) ep.nodeName = node
    delete ep.deprecatedTopology
  }
}
/** The node label v1beta1 kept an endpoint's node name under (upstream kubernetes.io/hostname; ours where naming.ts spells it). */
const HOSTNAME_TOPOLOGY_LABEL = HOSTNAME_LABEL

/** kubectl's PORTS cell: each port's number, or its name when it has none, `*` when neither. */
function portsText (eps: Obj): string {
  return listWithMore((eps.ports ?? []).map((p: Obj) => typeof p.port === 'number' ? String(p.port) : typeof p.name === 'string' ? p.name : '*'), '<unset>')
}

/** kubectl's ENDPOINTS cell: the addresses of every endpoint, at most three shown. */
function endpointsText (eps: Obj): string {
  return listWithMore((eps.endpoints ?? []).flatMap((e: Obj) => e.addresses ?? []), '<unset>')
}

export default defineResource({
  group: GROUPS.discovery,
  version: 'v1',
  kind: 'EndpointSlice',
  plural: 'endpointslices',
  singular: 'endpointslice',
  scope: 'Namespaced',
  schema,
  // Bumped on every change beyond metadata (and on label changes, below), as the reference's strategy does.
  generation: true,
  strategy: {
    prepareForCreate (eps) { dropTopology(eps, undefined) },
    prepareForUpdate (eps, old) {
      dropTopology(eps, old)
      if (!isDeepStrictEqual(eps.metadata?.labels ?? {}, old.metadata?.labels ?? {})) eps.metadata!.generation = (old.metadata?.generation ?? 0) + 1
    },
    validate: validateSlice,
    validateUpdate: (eps, old) => [...validateSlice(eps), ...immutable('addressType', eps.addressType, old.addressType)]
  },
  columns: [
    { name: 'AddressType', type: 'string', description: 'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name. (Deprecated) The EndpointSlice controller only generates, and kube-proxy only processes, slices of addressType "IPv4" and "IPv6". No semantics are defined for the "FQDN" type.', value: (e: Obj) => e.addressType ?? '' },
    { name: 'Ports', type: 'string', description: 'ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. Each slice may include a maximum of 100 ports. Services always have at least 1 port, so EndpointSlices generated by the EndpointSlice controller will likewise always have at least 1 port. EndpointSlices used for other purposes may have an empty ports list.', value: portsText },
    { name: 'Endpoints', type: 'string', description: 'endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.', value: endpointsText }
  ],
  example: {
    metadata: { name: 'example-slice' },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.1.2.3'], conditions: { ready: true } }],
    ports: [{ name: 'http', protocol: 'TCP', port: 8080 }]
  }
})
