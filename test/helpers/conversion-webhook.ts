// A real HTTPS conversion webhook for tests, on loopback with its own CA: each ConversionReview
// it receives is answered with what the test's handler returns for it.
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureCertificates } from '../../auth/pki.js'

type AnyObject = Record<string, any>

export interface ReceivedReview {
  path: string
  query: URLSearchParams
  review: AnyObject
}

/** A whole answer body (serialized as JSON), raw bytes, or nothing: the call hangs until the server closes. */
export type ConversionAnswer = AnyObject | { raw: string } | 'hang'
export type ConversionHandler = (review: AnyObject) => ConversionAnswer

export interface ConversionWebhookServer {
  /** `https://127.0.0.1:<port>`. */
  base: string
  port: number
  caBundle: string
  received: ReceivedReview[]
  handle (handler: ConversionHandler): void
}

/** The answer of a webhook that converts as asked: each object's apiVersion set, `change` applied, in the request's review version. */
export function converting (change: (object: AnyObject, index: number) => AnyObject = o => o): (review: AnyObject) => AnyObject {
  return (review) => ({
    apiVersion: review.apiVersion,
    kind: 'ConversionReview',
    response: {
      uid: review.request.uid,
      result: { status: 'Success' },
      convertedObjects: (review.request.objects as AnyObject[]).map((o, i) => change({ ...o, apiVersion: review.request.desiredAPIVersion }, i))
    }
  })
}

/** `hosts`: further names its certificate is valid for (a service's `<name>.<namespace>.svc`). */
export async function startConversionWebhook (t: { after (fn: () => unknown): void }, hosts: string[] = []): Promise<ConversionWebhookServer> {
  const dir = mkdtempSync(join(tmpdir(), 'conversion-webhook-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const pki = await ensureCertificates(dir, { hosts: ['127.0.0.1', ...hosts] })
  let handler: ConversionHandler = converting()
  const received: ReceivedReview[] = []
  const server: Server = createServer({ cert: pki.servingCertPem, key: pki.servingKeyPem }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://x')
      const review = JSON.parse(Buffer.concat(chunks).toString()) as AnyObject
      received.push({ path: url.pathname, query: url.searchParams, review })
      const answer = handler(review)
      if (answer === 'hang') return
      const body = 'raw' in answer && typeof answer.raw === 'string' ? answer.raw : JSON.stringify(answer)
      res.writeHead(200, { 'content-type': 'application/json' }).end(body)
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise(resolve => {
    server.closeAllConnections()
    server.close(resolve)
  }))
  const port = (server.address() as AddressInfo).port
  return {
    base: `https://127.0.0.1:${port}`,
    port,
    caBundle: Buffer.from(pki.caCertPem).toString('base64'),
    received,
    handle: (h) => { handler = h }
  }
}
