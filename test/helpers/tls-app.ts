// A listening HTTPS server on a fresh database with the admin kubeconfig written, for tests
// that drive the API with real clients (kubectl, client libraries).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureCertificates, writeKubeconfig } from '../../auth/pki.js'
import type { AppOptions } from '../../server/app.js'
import { buildTestApp, type TestApp } from './app.js'

export interface TestServer extends TestApp {
  url: string
  kubeconfig: string
  /** Scratch directory of this server (certificates, kubeconfig). */
  dir: string
  /** The admin's TLS credentials (PEM), as the kubeconfig holds them, for clients that take them directly. */
  admin: { ca: string, cert: string, key: string }
}

/** `hooks.beforeReady` runs before the app starts (hooks that watch every request are added there). */
export async function startTestServer (t: { after (fn: () => unknown): void }, opts: Partial<AppOptions> = {},
  hooks: Parameters<typeof buildTestApp>[2] = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'apiserver-e2e-'))
  const pki = await ensureCertificates(dir, { bindAddress: '127.0.0.1' })
  const testApp = await buildTestApp(t, { clusterSigning: { certPem: pki.caCertPem, keyPem: pki.caKeyPem }, ...opts, tls: { cert: pki.servingCertPem, key: pki.servingKeyPem, clientCA: pki.caCertPem } }, hooks)
  await testApp.app.listen({ port: 0, host: '127.0.0.1' })
  const address = testApp.app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const url = `https://127.0.0.1:${port}`
  writeKubeconfig(pki.paths.kubeconfig, { server: url, caCertPem: pki.caCertPem, clientCertPem: pki.adminCertPem, clientKeyPem: pki.adminKeyPem })
  return { ...testApp, url, kubeconfig: pki.paths.kubeconfig, dir, admin: { ca: pki.caCertPem, cert: pki.adminCertPem, key: pki.adminKeyPem } }
}
