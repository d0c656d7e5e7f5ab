// How a webhook is reached: its URL, or its service's address (`<name>.<namespace>.svc`, the
// name its certificate must carry) from --admission-webhook-service-address first, else from
// the Service itself (an ExternalName's host; an address of its Endpoints at the port its
// targetPort resolves to; else a cluster IP this host can route to); TLS verified
// against the webhook's caBundle (the system roots without one); kept-alive connections and
// reused TLS sessions through one agent; the answer capped and parsed.
import { Agent } from 'node:https'
import { fetchJson } from './https-client.js'
import { ADMISSION_WEBHOOK } from '../resources/naming.js'
import type { CredentialResolver } from './webhook-credentials.js'

type AnyObject = Record<string, any>

/** Larger answers are a call error. */
export const MAX_RESPONSE_BYTES = 3 * 1024 * 1024

export interface WebhookTarget {
  /** The URL the webhook is called at (service references as `https://<name>.<namespace>.svc:<port><path>`). */
  url: string
  /** Where to connect when it is not the URL's host. */
  connectTo?: { host: string, port: number }
  /** Whose credentials apply: the service DNS name (`:port` unless 443) or the URL's host. */
  credentialsKey: string
}

export function targetOf (clientConfig: AnyObject, addresses: Record<string, string>): WebhookTarget {
  if (typeof clientConfig.url === 'string') {
    return { url: clientConfig.url, credentialsKey: new URL(clientConfig.url).host }
  }
  const s = clientConfig.service as AnyObject
  const host = `${String(s.name)}.${String(s.namespace)}.${ADMISSION_WEBHOOK.serviceDomain}`
  const port = typeof s.port === 'number' ? s.port : 443
  const hostPort = port === 443 ? host : `${host}:${port}`
  const path = typeof s.path === 'string' && s.path !== '' ? s.path : '/'
  const address = addresses[`${host}:${port}`] ?? addresses[host]
  const target: WebhookTarget = { url: `https://${host}:${port}${path}`, credentialsKey: hostPort }
  if (address !== undefined) {
    const colon = address.lastIndexOf(':')
    target.connectTo = { host: address.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(address.slice(colon + 1)) }
  }
  return target
}

