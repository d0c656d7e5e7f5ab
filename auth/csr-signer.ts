// The built-in signers: each one's subject and usage rules, and issuing a certificate for an
// approved request with the cluster signing CA (never a CA itself, lifetime the smaller of the
// configured duration and the request's expirationSeconds, never past the CA's own expiry).
import { randomBytes } from 'node:crypto'
import * as x509 from '@peculiar/x509'
import { NODES, SIGNERS } from '../resources/naming.js'
import { parseCertificateRequest, pemBlocks, type ParsedRequest } from '../resources/certificate-request.js'
import { importSigningKey, type SigningKey } from './pki.js'

export interface ClusterSigningOptions {
  /** --cluster-signing-cert-file: the CA certificate, PEM. */
  certPem: string
  /** --cluster-signing-key-file: its private key, PEM. */
  keyPem: string
  /** --cluster-signing-duration: the longest lifetime issued; default one year. */
  durationMs?: number
}

export const DEFAULT_SIGNING_DURATION_MS = 365 * 24 * 60 * 60 * 1000
// Backdated so a client whose clock runs a little behind ours accepts a fresh certificate.
const BACKDATE_MS = 5 * 60 * 1000

type Rule = (req: ParsedRequest, usages: string[]) => string | undefined

const hasOnly = (usages: string[], allowed: string[], kind: string): string | undefined => {
  const bad = usages.filter(u => !allowed.includes(u))
  return bad.length === 0 ? undefined : `invalid usage for ${kind} certificate: ${bad.join(', ')}`
}

const nodeSubject = (req: ParsedRequest): string | undefined => {
  if (req.organizations.length !== 1 || req.organizations[0] !== NODES.group) return `subject organization is not ${NODES.group}`
  if (!req.commonName.startsWith(NODES.userPrefix)) return `subject common name does not begin with ${NODES.userPrefix}`
  return undefined
}

const NODE_CLIENT_USAGES = ['key encipherment', 'digital signature', 'client auth']

/** Each built-in signer's rules: the reason a request is outside them, or undefined. */
export const SIGNER_RULES: Readonly<Record<string, Rule>> = {
  [SIGNERS.apiserverClient]: (_req, usages) => {
    if (!usages.includes('client auth')) return 'missing required usage: client auth'
    return hasOnly(usages, ['client auth', 'digital signature', 'key encipherment'], 'client')
  },
  [SIGNERS.apiserverClientSvclet]: (req, usages) => {
    const subject = nodeSubject(req)
    if (subject !== undefined) return subject
    if (req.dnsNames.length > 0 || req.ipAddresses.length > 0 || req.emailAddresses.length > 0 || req.uris.length > 0) {
      return 'subject alternative names are not allowed'
    }
    // Key encipherment only makes sense for RSA keys: a node with an EC key leaves it out.
    const exactly = (wanted: string[]): boolean => usages.length === wanted.length && wanted.every(u => usages.includes(u))
    if (exactly(NODE_CLIENT_USAGES) || exactly(NODE_CLIENT_USAGES.slice(1))) return undefined
    return `usages must be exactly ${NODE_CLIENT_USAGES.join(', ')} (key encipherment may be left out)`
  },
  [SIGNERS.svcletServing]: (req, usages) => {
    const subject = nodeSubject(req)
    if (subject !== undefined) return subject
    if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required'
    if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed'
    if (req.uris.length > 0) return 'URI subjectAltNames are not allowed'
    if (!usages.includes('server auth')) return 'missing required usage: server auth'
    return hasOnly(usages, ['server auth', 'digital signature', 'key encipherment'], 'serving')
  }
}

const KEY_USAGE_FLAGS: Record<string, number> = {
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'signing': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly
}
const EXT_KEY_USAGES: Record<string, string> = {
  'server auth': x509.ExtendedKeyUsage.serverAuth,
  'client auth': x509.ExtendedKeyUsage.clientAuth,
  'code signing': x509.ExtendedKeyUsage.codeSigning,
  'email protection': x509.ExtendedKeyUsage.emailProtection,
  'timestamping': x509.ExtendedKeyUsage.timeStamping,
  'ocsp signing': x509.ExtendedKeyUsage.ocspSigning
}

export type SignResult = { certificatePem: string } | { failure: string }

export interface ClusterSigner {
  /** Whether this signer issues for `signerName`. */
  handles (signerName: string): boolean
  /** A certificate for an approved request, or why the signer will not issue one. */
  sign (spec: { request: string, signerName: string, usages?: string[], expirationSeconds?: number }, now?: Date): Promise<SignResult>
}

export async function clusterSigner (o: ClusterSigningOptions): Promise<ClusterSigner> {
  const block = pemBlocks(o.certPem).find(b => b.type === 'CERTIFICATE')
  if (block === undefined) throw new Error('--cluster-signing-cert-file: no CERTIFICATE block')
  const ca = new x509.X509Certificate(block.der)
  let key: SigningKey
  try {
    key = await importSigningKey(o.keyPem)
  } catch (err) {
    throw new Error(`--cluster-signing-key-file: ${(err as Error).message}`)
  }
  const durationMs = o.durationMs ?? DEFAULT_SIGNING_DURATION_MS
  const caKeyId = await x509.SubjectKeyIdentifierExtension.create(await ca.publicKey.export())
  return {
    handles: (signerName) => SIGNER_RULES[signerName] !== undefined,
    async sign (spec, now = new Date()) {
      const rule = SIGNER_RULES[spec.signerName]
      if (rule === undefined) return { failure: `unsupported signer ${spec.signerName}` }
      const pem = Buffer.from(spec.request, 'base64').toString('latin1')
      const parsed = parseCertificateRequest(pem)
      if ('error' in parsed) return { failure: parsed.error }
      const usages = spec.usages ?? []
      const problem = rule(parsed, usages)
      if (problem !== undefined) return { failure: problem }
      const req = new x509.Pkcs10CertificateRequest(pemBlocks(pem)[0]!.der)
      const ttl = Math.min(durationMs, spec.expirationSeconds === undefined ? Infinity : spec.expirationSeconds * 1000)
      const notBefore = new Date(Math.max(now.getTime() - BACKDATE_MS, ca.notBefore.getTime()))
      const notAfter = new Date(Math.min(now.getTime() + ttl, ca.notAfter.getTime()))
      const flags = usages.reduce((f, u) => f | (KEY_USAGE_FLAGS[u] ?? 0), 0)
      const ekus = usages.map(u => EXT_KEY_USAGES[u]).filter((u): u is string => u !== undefined)
      const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)]
      if (flags !== 0) extensions.push(new x509.KeyUsagesExtension(flags, true))
      if (ekus.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(ekus))
      extensions.push(new x509.AuthorityKeyIdentifierExtension(caKeyId.keyId))
      const sans = req.getExtension('2.5.29.17')
      if (sans !== null) extensions.push(sans)
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: req.subjectName,
        issuer: ca.subjectName,
        publicKey: req.publicKey,
        signingKey: key.key,
        signingAlgorithm: key.algorithm,
        notBefore,
        notAfter,
        extensions
      })
      return { certificatePem: cert.toString('pem') + '\n' }
    }
  }
}

// A positive 128-bit serial: the top bit cleared so the DER integer needs no sign byte.
function serial (): string {
  const bytes = randomBytes(16)
  bytes[0] = bytes[0]! & 0x7f
  return bytes.toString('hex')
}
