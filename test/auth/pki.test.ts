import { test } from 'node:test'
import assert from 'node:assert/strict'
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, statSync, readFileSync, unlinkSync } from 'node:fs'
import { createServer, request, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TLSSocket } from 'node:tls'
import { parse } from 'yaml'
import * as x509 from '@peculiar/x509'
import { IN_CLUSTER_DNS_NAMES, ensureCertificates, parseClientCertificate, writeKubeconfig, type Pki } from '../../auth/pki.js'
import { SERVER_NAME } from '../../resources/naming.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'

const KUBECTL = '1.31'

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'pki-test-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function pemsOf(pki: Pki): string[] {
  return [
    pki.caCertPem,
    pki.servingCertPem,
    pki.servingKeyPem,
    pki.adminCertPem,
    pki.adminKeyPem,
    pki.serviceAccountKeyPem,
    pki.serviceAccountPublicKeyPem
  ]
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

test('first call creates every file with private keys at 0600', async (t) => {
  const dir = tempDir(t)
  const pki = await ensureCertificates(dir, {})
  for (const name of ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key', 'admin.crt', 'admin.key', 'sa.key', 'sa.pub']) {
    assert.ok(existsSync(join(dir, 'pki', name)), `${name} exists`)
  }
  for (const key of [join(dir, 'pki', 'ca.key'), pki.paths.servingKey, pki.paths.adminKey, pki.paths.serviceAccountKey]) {
    assert.equal(statSync(key).mode & 0o777, 0o600, `${key} mode`)
  }
  assert.equal(pki.paths.kubeconfig, join(dir, 'admin.kubeconfig'))
  assert.equal(existsSync(pki.paths.kubeconfig), false, 'kubeconfig is left to the caller')
  assert.equal(readFileSync(pki.paths.caCert, 'utf8'), pki.caCertPem)
  for (const keyPem of [pki.servingKeyPem, pki.adminKeyPem, pki.serviceAccountKeyPem]) {
    assert.match(keyPem, /^-----BEGIN PRIVATE KEY-----/)
  }
})

test('second call loads the same material instead of regenerating', async (t) => {
  const dir = tempDir(t)
  const first = await ensureCertificates(dir, {})
  const second = await ensureCertificates(dir, {})
  assert.deepEqual(pemsOf(second), pemsOf(first))
})

test('a missing leaf is reissued alone; a missing CA reissues every certificate but keeps the SA key', async (t) => {
  const dir = tempDir(t)
  const first = await ensureCertificates(dir, {})

  unlinkSync(first.paths.adminCert)
  const second = await ensureCertificates(dir, {})
  assert.notEqual(second.adminCertPem, first.adminCertPem)
  assert.notEqual(second.adminKeyPem, first.adminKeyPem)
  assert.equal(second.caCertPem, first.caCertPem)
  assert.equal(second.servingCertPem, first.servingCertPem)
  assert.ok(new X509Certificate(second.adminCertPem).verify(new X509Certificate(second.caCertPem).publicKey))

  unlinkSync(first.paths.serviceAccountPublicKey)
  const third = await ensureCertificates(dir, {})
  assert.equal(third.serviceAccountKeyPem, first.serviceAccountKeyPem)
  assert.equal(
    createPublicKey(third.serviceAccountPublicKeyPem).export({ type: 'spki', format: 'pem' }),
    createPublicKey(first.serviceAccountPublicKeyPem).export({ type: 'spki', format: 'pem' })
  )

  unlinkSync(join(dir, 'pki', 'ca.key'))
  const fourth = await ensureCertificates(dir, {})
  assert.notEqual(fourth.caCertPem, first.caCertPem)
  assert.notEqual(fourth.servingCertPem, first.servingCertPem)
  assert.notEqual(fourth.adminCertPem, second.adminCertPem)
  assert.equal(fourth.serviceAccountKeyPem, first.serviceAccountKeyPem)
  const ca = new X509Certificate(fourth.caCertPem)
  assert.ok(new X509Certificate(fourth.servingCertPem).verify(ca.publicKey))
  assert.ok(new X509Certificate(fourth.adminCertPem).verify(ca.publicKey))
})

