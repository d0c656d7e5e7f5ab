// The transports of the streams this server carries: to a node agent (TLS with the client
// certificate of --kubelet-client-certificate/--kubelet-client-key, its certificate checked
// against --kubelet-certificate-authority, unchecked without one, as the reference's kubelet
// client), and the proxy transport to pods, services and other ports of a node (TLS never
// checked, no client certificate, as the reference's proxy transport).
import { connect as tcpConnect, isIPv6, type Socket } from 'node:net'
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls'
import type { StreamLocation } from '../../resources/define.js'
import { ApiError } from '../../resources/status.js'

/** The --kubelet-* flags. */
export interface NodeAgentOptions {
  /** --kubelet-client-certificate, --kubelet-client-key: PEM, read at start. */
  clientCertPem?: string
  clientKeyPem?: string
  /** --kubelet-certificate-authority: PEM bundle the agents' serving certificates must chain to. */
  caPem?: string
  /** --kubelet-preferred-address-types, in order. */
  preferredAddressTypes?: string[]
  /** --kubelet-timeout: how long dialling (TCP and TLS) an agent may take; default 5 s. */
  timeoutMs?: number
}

export const DEFAULT_AGENT_TIMEOUT_MS = 5000

/** `host:port` as Go's net.JoinHostPort writes it. */
export const hostPort = (host: string, port: number | undefined): string =>
  port === undefined ? host : `${isIPv6(host) ? `[${host}]` : host}:${port}`

/** The URL of a location, as the reference's errors name it (`https://10.0.0.1:10250/containerLogs/...`). */
export function locationUrl (loc: StreamLocation, query?: string): string {
  const q = loc.query ?? query ?? ''
  return `${loc.scheme}://${hostPort(loc.host, loc.port)}${loc.path}${q === '' ? '' : `?${q}`}`
}

/** The default port of a scheme, for a location that names none. */
const portOf = (loc: StreamLocation): number => loc.port ?? (loc.scheme === 'https' ? 443 : 80)

/** The TLS settings of a location's transport. */
export function tlsOptions (loc: StreamLocation, agent: NodeAgentOptions): ConnectionOptions {
  const servername = isIPv6(loc.host) || /^[\d.]+$/.test(loc.host) ? undefined : loc.host
  if (loc.transport === 'agent') {
    return {
      ...(agent.clientCertPem !== undefined && agent.clientKeyPem !== undefined ? { cert: agent.clientCertPem, key: agent.clientKeyPem } : {}),
      ...(agent.caPem !== undefined ? { ca: agent.caPem, rejectUnauthorized: true } : { rejectUnauthorized: false }),
      ...(servername === undefined ? {} : { servername })
    }
  }
  if (loc.transport === 'agent-insecure') {
    return {
      ...(agent.clientCertPem !== undefined && agent.clientKeyPem !== undefined ? { cert: agent.clientCertPem, key: agent.clientKeyPem } : {}),
      rejectUnauthorized: false,
      ...(servername === undefined ? {} : { servername })
    }
  }
  return { rejectUnauthorized: false, ...(servername === undefined ? {} : { servername }) }
}

/** Go's words for a failed dial, as the reference's errors quote them. */
function dialErrorText (err: NodeJS.ErrnoException, loc: StreamLocation): string {
  const target = hostPort(loc.host, portOf(loc))
  switch (err.code) {
    case 'ECONNREFUSED': return `dial tcp ${target}: connect: connection refused`
    case 'EHOSTUNREACH': return `dial tcp ${target}: connect: no route to host`
    case 'ENETUNREACH': return `dial tcp ${target}: connect: network is unreachable`
    case 'ENOTFOUND': return `dial tcp: lookup ${loc.host}: no such host`
    case 'ETIMEDOUT': return `dial tcp ${target}: i/o timeout`
    default: return err.code?.startsWith('ERR_TLS') === true || err.message.includes('certificate')
      ? `tls: failed to verify certificate: ${err.message}`
      : `dial tcp ${target}: ${err.message}`
  }
}

/** A dial that failed: the text Go would print for it. */
export class DialError extends Error {}

/**
 * An open connection to a location (TLS for https), resolved once the handshake is done;
 * rejects with DialError (Go's wording) when it fails or takes longer than `timeoutMs`.
 */
export async function dial (loc: StreamLocation, agent: NodeAgentOptions): Promise<Socket> {
  const timeoutMs = agent.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS
  return await new Promise<Socket>((resolve, reject) => {
    const port = portOf(loc)
    const socket: Socket = loc.scheme === 'https'
      ? tlsConnect({ host: loc.host, port, ...tlsOptions(loc, agent), ALPNProtocols: ['http/1.1'] })
      : tcpConnect({ host: loc.host, port })
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new DialError(`dial tcp ${hostPort(loc.host, port)}: i/o timeout`))
    }, timeoutMs)
    socket.once(loc.scheme === 'https' ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer)
      socket.removeAllListeners('error')
      resolve(socket)
    })
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      socket.destroy()
      reject(new DialError(dialErrorText(err, loc)))
    })
  })
}

/** The reference proxy transport's answer to a backend it could not reach (503). */
export const unreachableService = (err: unknown): ApiError =>
  new ApiError(503, 'ServiceUnavailable', `error trying to reach service: ${err instanceof Error ? err.message : String(err)}`)

/** Request headers never passed on: the caller's own credentials (spent on this server) and hop-by-hop ones. */
export const DROPPED_REQUEST_HEADERS = new Set(['authorization', 'host', 'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length'])
// HTTP/2's pseudo-headers (`:authority`, `:path`) are the request line, never headers of the hop after.
export const isDroppedRequestHeader = (name: string): boolean => DROPPED_REQUEST_HEADERS.has(name) || name.startsWith('impersonate-') || name.startsWith(':')
