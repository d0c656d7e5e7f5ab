// A real HTTPS image policy backend for tests, on loopback with its own CA: answers each
// ImageReview with what the test's handler returns, and writes the kubeconfig that names it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { IncomingHttpHeaders } from 'node:http'
import { createServer as createPlainServer, type AddressInfo } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { ensureCertificates } from '../../auth/pki.js'

type AnyObject = Record<string, any>

export interface ReceivedReview {
  path: string
  headers: IncomingHttpHeaders
  /** The client certificate's subject CN, when the caller presented one. */
  clientCN?: string
  review: AnyObject
}

/** The ImageReview status to answer with, or a whole raw answer. */
export type ReviewAnswer = AnyObject | { raw: { status: number, body: string } }

export interface ImagePolicyBackend {
  /** `https://127.0.0.1:<port>/review`, the URL the kubeconfig names. */
  url: string
  received: ReceivedReview[]
  handle (handler: (review: AnyObject) => ReviewAnswer): void
  /** Writes a kubeconfig naming `server` (this backend by default) with this backend's CA, a token and a client certificate. */
  writeKubeconfig (file: string, server?: string): void
}

export const TOKEN = 'image-policy-token'

/** A loopback port nothing listens on. */
export async function closedPort (): Promise<number> {
  const s = createPlainServer()
  await new Promise<void>(resolve => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as AddressInfo).port
  await new Promise(resolve => s.close(resolve))
  return port
}

export async function startImagePolicyBackend (t: { after (fn: () => unknown): void }): Promise<ImagePolicyBackend> {
  const dir = mkdtempSync(join(tmpdir(), 'image-policy-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const pki = await ensureCertificates(dir, { hosts: ['127.0.0.1'] })
  const received: ReceivedReview[] = []
  let handler: (review: AnyObject) => ReviewAnswer = () => ({ allowed: true })
  const server: Server = createServer({ cert: pki.servingCertPem, key: pki.servingKeyPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString()) as AnyObject
      const peer = (req.socket as TLSSocket).getPeerCertificate()
      received.push({ path: req.url ?? '', headers: req.headers, clientCN: peer?.subject?.CN as string | undefined, review })
      const answer = handler(review)
      if ('raw' in answer) {
        res.writeHead(answer.raw.status, { 'content-type': 'application/json' }).end(answer.raw.body)
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'ImageReview', spec: review.spec, status: answer }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise(resolve => {
    server.closeAllConnections()
    server.close(resolve)
  }))
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/review`
  const b64 = (s: string): string => Buffer.from(s).toString('base64')
  return {
    url,
    received,
    handle: (h) => { handler = h },
    writeKubeconfig (file, serverUrl = url) {
      writeFileSync(file, stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'image-policy', cluster: { server: serverUrl, 'certificate-authority-data': b64(pki.caCertPem) } }],
        users: [{ name: 'apiserver', user: { token: TOKEN, 'client-certificate-data': b64(pki.adminCertPem), 'client-key-data': b64(pki.adminKeyPem) } }],
        contexts: [{ name: 'default', context: { cluster: 'image-policy', user: 'apiserver' } }],
        'current-context': 'default'
      }))
    }
  }
}
