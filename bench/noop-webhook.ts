// A no-op validating admission webhook for the benchmark, in a process of its own (its CPU is
// not the server's): HTTPS on loopback with a CA of its own, allowing every request. Prints one
// JSON line `{ port, caBundle }` once it listens; runs until killed.
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { ensureCertificates } from '../auth/pki.js'

const dir = process.argv[2]
if (dir === undefined) throw new Error('usage: noop-webhook.ts <certificate directory>')
const pki = await ensureCertificates(dir, { hosts: ['127.0.0.1'] })
const server = createServer({ cert: pki.servingCertPem, key: pki.servingKeyPem, keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString()) as { apiVersion: string, request: { uid: string } }
    res.writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }))
  })
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, caBundle: Buffer.from(pki.caCertPem).toString('base64') })}\n`)
})
process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)) })
