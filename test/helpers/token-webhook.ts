// A real HTTPS token webhook for tests, reached through a kubeconfig-format connection file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stringify } from 'yaml'
import { ensureCertificates } from '../../auth/pki.js'

export interface Review { apiVersion: string, kind: string, spec: { token: string, audiences?: string[] } }

/** A real HTTPS token webhook: "good" is alice-from-webhook, "denied" carries an error, "unknown" none, "boom" is a 500. */
export async function startWebhook (t: { after (fn: () => unknown): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const pki = await ensureCertificates(dir)
  const reviews: Review[] = []
  const server: Server = createServer({ cert: pki.servingCertPem, key: pki.servingKeyPem }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString()) as Review
      reviews.push(review)
      const token = review.spec.token
      if (token === 'boom') { res.writeHead(500).end('{}'); return }
      const status = token === 'good'
        ? { authenticated: true, user: { username: 'webhook-user', uid: 'w-1', groups: ['from-webhook'], extra: { team: ['blue'] } } }
        : token === 'denied' ? { authenticated: false, error: 'token revoked upstream' } : { authenticated: false }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise(resolve => server.close(resolve)))
  const configFile = join(dir, 'webhook.kubeconfig')
  writeFileSync(configFile, stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'webhook', cluster: { server: `https://127.0.0.1:${(server.address() as AddressInfo).port}/authenticate`, 'certificate-authority-data': Buffer.from(pki.caCertPem).toString('base64') } }],
    users: [{ name: 'apiserver', user: { 'client-certificate-data': Buffer.from(pki.adminCertPem).toString('base64'), 'client-key-data': Buffer.from(pki.adminKeyPem).toString('base64') } }],
    contexts: [{ name: 'webhook', context: { cluster: 'webhook', user: 'apiserver' } }],
    'current-context': 'webhook'
  }))
  return { configFile, reviews }
}

