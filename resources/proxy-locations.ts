// The proxy subresources (nodes/proxy, pods/proxy, services/proxy): where each request goes, as
// the reference's ResourceLocation of each kind finds it. The name in the path may carry a
// scheme and a port (`https:web:8443`); a pod is dialled at its IP, a service at one of its
// ready endpoints, a node at its agent (or at another of its ports over the proxy transport).
import { isIP, isIPv4 } from 'node:net'
import { badRequest, notFound, serviceUnavailable } from './status.js'
import { connectSubresource, type AnyObject, type ConnectContext, type StreamLocation, type SubresourceDefinition } from './define.js'
import { nodeAgentEndpoint } from './node-agent.js'

/** `name`, `name:port` or `scheme:name:port` (utilnet.SplitSchemeNamePort); undefined when none of them. */
export function splitSchemeNamePort (id: string): { scheme: string, name: string, port: string } | undefined {
  const parts = id.split(':')
  const [scheme, name, port] = parts.length === 1 ? ['', parts[0]!, ''] : parts.length === 2 ? ['', parts[0]!, parts[1]!] : parts.length === 3 ? parts as [string, string, string] : ['', '', '']
  if (name === '' || !['', 'http', 'https'].includes(scheme)) return undefined
  return { scheme, name, port }
}

/** The name of the object a proxy request names (`https:web:8443` names `web`); 400 for a malformed one. */
const parentNamer = (what: string) => (id: string): string => {
  const split = splitSchemeNamePort(id)
  if (split === undefined) throw badRequest(`invalid ${what} request ${JSON.stringify(id)}`)
  return split.name
}

function ipv4Octets (ip: string): number[] { return ip.split('.').map(Number) }

/** Loopback, link-local and interface-local addresses are never proxied to (utilproxy.IsProxyableIP). */
function proxyable (ip: string): boolean {
  if (isIPv4(ip)) {
    const [a, b] = ipv4Octets(ip)
    return !(a === 127 || (a === 169 && b === 254) || (a === 224 && b === 0))
  }
  const low = ip.toLowerCase()
  if (low.startsWith('::ffff:') && isIPv4(low.slice(7))) return proxyable(low.slice(7))
  return !(low === '::1' || /^fe[89ab]/.test(low) || /^ff0[12]:/.test(low) || /^ff[0-9a-f][12]:/.test(low))
}

/** Go's IsGlobalUnicast: no loopback, link-local, multicast, broadcast or unspecified address. */
function globalUnicast (ip: string): boolean {
  if (isIPv4(ip)) {
    const [a] = ipv4Octets(ip)
    return ip !== '0.0.0.0' && ip !== '255.255.255.255' && a! < 224 && proxyable(ip)
  }
  return isIP(ip) === 6 && ip !== '::' && !ip.toLowerCase().startsWith('ff') && proxyable(ip)
}

type Locate = (parent: AnyObject, options: AnyObject, ctx: ConnectContext) => Promise<StreamLocation>

/** A `<kind>/proxy` subresource: every verb carried to where `locate` says, the rest of the path in `path`. */
const proxySubresource = (optionsKind: string, parent: string, locate: Locate): SubresourceDefinition => connectSubresource({
  optionsKind,
  carries: 'proxy',
  parameters: { path: 'string' },
  parentName: parentNamer(parent),
  locate
})

const proxyPathOf = (options: AnyObject): string => typeof options.path === 'string' ? options.path : ''
const schemeOf = (scheme: string): 'http' | 'https' => scheme === 'https' ? 'https' : 'http'

/** nodes/proxy: the agent with its client certificate, or another port of the node over the proxy transport. */
export const nodeProxySubresource: SubresourceDefinition = proxySubresource('NodeProxyOptions', 'node', async (node, options, ctx) => {
  const { scheme, name, port } = splitSchemeNamePort(ctx.name)!
  const agent = await nodeAgentEndpoint(name, ctx)
  if (isIP(agent.host) !== 0 ? !proxyable(agent.host) : agent.host.toLowerCase() === 'localhost') throw badRequest('address not allowed')
  const path = proxyPathOf(options)
  if (port === '' || port === String(agent.port)) return { host: agent.host, port: agent.port, path, scheme: 'https', transport: 'agent' }
  return { host: agent.host, port: portNumber(port, agent.host), path, scheme: schemeOf(scheme), transport: 'proxy' }
})

