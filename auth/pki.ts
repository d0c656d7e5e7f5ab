import * as nodeCrypto from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { isIP } from 'node:net'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import * as x509 from '@peculiar/x509'
import { stringify } from 'yaml'
import { IN_CLUSTER_DNS_NAMES, SERVER_NAME } from '../resources/naming.js'

export { IN_CLUSTER_DNS_NAMES }

x509.cryptoProvider.set(nodeCrypto.webcrypto as unknown as Crypto)
const subtle = nodeCrypto.webcrypto.subtle as unknown as SubtleCrypto

export interface PkiPaths {
  caCert: string
  caKey: string
  servingCert: string
  servingKey: string
  adminCert: string
  adminKey: string
  serviceAccountKey: string
  serviceAccountPublicKey: string
  kubeconfig: string
}

export interface Pki {
  caCertPem: string
  /** The CA's private key, PEM: the default cluster signing key. */
  caKeyPem: string
  servingCertPem: string
  servingKeyPem: string
  adminCertPem: string
  adminKeyPem: string
  /** PKCS#8 PEM. */
  serviceAccountKeyPem: string
  /** SPKI PEM. */
  serviceAccountPublicKeyPem: string
  paths: PkiPaths
}

export interface EnsureCertificatesOptions {
  /** Extra names or IPs for the serving certificate. */
  hosts?: string[]
  bindAddress?: string
  /** --cert-dir: where the generated certificates and keys go; default `<data-dir>/pki`. */
  certDir?: string
}

const DAY_MS = 24 * 60 * 60 * 1000
const CA_VALIDITY_MS = 10 * 365 * DAY_MS
const LEAF_VALIDITY_MS = 365 * DAY_MS
// Backdated so a client whose clock runs a little behind ours does not reject a fresh certificate.
const CLOCK_SKEW_MS = 5 * 60 * 1000

const EC_KEYGEN: EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' }
const RSA_SA_KEYGEN: RsaHashedKeyGenParams = {
  name: 'RSASSA-PKCS1-v1_5',
  modulusLength: 2048,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256'
}

const KEY_MODE = 0o600
const CERT_MODE = 0o644

export interface SigningKey {
  key: CryptoKey
  algorithm: Algorithm | EcdsaParams
}

interface Issuer {
  cert: x509.X509Certificate
  signer: SigningKey
}