test('CA is a 10-year self-signed authority', async (t) => {
  const pki = await ensureCertificates(tempDir(t), {})
  const ca = new X509Certificate(pki.caCertPem)
  assert.equal(ca.ca, true)
  assert.equal(ca.subject, `CN=${SERVER_NAME}-ca`)
  assert.equal(ca.issuer, ca.subject)
  assert.ok(ca.verify(ca.publicKey))
  const years = (Date.parse(ca.validTo) - Date.parse(ca.validFrom)) / (365 * 24 * 3600 * 1000)
  assert.ok(years >= 9.99 && years <= 10.01, `validity ${years} years`)
  // Node exposes only the extended key usage, so the keyUsage bits are read with @peculiar/x509.
  const parsed = new x509.X509Certificate(pki.caCertPem)
  const ku = parsed.getExtension(x509.KeyUsagesExtension)
  assert.ok(ku?.critical)
  const want = x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature
  assert.equal(ku.usages, want)
  const bc = parsed.getExtension(x509.BasicConstraintsExtension)
  assert.equal(bc?.ca, true)
})

test('serving certificate chains to the CA and carries the SANs', async (t) => {
  const pki = await ensureCertificates(tempDir(t), {
    bindAddress: '10.1.2.3',
    hosts: ['api.example.test', '192.168.7.7', 'fd00::7']
  })
  const ca = new X509Certificate(pki.caCertPem)
  const serving = new X509Certificate(pki.servingCertPem)
  assert.ok(serving.verify(ca.publicKey))
  assert.ok(serving.checkIssued(ca))
  assert.equal(serving.ca, false)
  assert.ok(serving.checkPrivateKey(createPrivateKey(pki.servingKeyPem)))
  assert.deepEqual(serving.keyUsage, ['1.3.6.1.5.5.7.3.1'])

  const san = serving.subjectAltName ?? ''
  assert.ok(IN_CLUSTER_DNS_NAMES.includes('kubernetes') && IN_CLUSTER_DNS_NAMES.includes('kubernetes.default'))
  assert.equal(IN_CLUSTER_DNS_NAMES.length, 3)
  for (const dns of ['localhost', hostname().toLowerCase(), ...IN_CLUSTER_DNS_NAMES, 'api.example.test']) {
    assert.ok(san.includes(`DNS:${dns}`), `SAN has DNS:${dns} in ${san}`)
  }
  for (const ip of ['127.0.0.1', '10.1.2.3', '192.168.7.7']) {
    assert.equal(serving.checkIP(ip), ip, `SAN has IP ${ip}`)
  }
  assert.equal(serving.checkIP('::1'), '::1')
  assert.equal(serving.checkIP('fd00::7'), 'fd00::7')
  for (const name of IN_CLUSTER_DNS_NAMES) assert.equal(serving.checkHost(name), name)

  const years = (Date.parse(serving.validTo) - Date.parse(serving.validFrom)) / (365 * 24 * 3600 * 1000)
  assert.ok(years > 0.99 && years < 1.01, `validity ${years} years`)
})

test('wildcard bind address is not put in the SANs', async (t) => {
  const pki = await ensureCertificates(tempDir(t), { bindAddress: '0.0.0.0' })
  const serving = new X509Certificate(pki.servingCertPem)
  assert.ok(!(serving.subjectAltName ?? '').includes('0.0.0.0'))
  assert.equal(serving.checkIP('0.0.0.0'), undefined)
})

test('admin client certificate is CN=admin, O=system:masters, clientAuth', async (t) => {
  const pki = await ensureCertificates(tempDir(t), {})
  const admin = new X509Certificate(pki.adminCertPem)
  assert.equal(admin.subject, 'CN=admin\nO=system:masters')
  assert.ok(admin.verify(new X509Certificate(pki.caCertPem).publicKey))
  assert.deepEqual(admin.keyUsage, ['1.3.6.1.5.5.7.3.2'])
  assert.ok(admin.checkPrivateKey(createPrivateKey(pki.adminKeyPem)))
})

