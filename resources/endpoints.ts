// Endpoints (core v1): the addresses behind a Service, as one object of the Service's name. The
// endpoints controller writes them for Services with a selector; anyone may write them for a
// Service without one. Deprecated upstream in favour of EndpointSlices, still read by many clients.
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { GROUPS } from './naming.js'
import { Int32, objectSchema } from './meta.js'
import { AtomicList, ObjectReference } from './core-types.js'
import { dnsLabelProblems, dnsSubdomainProblems, invalidEach } from './validation.js'
import { keepZero, message } from './protobuf.js'
import { INVALID_IP_DETAIL, listWithMore, validateEndpointIP } from './endpoint-addresses.js'
import { isIP } from 'node:net'

const opt = Type.Optional
const S = (props: Parameters<typeof Type.Object>[0], extra: object = {}) => Type.Object(props, { additionalProperties: false, ...extra })

export const PORT_PROTOCOLS = ['SCTP', 'TCP', 'UDP']

const EndpointAddress = S({
  ip: Type.String({ description: 'The IP of this endpoint.' }),
  hostname: opt(Type.String({ description: 'The Hostname of this endpoint' })),
  nodeName: opt(Type.String({ description: 'The node hosting this endpoint.' })),
  targetRef: opt(ObjectReference)
}, { description: 'EndpointAddress is a tuple that describes single IP address.', 'x-kubernetes-map-type': 'atomic', ...message('EndpointAddress', { ip: keepZero(1), targetRef: 2, hostname: 3, nodeName: 4 }) })

const EndpointPort = S({
  name: opt(Type.String({ description: 'The name of this port; optional when there is only one.' })),
  port: Int32({ description: 'The port number of the endpoint.' }),
  protocol: opt(Type.String({ default: 'TCP', description: 'The IP protocol for this port: TCP, UDP, or SCTP. Default is TCP.' })),
  appProtocol: opt(Type.String({ description: 'The application protocol for this port.' }))
}, { description: 'EndpointPort is a tuple that describes a single port.', 'x-kubernetes-map-type': 'atomic', ...message('EndpointPort', { name: 1, port: keepZero(2), protocol: 3, appProtocol: keepZero(4) }) })

const EndpointSubset = S({
  addresses: opt(AtomicList(EndpointAddress, { description: 'IP addresses which offer the related ports that are marked as ready.' })),
  notReadyAddresses: opt(AtomicList(EndpointAddress, { description: 'IP addresses which offer the related ports but are not currently marked as ready.' })),
  ports: opt(AtomicList(EndpointPort, { description: 'Port numbers available on the related IP addresses.' }))
}, { description: 'EndpointSubset is a group of addresses with a common set of ports.', ...message('EndpointSubset', { addresses: 1, notReadyAddresses: 2, ports: 3 }) })

const schema = objectSchema('v1', 'Endpoints', {
  subsets: opt(AtomicList(EndpointSubset, { description: 'The set of all endpoints is the union of all subsets.' }))
}, 'Endpoints is a collection of endpoints that implement the actual service.', { subsets: 2 })

type Obj = Record<string, any>

function protocolErrors (protocol: unknown, field: string): FieldError[] {
  if (protocol === undefined || protocol === null || protocol === '') return [{ type: 'Required', field }]
  return PORT_PROTOCOLS.includes(protocol as string) ? [] : [{ type: 'NotSupported', field, value: protocol, supported: PORT_PROTOCOLS }]
}

function validateAddress (addr: Obj, at: string): FieldError[] {
  const ip: string = addr.ip ?? ''
  const errors: FieldError[] = isIP(ip) === 0 ? [{ type: 'Invalid', field: `${at}.ip`, value: ip, detail: INVALID_IP_DETAIL }] : []
  if ((addr.hostname ?? '') !== '') errors.push(...invalidEach(`${at}.hostname`, addr.hostname, dnsLabelProblems(addr.hostname)))
  if (typeof addr.nodeName === 'string') errors.push(...invalidEach(`${at}.nodeName`, addr.nodeName, dnsSubdomainProblems(addr.nodeName)))
  // Special addresses are looked at only once the address is otherwise well formed.
  if (errors.length > 0) return errors
  return validateEndpointIP(ip, `${at}.ip`)
}

function validatePort (port: Obj, requireName: boolean, at: string): FieldError[] {
  const errors: FieldError[] = []
  const name: string = port.name ?? ''
  if (requireName && name === '') errors.push({ type: 'Required', field: `${at}.name` })
  else if (name !== '') errors.push(...invalidEach(`${at}.name`, name, dnsLabelProblems(name)))
  const n = port.port ?? 0
  if (!(n >= 1 && n <= 65535)) errors.push({ type: 'Invalid', field: `${at}.port`, value: n, detail: 'must be between 1 and 65535, inclusive' })
  errors.push(...protocolErrors(port.protocol, `${at}.protocol`))
  return errors
}

/** The reference's ValidateEndpoints (validateEndpointSubsets). */
function validateSubsets (subsets: Obj[] | undefined): FieldError[] {
  const errors: FieldError[] = []
  for (const [i, ss] of (subsets ?? []).entries()) {
    const at = `subsets[${i}]`
    const addresses: Obj[] = ss.addresses ?? []
    const notReady: Obj[] = ss.notReadyAddresses ?? []
    if (addresses.length === 0 && notReady.length === 0) errors.push({ type: 'Required', field: at, detail: 'must specify `addresses` or `notReadyAddresses`' })
    addresses.forEach((a, j) => errors.push(...validateAddress(a, `${at}.addresses[${j}]`)))
    notReady.forEach((a, j) => errors.push(...validateAddress(a, `${at}.notReadyAddresses[${j}]`)))
    const ports: Obj[] = ss.ports ?? []
    ports.forEach((p, j) => errors.push(...validatePort(p, ports.length > 1, `${at}.ports[${j}]`)))
  }
  return errors
}

/** An IP and port as Go's net.JoinHostPort writes them. */
export const joinHostPort = (ip: string, port: number): string => ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`

/** kubectl's ENDPOINTS cell: every ready address at every port (`ip:port`), at most three shown. */
export function endpointsText (ep: Obj): string {
  const subsets: Obj[] = ep.subsets ?? []
  if (subsets.length === 0) return '<none>'
  const items: string[] = []
  for (const ss of subsets) {
    const addresses: Obj[] = ss.addresses ?? []
    const ports: Obj[] = ss.ports ?? []
    // Headless Services may have no ports: their addresses alone.
    if (ports.length === 0) items.push(...addresses.map(a => String(a.ip ?? '')))
    for (const p of ports) items.push(...addresses.map(a => joinHostPort(String(a.ip ?? ''), p.port ?? 0)))
  }
  return listWithMore(items, '')
}

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  plural: 'endpoints',
  // KEP-4974: every request to v1 Endpoints is warned about (the reference's prerelease-lifecycle markers).
  lifecycle: { version: 'v1', introduced: '1.0', deprecated: '1.33', replacement: `${GROUPS.discovery}/v1 EndpointSlice` },
  singular: 'endpoints',
  shortNames: ['ep'],
  scope: 'Namespaced',
  schema,
  strategy: {
    // PUT creates, as the reference's strategy allows (AllowCreateOnUpdate).
    allowCreateOnUpdate: true,
    validate: (ep) => validateSubsets(ep.subsets),
    validateUpdate: (ep) => validateSubsets(ep.subsets)
  },
  columns: [
    { name: 'Endpoints', type: 'string', description: 'The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.', value: endpointsText }
  ],
  example: {
    metadata: { name: 'example-endpoints' },
    subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }]
  }
})
