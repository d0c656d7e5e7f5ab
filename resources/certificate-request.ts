// PEM blocks and PKCS#10 certificate requests as CertificateSigningRequest validation, its
// admission plugins and the signers read them. Synchronous (node:crypto), so validation stays
// a plain strategy hook.
import { createPublicKey, verify, X509Certificate } from 'node:crypto'
import { AsnConvert } from '@peculiar/asn1-schema'
import { CertificationRequest } from '@peculiar/asn1-csr'
import * as x509 from '@peculiar/x509'

export interface PemBlock { type: string, headers: Record<string, string>, der: Buffer }

const BEGIN = '-----BEGIN '
const END = '-----END '
const DASHES = '-----'

/**
 * The type a marker line names: the text from `from` to the first "--", which must open
 * "-----" (a type holds no "--", no line break, and does not end with "-"); undefined when
 * there is none. Each call scans only up to the next "--", so the calls over one text, each
 * from its own marker, read every character about once.
 */
function markerType (text: string, from: number): { type: string, end: number } | undefined {
  const dashes = text.indexOf('--', from)
  if (dashes < 0 || !text.startsWith(DASHES, dashes)) return undefined
  const type = text.slice(from, dashes)
  if (type.includes('\r') || type.includes('\n')) return undefined
  return { type, end: dashes + DASHES.length }
}

/** Where each type's END markers start, in order: found in one pass, so no BEGIN searches the rest of the text. */
function endMarkers (text: string): Map<string, number[]> {
  const ends = new Map<string, number[]>()
  for (let at = text.indexOf(END); at >= 0; at = text.indexOf(END, at + 1)) {
    const marker = markerType(text, at + END.length)
    if (marker === undefined) continue
    const list = ends.get(marker.type)
    if (list === undefined) ends.set(marker.type, [at])
    else list.push(at)
  }
  return ends
}

/**
 * Every PEM block in `text`, in order; text around and between blocks is ignored (RFC 7468
 * allows it). A block is a BEGIN line, a line break, and the first END of the same type after
 * it; linear in the text (a regular expression searching onwards from every BEGIN was quadratic).
 */
export function pemBlocks (text: string): PemBlock[] {
  const blocks: PemBlock[] = []
  const ends = endMarkers(text)
  // Searches only move forward, so each type's END list is walked once.
  const next = new Map<string, number>()
  for (let at = text.indexOf(BEGIN); at >= 0;) {
    const marker = markerType(text, at + BEGIN.length)
    const bodyStart = marker === undefined ? -1 : text[marker.end] === '\n' ? marker.end + 1 : text.startsWith('\r\n', marker.end) ? marker.end + 2 : -1
    const list = marker === undefined ? undefined : ends.get(marker.type)
    if (marker === undefined || bodyStart < 0 || list === undefined) {
      at = text.indexOf(BEGIN, at + 1)
      continue
    }
    let i = next.get(marker.type) ?? 0
    while (i < list.length && list[i]! < bodyStart) i++
    next.set(marker.type, i)
    if (i === list.length) {
      at = text.indexOf(BEGIN, at + 1)
      continue
    }
    const endAt = list[i]!
    const block = decodeBlock(marker.type, text.slice(bodyStart, endAt))
    if (block !== undefined) blocks.push(block)
    at = text.indexOf(BEGIN, endAt + END.length + marker.type.length + DASHES.length)
  }
  return blocks
}

/** Headers (lines with a colon) up to the first line without one, then base64; no array of lines is built. */
function decodeBlock (type: string, content: string): PemBlock | undefined {
  const headers: Record<string, string> = {}
  let pos = 0
  while (pos < content.length) {
    const newline = content.indexOf('\n', pos)
    const end = newline < 0 ? content.length : newline
    const line = content.slice(pos, content[end - 1] === '\r' ? end - 1 : end)
    const colon = line.indexOf(':')
    if (colon < 0) break
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim()
    pos = end + 1
  }
  const body = content.slice(pos).replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) return undefined
  return { type, headers, der: Buffer.from(body, 'base64') }
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
