// PEM blocks and PKCS#10 certificate requests as CertificateSigningRequest validation, its
// admission plugins and the signers read them. Synchronous (node:crypto), so validation stays
// a plain strategy hook.
import { createPublicKey, verify, X509Certificate } from 'node:crypto'
import { AsnConvert } from '@peculiar/asn1-schema'
import { CertificationRequest } from '@peculiar/asn1-csr'
import * as x509 from '@peculiar/x509'

export interface PemBlock { type: string, headers: Record<string, string>, der: Buffer }

const BLOCK = /-----BEGIN ([^\r\n-]*(?:-[^\r\n-]+)*)-----\r?\n([\s\S]*?)-----END \1-----/g

/** Every PEM block in `text`, in order; text around and between blocks is ignored (RFC 7468 allows it). */
export function pemBlocks (text: string): PemBlock[] {
  const blocks: PemBlock[] = []
  for (const m of text.matchAll(BLOCK)) {
    const headers: Record<string, string> = {}
    const lines = m[2]!.split(/\r?\n/)
    let i = 0
    for (; i < lines.length && lines[i]!.includes(':'); i++) {
      const line = lines[i]!
      headers[line.slice(0, line.indexOf(':')).trim()] = line.slice(line.indexOf(':') + 1).trim()
    }
    const body = lines.slice(i).join('').replace(/\s+/g, '')
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) continue
    blocks.push({ type: m[1]!, headers, der: Buffer.from(body, 'base64') })
  }
  return blocks
}

/** What a signer and the admission plugins need of a request: its subject, names and key. */
export interface ParsedRequest {
  commonName: string
  organizations: string[]
  dnsNames: string[]
  ipAddresses: string[]
  emailAddresses: string[]
  uris: string[]
  /** The SubjectPublicKeyInfo, DER. */
  publicKeyDer: Buffer
}

/** The problem with a PEM-encoded PKCS#10 request, or its contents; the message is the reference server's. */
export function parseCertificateRequest (pem: string): ParsedRequest | { error: string } {
  const block = pemBlocks(pem)[0]
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') return { error: 'PEM block type must be CERTIFICATE REQUEST' }
  let asn: CertificationRequest
  let req: x509.Pkcs10CertificateRequest
  try {
    asn = AsnConvert.parse(block.der, CertificationRequest)
    req = new x509.Pkcs10CertificateRequest(block.der)
  } catch (err) {
    return { error: `x509: malformed certificate request: ${(err as Error).message}` }
  }
  if (!signatureHolds(asn)) return { error: VERIFICATION_FAILURE[asn.signatureAlgorithm.algorithm.slice(0, 14)] ?? 'x509: signature verification failure' }
  const names = req.subjectName.toJSON()
  const pick = (key: string): string[] => names.flatMap(rdn => rdn[key] ?? []).map(String)
  const sanExtension = req.getExtension('2.5.29.17')
  const sans = sanExtension instanceof x509.SubjectAlternativeNameExtension ? sanExtension.names.toJSON() : []
  const san = (type: string): string[] => sans.filter(n => n.type === type).map(n => n.value)
  return {
    commonName: pick('CN')[0] ?? '',
    organizations: pick('O'),
    dnsNames: san('dns'),
    ipAddresses: san('ip'),
    emailAddresses: san('email'),
    uris: san('url'),
    publicKeyDer: Buffer.from(AsnConvert.serialize(asn.certificationRequestInfo.subjectPKInfo))
  }
}

// Go's messages, by signature algorithm family.
const VERIFICATION_FAILURE: Record<string, string> = {
  '1.2.840.113549': 'crypto/rsa: verification error',
  '1.2.840.10045.': 'x509: ECDSA verification failure',
  '1.3.101.112': 'x509: Ed25519 verification failure'
}

const HASHES: Record<string, string | null> = {
  '1.2.840.113549.1.1.11': 'sha256', // sha256WithRSAEncryption
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256', // ecdsa-with-SHA256
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null // Ed25519: the algorithm hashes itself
}

/** Whether the request is signed by the key it carries (proof the requester holds the private key). */
function signatureHolds (asn: CertificationRequest): boolean {
  const hash = HASHES[asn.signatureAlgorithm.algorithm]
  if (hash === undefined) return false
  try {
    const tbs = Buffer.from(asn.certificationRequestInfoRaw ?? AsnConvert.serialize(asn.certificationRequestInfo))
    const key = createPublicKey({ key: Buffer.from(AsnConvert.serialize(asn.certificationRequestInfo.subjectPKInfo)), format: 'der', type: 'spki' })
    return verify(hash, tbs, key, Buffer.from(asn.signature))
  } catch {
    return false
  }
}

/** The problem with status.certificate (one or more CERTIFICATE blocks, no headers), or undefined. */
export function certificateProblem (pem: string): string | undefined {
  const blocks = pemBlocks(pem)
  for (const block of blocks) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${block.type}"`
    if (Object.keys(block.headers).length > 0) return 'no PEM block headers are permitted'
    try {
      new X509Certificate(block.der) // eslint-disable-line no-new
    } catch (err) {
      return `x509: malformed certificate: ${(err as Error).message}`
    }
  }
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block'
  return undefined
}
