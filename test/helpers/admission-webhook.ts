// A real HTTPS admission webhook for tests, on loopback with its own CA: each path answers with
// what the test's handler returns for the AdmissionReview it received.
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureCertificates } from '../../auth/pki.js'

type AnyObject = Record<string, any>

export interface Received {
  path: string
  query: URLSearchParams
  headers: IncomingHttpHeaders
  /** The client certificate's subject CN, when the server presented one. */
  clientCN?: string
  /** The client's port: the same for calls on one kept-alive connection. */
  remotePort?: number
  review: AnyObject
}

/** What a path answers: a response object (uid filled in when absent), a whole raw answer, or nothing (the call hangs). */
export type Answer = AnyObject | { raw: { status: number, body: string } } | 'hang'
export type Handler = (review: AnyObject, received: Received) => Answer

export interface AdmissionWebhookServer {
  /** `https://<listen host>:<port>`. */
  base: string
  port: number
  caBundle: string
  received: Received[]
  /** Received calls on one path. */
  on (path: string): Received[]
  handle (path: string, handler: Handler): void
  /** Closes the kept-alive connections that are idle (as a webhook's keep-alive timeout does). */
  closeIdle (): void
}

export const allow = (extra: AnyObject = {}): AnyObject => ({ allowed: true, ...extra })
export const patchOf = (ops: unknown[]): AnyObject => ({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') })

/** Listens on `listenHost` (a loopback address: a Service's cluster IP in tests that route one). */
export async function startAdmissionWebhook (t: { after (fn: () => unknown): void }, hosts: string[] = [], listenHost = '127.0.0.1'): Promise<AdmissionWebhookServer> {
  const dir = mkdtempSync(join(tmpdir(), 'admission-webhook-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const pki = await ensureCertificates(dir, { hosts: [listenHost, ...hosts] })
  const handlers = new Map<string, Handler>()
  const received: Received[] = []
  const hanging = new Set<() => void>()
  const server: Server = createServer({ cert: pki.servingCertPem, key: pki.servingKeyPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://x')
      const peer = (req.socket as TLSSocket).getPeerCertificate()
      const review = JSON.parse(Buffer.concat(chunks).toString()) as AnyObject
      const r: Received = { path: url.pathname, query: url.searchParams, headers: req.headers, clientCN: peer?.subject?.CN as string | undefined, remotePort: req.socket.remotePort, review }
      received.push(r)
      const handler = handlers.get(url.pathname)
      const answer: Answer = handler === undefined ? allow() : handler(review, r)
      if (answer === 'hang') {
        const end = () => res.destroy()
        hanging.add(end)
        res.on('close', () => hanging.delete(end))
        return
      }
      if ('raw' in answer) {
        res.writeHead(answer.raw.status, { 'content-type': 'application/json' }).end(answer.raw.body)
        return
      }
      const response = { uid: review.request?.uid, ...answer }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, listenHost, resolve))
  t.after(() => new Promise(resolve => {
    for (const end of hanging) end()
    server.closeAllConnections()
    server.close(resolve)
  }))
  const port = (server.address() as AddressInfo).port
  return {
    base: `https://${listenHost}:${port}`,
    port,
    caBundle: Buffer.from(pki.caCertPem).toString('base64'),
    received,
    on: (path) => received.filter(r => r.path === path),
    handle: (path, handler) => { handlers.set(path, handler) },
    closeIdle: () => { server.closeIdleConnections() }
  }
}
