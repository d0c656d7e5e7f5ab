// One HTTP exchange with a backend (a node agent, a pod, a service's endpoint) over a connection
// dialled by backend.ts: what pods/log reads and what the proxy subresources pass through.
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http'
import type { StreamLocation } from '../../resources/define.js'
import { dial, hostPort, isDroppedRequestHeader, type NodeAgentOptions } from './backend.js'

export interface ForwardRequest {
  method: string
  /** Path and query, as sent on the request line. */
  target: string
  headers: OutgoingHttpHeaders
  body?: Buffer
}

/**
 * Sends one request to the location and resolves to the response (its body unread). Rejects
 * with DialError when the backend cannot be reached; `signal` aborts the exchange (the client
 * went away).
 */
export async function forward (loc: StreamLocation, agent: NodeAgentOptions, req: ForwardRequest, signal?: AbortSignal): Promise<IncomingMessage> {
  const socket = await dial(loc, agent)
  return await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = httpRequest({
      method: req.method,
      path: req.target,
      headers: { ...req.headers, host: hostPort(loc.host, loc.port), ...(req.body === undefined ? {} : { 'content-length': req.body.length }) },
      createConnection: () => socket,
      ...(signal === undefined ? {} : { signal })
    }, resolve)
    outgoing.once('error', (err) => { socket.destroy(); reject(err) })
    outgoing.end(req.body)
  })
}

/** The client's headers a backend gets: its own credentials and the hop-by-hop ones removed. */
export function passedHeaders (headers: IncomingHttpHeaders, remoteAddress: string | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || isDroppedRequestHeader(name)) continue
    out[name] = value
  }
  // As Go's reverse proxy: the client's address appended to what earlier proxies said.
  if (remoteAddress !== undefined) {
    const prior = headers['x-forwarded-for']
    out['x-forwarded-for'] = prior === undefined ? remoteAddress : `${[prior].flat().join(', ')}, ${remoteAddress}`
  }
  return out
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade'])

/** A backend's response headers as the client gets them: hop-by-hop ones removed. */
export function returnedHeaders (headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue
    out[name] = value
  }
  return out
}