export async function ensureCertificates(dataDir: string, opts: EnsureCertificatesOptions = {}): Promise<Pki> {
  const pkiDir = opts.certDir ?? join(dataDir, 'pki')
  await mkdir(pkiDir, { recursive: true, mode: 0o700 })

  const caKeyPath = join(pkiDir, 'ca.key')
  const paths: PkiPaths = {
    caCert: join(pkiDir, 'ca.crt'),
    caKey: caKeyPath,
    servingCert: join(pkiDir, 'apiserver.crt'),
    servingKey: join(pkiDir, 'apiserver.key'),
    adminCert: join(pkiDir, 'admin.crt'),
    adminKey: join(pkiDir, 'admin.key'),
    serviceAccountKey: join(pkiDir, 'sa.key'),
    serviceAccountPublicKey: join(pkiDir, 'sa.pub'),
    kubeconfig: join(dataDir, 'admin.kubeconfig')
  }

  // A new CA invalidates every certificate it issued, so the leaves are reissued with it.
  const caMissing = !existsSync(paths.caCert) || !existsSync(caKeyPath)
  let issuer: Issuer | undefined
  if (caMissing) {
    issuer = await createCa(paths.caCert, caKeyPath)
  }
  const loadIssuer = async (): Promise<Issuer> => {
    issuer ??= {
      cert: new x509.X509Certificate(await readFile(paths.caCert, 'utf8')),
      signer: await importSigningKey(await readFile(caKeyPath, 'utf8'))
    }
    return issuer
  }

  const sans = servingSans(opts)
  // A name asked for later (--advertise-address, --external-hostname) reissues the serving
  // certificate from the same CA, so clients dialling that name can verify it.
  if (caMissing || !existsSync(paths.servingCert) || !existsSync(paths.servingKey) || await lacksNames(paths.servingCert, sans)) {
    await createLeaf(await loadIssuer(), paths.servingCert, paths.servingKey, {
      subject: [{ CN: [SERVER_NAME] }],
      usage: x509.ExtendedKeyUsage.serverAuth,
      sans
    })
  }

  if (caMissing || !existsSync(paths.adminCert) || !existsSync(paths.adminKey)) {
    await createLeaf(await loadIssuer(), paths.adminCert, paths.adminKey, {
      subject: [{ CN: ['admin'] }, { O: ['system:masters'] }],
      usage: x509.ExtendedKeyUsage.clientAuth
    })
  }

  // The service-account key does not chain to the CA; replacing it would invalidate every issued
  // token, so it is only created when absent, and a lost public half is derived from the private one.
  if (!existsSync(paths.serviceAccountKey)) {
    const keys = await subtle.generateKey(RSA_SA_KEYGEN, true, ['sign', 'verify'])
    await writePem(paths.serviceAccountKey, await exportPrivateKeyPem(keys.privateKey), KEY_MODE)
    await writePem(paths.serviceAccountPublicKey, await exportPublicKeyPem(keys.publicKey), CERT_MODE)
  } else if (!existsSync(paths.serviceAccountPublicKey)) {
    const privatePem = await readFile(paths.serviceAccountKey, 'utf8')
    const publicPem = nodeCrypto.createPublicKey(privatePem).export({ type: 'spki', format: 'pem' }).toString()
    await writePem(paths.serviceAccountPublicKey, publicPem, CERT_MODE)
  }

  const [caCertPem, caKeyPem, servingCertPem, servingKeyPem, adminCertPem, adminKeyPem, serviceAccountKeyPem, serviceAccountPublicKeyPem] =
    await Promise.all(
      [
        paths.caCert,
        paths.caKey,
        paths.servingCert,
        paths.servingKey,
        paths.adminCert,
        paths.adminKey,
        paths.serviceAccountKey,
        paths.serviceAccountPublicKey
      ].map((p) => readFile(p, 'utf8'))
    )

  return {
    caCertPem,
    caKeyPem,
    servingCertPem,
    servingKeyPem,
    adminCertPem,
    adminKeyPem,
    serviceAccountKeyPem,
    serviceAccountPublicKeyPem,
    paths
  }
}

export interface KubeconfigOptions {
  server: string
  caCertPem: string
  clientCertPem: string
  clientKeyPem: string
  user?: string
  cluster?: string
  context?: string
}

export function writeKubeconfig(path: string, opts: KubeconfigOptions): void {
  const user = opts.user ?? 'admin'
  const cluster = opts.cluster ?? SERVER_NAME
  const context = opts.context ?? `${user}@${cluster}`
  const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64')
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{ name: cluster, cluster: { server: opts.server, 'certificate-authority-data': b64(opts.caCertPem) } }],
    users: [
      {
        name: user,
        user: { 'client-certificate-data': b64(opts.clientCertPem), 'client-key-data': b64(opts.clientKeyPem) }
      }
    ],
    contexts: [{ name: context, context: { cluster, user } }],
    'current-context': context
  }
  mkdirSync(dirname(path), { recursive: true })
  const tmp = tempSibling(path)
  writeFileSync(tmp, stringify(config), { mode: KEY_MODE })
  chmodSync(tmp, KEY_MODE)
  renameSync(tmp, path)
}

export interface ClientIdentity {
  username: string
  groups: string[]
}

