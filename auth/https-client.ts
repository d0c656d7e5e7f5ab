// A small HTTPS JSON client for the server's outbound calls (OIDC discovery, token webhook,
// admission webhooks), with the caller's trust roots and client credentials.
import { request as httpsRequest, type Agent } from 'node:https'
import { request as httpRequest } from 'node:http'

export interface TlsCredentials { ca?: string, cert?: string, key?: string }

export interface JsonResponse { status: number, body: unknown }

export interface FetchOptions extends TlsCredentials {
  method?: string
  body?: unknown
  headers?: Record<string, string>
  /** The whole call, connection to last byte; default 10 s. */
  timeoutMs?: number
  /** A keep-alive agent: its connections and TLS sessions are reused across calls. */
  agent?: Agent
  /** Connect here instead of the URL's host, still verifying the certificate for `servername`. */
  connectTo?: { host: string, port: number }
  /** The name the server's certificate must be valid for (default the URL's host). */
  servername?: string
  /** A body longer than this is an error (default unlimited). */
  maxBytes?: number
}

export function fetchJson (url: string, o: FetchOptions = {}): Promise<JsonResponse> {
  const target = new URL(url)
  const payload = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body))
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  const timeoutMs = o.timeoutMs ?? 10_000
  return new Promise((resolve, reject) => {
    const req = send(target, {
      method: o.method ?? 'GET',
      ca: o.ca,
      cert: o.cert,
      key: o.key,
      minVersion: 'TLSv1.2',
      ...(o.agent === undefined ? { timeout: timeoutMs } : { agent: o.agent }),
      ...(o.connectTo === undefined ? {} : { hostname: o.connectTo.host, port: o.connectTo.port }),
      ...(o.servername === undefined ? {} : { servername: o.servername }),
      headers: {
        accept: 'application/json',
        ...(o.connectTo === undefined ? {} : { host: target.host }),
        ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(payload.length) }),
        ...o.headers
      }
    }, (res) => {
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (c: Buffer) => {
        size += c.length
        if (o.maxBytes !== undefined && size > o.maxBytes) {
          req.destroy(new Error(`${url}: the response is larger than ${o.maxBytes} bytes`))
          return
        }
        chunks.push(c)
      })
      res.on('end', () => {
        clearTimeout(deadline)
        const text = Buffer.concat(chunks).toString('utf8')
        try {
          resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) })
        } catch {
          reject(new Error(`${url}: answered ${res.statusCode ?? '?'} with a body that is not JSON`))
        }
      })
      res.on('error', reject)
    })
    // The whole call's deadline: a server that trickles bytes must not hold the request.
    const deadline = setTimeout(() => req.destroy(new Error(`${url}: timed out after ${timeoutMs}ms`)), timeoutMs)
    req.on('timeout', () => req.destroy(new Error(`${url}: timed out`)))
    req.on('error', (err) => {
      clearTimeout(deadline)
      // A kept-alive connection the server closed while idle fails the next request at once:
      // the caller may send it again on a fresh one.
      if (req.reusedSocket) Object.assign(err, { reusedSocket: true })
      reject(err)
    })
    req.end(payload)
  })
}
