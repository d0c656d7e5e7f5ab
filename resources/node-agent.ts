// Where a node's agent (the svclet) listens, as the reference's kubelet connection info finds
// it: the Node's first address of the preferred types, and the port it reports.
import { ApiError, notFound } from './status.js'
import type { AnyObject, ConnectContext } from './define.js'

type Node = AnyObject

/** The address types tried for a node agent, in the reference server's default order (--kubelet-preferred-address-types). */
export const PREFERRED_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP']
/** The node agent's port when its Node reports none. */
export const DEFAULT_AGENT_PORT = 10250

/** Where a node's agent listens (upstream's GetConnectionInfo): its preferred address and reported port. */
export async function nodeAgentEndpoint (nodeName: string, ctx: ConnectContext): Promise<{ host: string, port: number }> {
  const node = await ctx.lookup({ group: '', resource: 'nodes' }, '', nodeName)
  if (node === undefined) throw notFound({ group: '', resource: 'nodes' }, nodeName)
  const addresses: Node[] = node.status?.addresses ?? []
  for (const type of ctx.nodeAddressTypes ?? PREFERRED_ADDRESS_TYPES) {
    const found = addresses.find(a => a.type === type)
    if (found !== undefined) {
      const reported: unknown = node.status?.daemonEndpoints?.kubeletEndpoint?.Port
      return { host: found.address, port: typeof reported === 'number' && reported > 0 ? reported : DEFAULT_AGENT_PORT }
    }
  }
  // A plain error upstream: 500 without a reason, the addresses in Go's %v form.
  throw new ApiError(500, '', `no preferred addresses found; known addresses: [${addresses.map(a => `{${String(a.type)} ${String(a.address)}}`).join(' ')}]`)
}