/** Maps the shape of Node's `tlsSocket.getPeerCertificate()` to a user: CN is the name, each O a group. */
export function parseClientCertificate(peer: {
  subject?: { CN?: string | string[]; O?: string | string[] }
}): ClientIdentity | undefined {
  const subject = peer?.subject
  if (!subject) return undefined
  const cn = Array.isArray(subject.CN) ? subject.CN[0] : subject.CN
  if (!cn) return undefined
  const orgs = subject.O === undefined ? [] : Array.isArray(subject.O) ? subject.O : [subject.O]
  return { username: cn, groups: orgs.filter((o) => o.length > 0) }
}

function servingSans(opts: EnsureCertificatesOptions): x509.JsonGeneralName[] {
  const dns = new Set<string>(['localhost', hostname(), ...IN_CLUSTER_DNS_NAMES])
  const ips = new Set<string>(['127.0.0.1', '::1'])
  const addName = (raw: string): void => {
    // A zone id (fe80::1%eth0) is local to this host and has no place in a certificate.
    const value = raw.trim().replace(/^\[(.*)\]$/, '$1').split('%')[0]!
    if (!value) return
    if (isIP(value)) ips.add(value)
    else dns.add(value.toLowerCase())
  }
  const bind = opts.bindAddress?.trim()
  // Wildcard binds are not addresses a client can dial, so they name nothing.
  if (bind && isIP(bind) && bind !== '0.0.0.0' && bind !== '::') addName(bind)
  for (const h of opts.hosts ?? []) addName(h)
  dns.delete('')
  return [
    ...[...dns].map((value): x509.JsonGeneralName => ({ type: 'dns', value })),
    ...[...ips].map((value): x509.JsonGeneralName => ({ type: 'ip', value: normalizeIp(value) }))
  ]
}

/**
 * Read with Node's own X.509 parser: a restart checks the serving certificate's names, and
 * @peculiar/x509's parse of it alone took about 25 ms of the start.
 */
async function lacksNames(certPath: string, wanted: x509.JsonGeneralName[]): Promise<boolean> {
  const cert = new nodeCrypto.X509Certificate(await readFile(certPath))
  const have = new Set(sanEntries(cert.subjectAltName ?? '').map(({ type, value }) => `${type}:${type === 'ip' ? canonicalIp(value) : value.toLowerCase()}`))
  // The machine's host name may change between starts; only names asked for by flag count here.
  const host = hostname()
  return wanted.some((n) => n.type === 'dns' && (n.value === host || n.value === host.toLowerCase()) ? false : !have.has(`${n.type}:${n.type === 'dns' ? n.value.toLowerCase() : canonicalIp(n.value)}`))
}

/**
 * The DNS names and IP addresses of OpenSSL's subjectAltName text: `DNS:a, IP Address:1.2.3.4`,
 * a value holding a comma or quote written as a JSON string.
 */
function sanEntries(text: string): Array<{ type: 'dns' | 'ip', value: string }> {
  const entries: Array<{ type: 'dns' | 'ip', value: string }> = []
  for (const m of text.matchAll(/([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g)) {
    const type = m[1] === 'DNS' ? 'dns' : m[1] === 'IP Address' ? 'ip' : undefined
    if (type === undefined) continue
    let value = m[2]!
    if (value.startsWith('"')) {
      try { value = JSON.parse(value) as string } catch { continue }
    }
    entries.push({ type, value })
  }
  return entries
}

/** One spelling per address: OpenSSL writes IPv6 uncompressed (0:0:0:0:0:0:0:1), flags may not. */
function canonicalIp(ip: string): string {
  const plain = normalizeIp(ip)
  if (isIP(plain) !== 6) return plain
  try {
    return new URL(`http://[${plain}]/`).hostname.slice(1, -1)
  } catch {
    return plain
  }
}

// The ASN.1 encoder understands plain IPv4 and hex IPv6 only, so IPv4-mapped IPv6 is unwrapped.
function normalizeIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  return mapped ? mapped[1]! : ip
}

async function createCa(certPath: string, keyPath: string): Promise<Issuer> {
  const keys = await subtle.generateKey(EC_KEYGEN, true, ['sign', 'verify'])
  const notBefore = new Date(Date.now() - CLOCK_SKEW_MS)
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: [`${SERVER_NAME}-ca`] }],
    keys,
    notBefore,
    notAfter: new Date(notBefore.getTime() + CA_VALIDITY_MS),
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)
    ]
  })
  await writePem(keyPath, await exportPrivateKeyPem(keys.privateKey), KEY_MODE)
  await writePem(certPath, cert.toString('pem') + '\n', CERT_MODE)
  return { cert, signer: { key: keys.privateKey, algorithm: { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams } }
}