test('service-account key pair is RSA 2048 and the halves match', async (t) => {
  const pki = await ensureCertificates(tempDir(t), {})
  const priv = createPrivateKey(pki.serviceAccountKeyPem)
  assert.equal(priv.asymmetricKeyType, 'rsa')
  assert.equal(priv.asymmetricKeyDetails?.modulusLength, 2048)
  assert.equal(
    createPublicKey(priv).export({ type: 'spki', format: 'pem' }),
    createPublicKey(pki.serviceAccountPublicKeyPem).export({ type: 'spki', format: 'pem' })
  )
})

test('real TLS handshake authenticates the admin client certificate', async (t) => {
  const pki = await ensureCertificates(tempDir(t), {})
  let seen: { authorized: boolean; identity: ReturnType<typeof parseClientCertificate> } | undefined
  const server = createServer(
    { key: pki.servingKeyPem, cert: pki.servingCertPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const socket = req.socket as TLSSocket
      seen = { authorized: socket.authorized, identity: parseClientCertificate(socket.getPeerCertificate()) }
      res.end('ok')
    }
  )
  t.after(() => server.close())
  const port = await listen(server)

  const body = await new Promise<string>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        ca: pki.caCertPem,
        cert: pki.adminCertPem,
        key: pki.adminKeyPem,
        agent: false
      },
      (res) => {
        let data = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (data += c))
        res.on('end', () => resolve(data))
      }
    )
    req.on('error', reject)
    req.end()
  })
  assert.equal(body, 'ok')
  assert.equal(seen?.authorized, true)
  assert.deepEqual(seen?.identity, { username: 'admin', groups: ['system:masters'] })
})

test('parseClientCertificate maps CN and every O', () => {
  assert.deepEqual(parseClientCertificate({ subject: { CN: 'alice', O: ['dev', 'ops'] } }), {
    username: 'alice',
    groups: ['dev', 'ops']
  })
  assert.deepEqual(parseClientCertificate({ subject: { CN: 'bob' } }), { username: 'bob', groups: [] })
  assert.equal(parseClientCertificate({ subject: { O: 'dev' } }), undefined)
  assert.equal(parseClientCertificate({}), undefined)
})

test('kubeconfig is written 0600, parses, and kubectl reads it', async (t) => {
  const dir = tempDir(t)
  const pki = await ensureCertificates(dir, {})
  writeKubeconfig(pki.paths.kubeconfig, {
    server: 'https://127.0.0.1:6443',
    caCertPem: pki.caCertPem,
    clientCertPem: pki.adminCertPem,
    clientKeyPem: pki.adminKeyPem
  })
  assert.equal(statSync(pki.paths.kubeconfig).mode & 0o777, 0o600)
  const cfg = parse(readFileSync(pki.paths.kubeconfig, 'utf8'))
  assert.equal(cfg.apiVersion, 'v1')
  assert.equal(cfg.kind, 'Config')
  assert.equal(cfg.clusters[0].cluster.server, 'https://127.0.0.1:6443')
  assert.equal(Buffer.from(cfg.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), pki.caCertPem)
  assert.equal(cfg.users[0].name, 'admin')
  assert.equal(Buffer.from(cfg.users[0].user['client-certificate-data'], 'base64').toString(), pki.adminCertPem)
  assert.equal(Buffer.from(cfg.users[0].user['client-key-data'], 'base64').toString(), pki.adminKeyPem)
  assert.equal(cfg.contexts.length, 1)
  assert.equal(cfg['current-context'], cfg.contexts[0].name)
  assert.equal(cfg.contexts[0].context.cluster, cfg.clusters[0].name)
  assert.equal(cfg.contexts[0].context.user, 'admin')

  // Rewritten each start, so the port must follow.
  writeKubeconfig(pki.paths.kubeconfig, {
    server: 'https://127.0.0.1:7443',
    caCertPem: pki.caCertPem,
    clientCertPem: pki.adminCertPem,
    clientKeyPem: pki.adminKeyPem,
    user: 'root',
    cluster: 'c1',
    context: 'ctx'
  })
  const cfg2 = parse(readFileSync(pki.paths.kubeconfig, 'utf8'))
  assert.equal(cfg2.clusters[0].cluster.server, 'https://127.0.0.1:7443')
  assert.equal(cfg2['current-context'], 'ctx')
  assert.equal(statSync(pki.paths.kubeconfig).mode & 0o777, 0o600)

  if (!hasKubectl(KUBECTL)) {
    t.skip('kubectl not installed')
    return
  }
  const stdout = await kubectlFor({ kubeconfig: pki.paths.kubeconfig, version: KUBECTL }).ok(['config', 'view', '--raw', '-o', 'jsonpath={.users[0].name}'])
  assert.equal(stdout.trim(), 'root')
})

