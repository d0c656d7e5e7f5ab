// A small HTTPS JSON client for the server's outbound calls (OIDC discovery, token webhook),
// with the caller's trust roots and client credentials.
import { request as httpsRequest } from 'node:https'
import { request as httpRequest } from 'node:http'

export interface TlsCredentials { ca?: string, cert?: string, key?: string }

export interface JsonResponse { status: number, body: unknown }

export function fetchJson (url: string, o: TlsCredentials & { method?: string, body?: unknown, headers?: Record<string, string>, timeoutMs?: number } = {}): Promise<JsonResponse> {
  const target = new URL(url)
  const payload = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body))
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise((resolve, reject) => {
    const req = send(target, {
      method: o.method ?? 'GET',
      ca: o.ca,
      cert: o.cert,
      key: o.key,
      minVersion: 'TLSv1.2',
      timeout: o.timeoutMs ?? 10_000,
      headers: {
        accept: 'application/json',
        ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(payload.length) }),
        ...o.headers
      }
    }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        try {
          resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) })
        } catch {
          reject(new Error(`${url}: answered ${res.statusCode ?? '?'} with a body that is not JSON`))
        }
      })
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`${url}: timed out`)))
    req.on('error', reject)
    req.end(payload)
  })
}