async function createLeaf(
  issuer: Issuer,
  certPath: string,
  keyPath: string,
  spec: { subject: x509.JsonName; usage: string; sans?: x509.JsonGeneralName[] }
): Promise<void> {
  const keys = await subtle.generateKey(EC_KEYGEN, true, ['sign', 'verify'])
  const notBefore = new Date(Date.now() - CLOCK_SKEW_MS)
  // A leaf outliving its CA would fail verification early anyway; cap it so the dates tell the truth.
  const notAfter = new Date(Math.min(notBefore.getTime() + LEAF_VALIDITY_MS, issuer.cert.notAfter.getTime()))
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    // Leaf keys are ECDSA: they only sign handshakes, never encipher, so keyEncipherment is not claimed.
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([spec.usage]),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(issuer.cert)
  ]
  if (spec.sans?.length) extensions.push(new x509.SubjectAlternativeNameExtension(spec.sans))
  const cert = await x509.X509CertificateGenerator.create({
    subject: spec.subject,
    issuer: issuer.cert.subjectName,
    publicKey: keys.publicKey,
    signingKey: issuer.signer.key,
    signingAlgorithm: issuer.signer.algorithm,
    notBefore,
    notAfter,
    extensions
  })
  await writePem(keyPath, await exportPrivateKeyPem(keys.privateKey), KEY_MODE)
  await writePem(certPath, cert.toString('pem') + '\n', CERT_MODE)
}

// An operator may drop in their own CA key, which need not be P-256, so the algorithm is read from the key.
export async function importSigningKey(pem: string): Promise<SigningKey> {
  const keyObject = nodeCrypto.createPrivateKey(pem)
  const der = keyObject.export({ type: 'pkcs8', format: 'der' })
  const type = keyObject.asymmetricKeyType
  if (type === 'ec') {
    const curves: Record<string, { curve: string; hash: string }> = {
      prime256v1: { curve: 'P-256', hash: 'SHA-256' },
      secp384r1: { curve: 'P-384', hash: 'SHA-384' },
      secp521r1: { curve: 'P-521', hash: 'SHA-512' }
    }
    const named = curves[keyObject.asymmetricKeyDetails?.namedCurve ?? '']
    if (!named) throw new Error(`unsupported CA key curve ${keyObject.asymmetricKeyDetails?.namedCurve}`)
    const key = await subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: named.curve }, false, ['sign'])
    return { key, algorithm: { name: 'ECDSA', hash: named.hash } as EcdsaParams }
  }
  if (type === 'rsa') {
    const key = await subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign'])
    return { key, algorithm: { name: 'RSASSA-PKCS1-v1_5' } }
  }
  throw new Error(`unsupported CA key type ${type}`)
}

async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await subtle.exportKey('pkcs8', key), 'PRIVATE KEY') + '\n'
}

async function exportPublicKeyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await subtle.exportKey('spki', key), 'PUBLIC KEY') + '\n'
}

function tempSibling(path: string): string {
  return `${path}.${process.pid}.${nodeCrypto.randomBytes(4).toString('hex')}.tmp`
}

// Written to a sibling and renamed so a crash mid-write never leaves a truncated key or config behind;
// chmod follows because writeFile's mode is filtered through the process umask.
async function writePem(path: string, data: string, mode: number): Promise<void> {
  const tmp = tempSibling(path)
  await writeFile(tmp, data, { mode })
  await chmod(tmp, mode)
  await rename(tmp, path)
}
