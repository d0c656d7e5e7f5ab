// CONNECT subresources (pods/exec, pods/attach, pods/portforward): the options come from the
// query, admission sees them with operation CONNECT, and the kind locates the stream. This
// server carries no streams to node agents, so a located stream is answered as the reference
// server answers when it cannot dial the node agent.
import type { IncomingHttpHeaders } from 'node:http'
import { isIPv6 } from 'node:net'
import { ApiError, badRequest } from '../../resources/status.js'
import type { AnyObject, ConnectDefinition, StreamLocation } from '../../resources/define.js'
import type { Query } from './options.js'
import { callerOf, relay, type RestCall } from './rest-call.js'

const INT32_MAX = 2147483647

/** The options object a CONNECT request's query describes (PodExecOptions from `?command=ls&stdout=true`). */
export function connectOptions (def: ConnectDefinition, query: Query): AnyObject {
  const options: AnyObject = { kind: def.optionsKind, apiVersion: 'v1' }
  for (const [name, type] of Object.entries(def.parameters)) {
    const raw = query[name]
    if (raw === undefined) continue
    const values = Array.isArray(raw) ? raw : [raw]
    if (values.length === 0) continue
    switch (type) {
      case 'string': options[name] = values[0]; break
      case 'strings': options[name] = values; break
      case 'boolean': {
        const v = values[0]!
        if (v !== '0' && v.toLowerCase() !== 'false') options[name] = true
        break
      }
      case 'integers':
        options[name] = values.flatMap(v => v.split(',')).map(v => {
          const n = Number(v)
          if (!/^[+-]?\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || Math.abs(n) > INT32_MAX) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`)
          return n
        })
        break
    }
  }
  return options
}

/** Whether the request asks to switch protocols (SPDY or WebSocket), as upstream's httpstream.IsUpgradeRequest. */
export const isUpgradeRequest = (headers: IncomingHttpHeaders): boolean =>
  [headers.connection ?? []].flat().some(v => v.toLowerCase().includes('upgrade'))

/** Why no stream is carried: this server dials no node agent. */
export const NO_NODE_AGENT_STREAMS = 'this server does not carry streams to node agents'

/**
 * The answer to a located stream: a request that is not an upgrade is refused as the reference
 * handler refuses it; an upgrade meets the reference server's answer to a node agent it cannot
 * dial (500 without a reason, so kubectl shows `Error from server: error dialing backend: ...`).
 */
export function unreachableStream (location: StreamLocation, headers: IncomingHttpHeaders): ApiError {
  if (!isUpgradeRequest(headers)) return badRequest('Upgrade request required')
  const host = isIPv6(location.host) ? `[${location.host}]` : location.host
  return new ApiError(500, '', `error dialing backend: dial tcp ${host}:${location.port}: ${NO_NODE_AGENT_STREAMS}`)
}

/** A CONNECT request: GET (WebSocket) or POST (SPDY) on a named object, authorized as get or create. */
export async function serveConnect (call: RestCall): Promise<unknown> {
  const { request, info } = call
  const def = call.served.subresources[call.subresource]!.connect!
  const c = callerOf(call)
  const location = await call.store.connect(call.namespace, info.name, call.subresource, connectOptions(def, call.query), c)
  relay(call.reply, c)
  throw unreachableStream(location, request.headers)
}
