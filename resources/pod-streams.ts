// The pods' CONNECT subresources (exec, attach, portforward): their options, and where each
// stream goes, as the reference server locates it (pkg/registry/core/pod streamLocation): the
// container named or the only one, the node the pod is bound to, that node's agent.
import { badRequest } from './status.js'
import { connectSubresource, type AnyObject, type ConnectContext, type StreamLocation, type SubresourceDefinition } from './define.js'
import { nodeAgentEndpoint } from './nodes.js'

type Pod = AnyObject

const allContainers = (pod: Pod): Pod[] =>
  [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...(pod.spec?.ephemeralContainers ?? [])]

/** The container a stream goes to: the one named, or the pod's only container. */
function containerFor (pod: Pod, named: unknown): string {
  const name = pod.metadata?.name as string
  if (typeof named === 'string' && named !== '') {
    if (!allContainers(pod).some(c => c.name === named)) throw badRequest(`container ${named} is not valid for pod ${name}`)
    return named
  }
  const containers: Pod[] = pod.spec?.containers ?? []
  if (containers.length === 1) return containers[0]!.name
  if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`)
  throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${allContainers(pod).map(c => c.name).join(' ')}]`)
}

async function agentLocation (pod: Pod, path: string, ctx: ConnectContext): Promise<StreamLocation> {
  const node: unknown = pod.spec?.nodeName
  if (typeof node !== 'string' || node === '') throw badRequest(`pod ${String(pod.metadata?.name)} does not have a host assigned`)
  return { ...await nodeAgentEndpoint(node, ctx), path }
}

const STREAMS = { stdin: 'boolean', stdout: 'boolean', stderr: 'boolean', tty: 'boolean', container: 'string' } as const

export const podStreamSubresources: Record<string, SubresourceDefinition<Pod>> = {
  exec: connectSubresource<Pod>({
    optionsKind: 'PodExecOptions',
    parameters: { ...STREAMS, command: 'strings' },
    async locate (pod, options, ctx) {
      const container = containerFor(pod, options.container)
      return await agentLocation(pod, `/exec/${String(pod.metadata.namespace)}/${String(pod.metadata.name)}/${container}`, ctx)
    }
  }),
  attach: connectSubresource<Pod>({
    optionsKind: 'PodAttachOptions',
    parameters: STREAMS,
    async locate (pod, options, ctx) {
      const container = containerFor(pod, options.container)
      return await agentLocation(pod, `/attach/${String(pod.metadata.namespace)}/${String(pod.metadata.name)}/${container}`, ctx)
    }
  }),
  portforward: connectSubresource<Pod>({
    optionsKind: 'PodPortForwardOptions',
    parameters: { ports: 'integers' },
    locate: async (pod, _options, ctx) => await agentLocation(pod, `/portForward/${String(pod.metadata.namespace)}/${String(pod.metadata.name)}`, ctx)
  })
}