/** A port from the path; one Go could not dial is the proxy transport's 503. */
function portNumber (port: string, host: string): number {
  const n = Number(port)
  if (!/^\d+$/.test(port) || n > 65535) throw serviceUnavailable(`error trying to reach service: dial tcp: address ${host}:${port}: invalid port`)
  return n
}

/** The pod's IP (status.podIP, else the first of status.podIPs). */
const podIP = (pod: AnyObject): string => String(pod.status?.podIP ?? pod.status?.podIPs?.[0]?.ip ?? '')

/** pods/proxy: the pod's IP, at the port named or its first declared container port. */
export const podProxySubresource: SubresourceDefinition = proxySubresource('PodProxyOptions', 'pod', async (pod, options, ctx) => {
  const { scheme, port } = splitSchemeNamePort(ctx.name)!
  let chosen = port
  if (chosen === '') {
    for (const c of (pod.spec?.containers ?? []) as AnyObject[]) {
      if ((c.ports ?? []).length > 0) { chosen = String(c.ports[0].containerPort); break }
    }
  }
  const ip = podIP(pod)
  if (!globalUnicast(ip)) throw badRequest('address not allowed')
  return { host: ip, port: chosen === '' ? undefined : portNumber(chosen, ip), path: proxyPathOf(options), scheme: schemeOf(scheme), transport: 'proxy' }
})

/** An endpoint address is used only when it names a pod of this namespace that has that IP (isValidAddress). */
async function validAddress (address: AnyObject, namespace: string, ctx: ConnectContext): Promise<boolean> {
  const ref = address.targetRef
  if (ref === undefined || ref.namespace !== namespace) return false
  const pod = await ctx.lookup({ group: '', resource: 'pods' }, namespace, String(ref.name))
  return ((pod?.status?.podIPs ?? []) as AnyObject[]).some(p => p.ip === address.ip)
}

/** services/proxy: one of the service's ready endpoints for the port named (by name or number). */
export const serviceProxySubresource: SubresourceDefinition = proxySubresource('ServiceProxyOptions', 'service', async (svc, options, ctx) => {
  const id = ctx.name
  const { scheme, name } = splitSchemeNamePort(id)!
  let { port } = splitSchemeNamePort(id)!
  const namespace = String(svc.metadata.namespace)
  if (/^[+-]?\d+$/.test(port)) {
    const declared = ((svc.spec?.ports ?? []) as AnyObject[]).find(p => p.port === Number(port))
    if (declared === undefined) throw serviceUnavailable(`no service port ${Number(port)} found for service ${JSON.stringify(name)}`)
    port = declared.name ?? ''
  }
  const endpoints = await ctx.lookup({ group: '', resource: 'endpoints' }, namespace, name)
  if (endpoints === undefined) throw notFound({ group: '', resource: 'endpoints' }, name)
  const subsets = (endpoints.subsets ?? []) as AnyObject[]
  if (subsets.length === 0) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(name)}`)
  const seed = Math.floor(Math.random() * subsets.length)
  for (let i = 0; i < subsets.length; i++) {
    const subset = subsets[(seed + i) % subsets.length]!
    const addresses = (subset.addresses ?? []) as AnyObject[]
    if (addresses.length === 0) continue
    for (const p of (subset.ports ?? []) as AnyObject[]) {
      if ((p.name ?? '') !== port) continue
      const from = Math.floor(Math.random() * addresses.length)
      for (let t = 0; t < addresses.length; t++) {
        const address = addresses[(from + t) % addresses.length]!
        if (!await validAddress(address, namespace, ctx)) continue
        return { host: String(address.ip), port: Number(p.port), path: proxyPathOf(options), scheme: schemeOf(scheme), transport: 'proxy' }
      }
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(id)}`)
})
