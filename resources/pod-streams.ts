// The pods' stream subresources (exec, attach, portforward, log, proxy): their options, and where
// each stream goes, as the reference server locates it (pkg/registry/core/pod streamLocation,
// LogLocation): the container named or the only one, the node the pod is bound to, that node's agent.
import { badRequest, fieldError, type FieldError } from './status.js'
import { connectSubresource, type AnyObject, type ConnectContext, type StreamLocation, type SubresourceDefinition } from './define.js'
import { nodeAgentEndpoint } from './node-agent.js'
import { podProxySubresource } from './proxy-locations.js'

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
  return { ...await nodeAgentEndpoint(node, ctx), path, scheme: 'https', transport: 'agent' }
}

/** PodLogOptions' rules (ValidatePodLogOptions). */
function validateLogOptions (o: AnyObject): FieldError[] {
  const errors: FieldError[] = []
  if (typeof o.tailLines === 'number' && o.tailLines < 0) errors.push(fieldError('Invalid', 'tailLines', o.tailLines, 'must be greater than or equal to 0'))
  if (typeof o.limitBytes === 'number' && o.limitBytes < 1) errors.push(fieldError('Invalid', 'limitBytes', o.limitBytes, 'must be greater than 0'))
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) errors.push(fieldError('Forbidden', '', undefined, 'at most one of `sinceTime` or `sinceSeconds` may be specified'))
  else if (typeof o.sinceSeconds === 'number' && o.sinceSeconds < 1) errors.push(fieldError('Invalid', 'sinceSeconds', o.sinceSeconds, 'must be greater than 0'))
  return errors
}

/** The agent's query for a log (LogLocation): the options set, in the reference's order. */
function logQuery (o: AnyObject): string {
  const q = new URLSearchParams()
  if (o.follow === true) q.append('follow', 'true')
  if (o.previous === true) q.append('previous', 'true')
  if (o.timestamps === true) q.append('timestamps', 'true')
  if (o.sinceSeconds !== undefined) q.append('sinceSeconds', String(o.sinceSeconds))
  if (o.sinceTime !== undefined) q.append('sinceTime', String(o.sinceTime))
  if (o.tailLines !== undefined) q.append('tailLines', String(o.tailLines))
  if (o.limitBytes !== undefined) q.append('limitBytes', String(o.limitBytes))
  // url.Values.Encode sorts by key.
  return [...q.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
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
  }),
  log: connectSubresource<Pod>({
    optionsKind: 'PodLogOptions',
    carries: 'read',
    parameters: {
      container: 'string', follow: 'boolean', previous: 'boolean', sinceSeconds: 'integer', sinceTime: 'time',
      timestamps: 'boolean', tailLines: 'integer', limitBytes: 'integer', insecureSkipTLSVerifyBackend: 'boolean'
    },
    validate: validateLogOptions,
    async locate (pod, options, ctx) {
      const container = containerFor(pod, options.container)
      // A pod on no node has no log yet: an empty answer.
      const node: unknown = pod.spec?.nodeName
      if (typeof node !== 'string' || node === '') return undefined
      const location = await agentLocation(pod, `/containerLogs/${String(pod.metadata.namespace)}/${String(pod.metadata.name)}/${container}`, ctx)
      return { ...location, query: logQuery(options), transport: options.insecureSkipTLSVerifyBackend === true ? 'agent-insecure' : 'agent' }
    }
  }),
  proxy: podProxySubresource as SubresourceDefinition<Pod>
}