/** `host:port` values of --admission-webhook-service-address, checked at start-up. */
export function parseServiceAddresses (entries: Record<string, string>): Record<string, string> {
  for (const [service, address] of Object.entries(entries)) {
    const colon = address.lastIndexOf(':')
    const port = Number(address.slice(colon + 1))
    if (colon <= 0 || !Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--admission-webhook-service-address: ${service}=${address}: want host:port`)
  }
  return entries
}

/** The Service a webhook reference names and its Endpoints, as stored; either undefined when there is none. */
export type ServiceLookup = (namespace: string, name: string) => Promise<{ service?: AnyObject, endpoints?: AnyObject }>

/** Reads a Service and its Endpoints of the stores (the freshest this replica has). */
export function storedServiceLookup (read: (resource: 'services' | 'endpoints', namespace: string, name: string) => Promise<AnyObject | undefined>): ServiceLookup {
  return async (namespace, name) => {
    const [service, endpoints] = await Promise.all([read('services', namespace, name), read('endpoints', namespace, name)])
    return { service, endpoints }
  }
}

/**
 * Where a call for a Service's `port` goes: an ExternalName's host; else, when the Service's
 * Endpoints have a ready address serving that port (by the Service port's name), that address at
 * its port (the targetPort, resolved in the pod), as the reference server's endpoint resolver
 * (--enable-aggregator-routing) does, since this server runs no proxy that would carry a cluster
 * IP on to a pod; else the cluster IP at the Service port, reached only when this host routes it
 * (a range of loopback or host addresses), as the reference's cluster resolver calls it.
 */
export function serviceEndpoint (svc: AnyObject | undefined, name: string, port: number, endpoints?: AnyObject): { host: string, port: number } {
  if (svc === undefined) throw new Error(`service "${name}" not found`)
  const spec = svc.spec ?? {}
  if (spec.type === 'ExternalName') return { host: String(spec.externalName), port }
  if (spec.clusterIP === 'None') throw new Error('cannot route to service with ClusterIP None')
  if (!['ClusterIP', 'NodePort', 'LoadBalancer'].includes(spec.type)) throw new Error(`unsupported service type "${String(spec.type)}"`)
  const servicePort = (spec.ports ?? []).find((p: AnyObject) => p.port === port)
  if (servicePort === undefined) throw new Error(`no service port ${port} found for service "${name}"`)
  const candidates: Array<{ host: string, port: number }> = []
  for (const ss of endpoints?.subsets ?? []) {
    const epPort = (ss?.ports ?? []).find((p: AnyObject) => (p?.name ?? '') === (servicePort.name ?? ''))
    if (typeof epPort?.port !== 'number') continue
    for (const a of ss.addresses ?? []) if (typeof a?.ip === 'string') candidates.push({ host: a.ip, port: epPort.port })
  }
  // A random ready endpoint, as the reference's resolver picks one.
  if (candidates.length > 0) return candidates[Math.floor(Math.random() * candidates.length)]!
  return { host: String(spec.clusterIP), port }
}

export interface WebhookTransport {
  /** `maxResponseBytes` defaults to MAX_RESPONSE_BYTES. */
  post (clientConfig: AnyObject, body: unknown, timeoutSeconds: number, maxResponseBytes?: number): Promise<unknown>
}

export function webhookTransport (addresses: Record<string, string>, credentials: CredentialResolver, lookupService?: ServiceLookup): WebhookTransport {
  // One agent for every webhook: it keys its pools and TLS sessions by host, CA and client
  // certificate, so connections are reused per webhook and never shared across trust settings.
  const agent = new Agent({ keepAlive: true, maxCachedSessions: 256 })
  return {
    async post (clientConfig, body, timeoutSeconds, maxResponseBytes = MAX_RESPONSE_BYTES) {
      const target = targetOf(clientConfig, addresses)
      const url = new URL(target.url)
      const ref = clientConfig.service as AnyObject | undefined
      if (target.connectTo === undefined && typeof ref === 'object' && ref !== null) {
        if (lookupService === undefined) throw new Error(`Post "${target.url}": no address is known for service ${String(ref.namespace)}/${String(ref.name)}`)
        try {
          const { service, endpoints } = await lookupService(String(ref.namespace), String(ref.name))
          target.connectTo = serviceEndpoint(service, String(ref.name), typeof ref.port === 'number' ? ref.port : 443, endpoints)
        } catch (err) {
          throw new Error(`Post "${target.url}": ${(err as Error).message}`)
        }
      }
      // As the reference server does, the webhook learns its deadline from the URL.
      url.searchParams.set('timeout', `${timeoutSeconds}s`)
      const creds = credentials(target.credentialsKey)
      const ca = typeof clientConfig.caBundle === 'string' && clientConfig.caBundle !== '' ? Buffer.from(clientConfig.caBundle, 'base64').toString('utf8') : undefined
      const send = () => fetchJson(url.toString(), {
        method: 'POST',
        body,
        agent,
        ca,
        cert: creds.cert,
        key: creds.key,
        headers: creds.authorization === undefined ? {} : { authorization: creds.authorization },
        timeoutMs: timeoutSeconds * 1000,
        maxBytes: maxResponseBytes,
        connectTo: target.connectTo,
        servername: target.connectTo === undefined ? undefined : url.hostname
      })
      try {
        let res
        try {
          res = await send()
        } catch (err) {
          // The webhook closed an idle kept-alive connection as this call went out on it: nothing reached it.
          const e = err as NodeJS.ErrnoException & { reusedSocket?: boolean }
          if (e.reusedSocket !== true || (e.code !== 'ECONNRESET' && e.code !== 'EPIPE')) throw err
          res = await send()
        }
        if (res.status !== 200) throw new Error(`the server responded with HTTP ${res.status}`)
        return res.body
      } catch (err) {
        throw new Error(`Post "${url.toString()}": ${(err as Error).message.replace(`${url.toString()}: `, '')}`)
      }
    }
  }
}