test('kubectl completes a TLS handshake with the serving and admin certificates', { skip: !hasKubectl(KUBECTL) }, async (t) => {
  const dir = tempDir(t)
  const pki = await ensureCertificates(dir, {})
  const identities: ReturnType<typeof parseClientCertificate>[] = []
  const server = createServer(
    { key: pki.servingKeyPem, cert: pki.servingCertPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      const socket = req.socket as TLSSocket
      if (socket.authorized) identities.push(parseClientCertificate(socket.getPeerCertificate()))
      res.setHeader('content-type', 'application/json')
      if (req.url?.startsWith('/version')) {
        res.end(JSON.stringify({ major: '1', minor: '31', gitVersion: 'v1.31.0', platform: 'linux/amd64' }))
      } else {
        res.statusCode = 404
        res.end('{}')
      }
    }
  )
  t.after(() => server.close())
  const port = await listen(server)
  writeKubeconfig(pki.paths.kubeconfig, {
    server: `https://127.0.0.1:${port}`,
    caCertPem: pki.caCertPem,
    clientCertPem: pki.adminCertPem,
    clientKeyPem: pki.adminKeyPem
  })
  const stdout = await kubectlFor({ kubeconfig: pki.paths.kubeconfig, version: KUBECTL, home: dir }).ok(['version', '-o', 'json'])
  assert.equal(JSON.parse(stdout).serverVersion.gitVersion, 'v1.31.0')
  assert.ok(identities.length > 0)
  assert.deepEqual(identities[0], { username: 'admin', groups: ['system:masters'] })
})

test('a name asked for later reissues the serving certificate from the same CA; the same names reissue nothing', async (t) => {
  const dir = tempDir(t)
  const first = await ensureCertificates(dir, { bindAddress: '0.0.0.0', hosts: ['fd00::7', '10.9.8.7'] })
  const again = await ensureCertificates(dir, { bindAddress: '0.0.0.0', hosts: ['fd00::7', '10.9.8.7'] })
  assert.equal(again.servingCertPem, first.servingCertPem)
  // The same addresses spelt otherwise (OpenSSL writes IPv6 uncompressed) are no new names.
  const respelt = await ensureCertificates(dir, { bindAddress: '0.0.0.0', hosts: ['FD00:0:0::7', '::ffff:10.9.8.7'] })
  assert.equal(respelt.servingCertPem, first.servingCertPem)
  const widened = await ensureCertificates(dir, { bindAddress: '0.0.0.0', hosts: ['fd00::7', '10.9.8.7', 'lb.example.test'] })
  assert.notEqual(widened.servingCertPem, first.servingCertPem)
  assert.equal(widened.caCertPem, first.caCertPem)
  assert.equal(widened.adminCertPem, first.adminCertPem)
  const serving = new X509Certificate(widened.servingCertPem)
  assert.equal(serving.checkHost('lb.example.test'), 'lb.example.test')
  assert.equal(serving.checkIP('10.9.8.7'), '10.9.8.7')
  assert.ok(serving.checkIssued(new X509Certificate(first.caCertPem)))
})
