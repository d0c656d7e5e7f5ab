// --tls-sni-cert-key: more serving certificates, chosen by the name a client asks for (SNI), as
// the reference chooses them: names given with a pair win over the names read off certificates,
// an earlier pair wins over a later one for the same name, an exact name over a wildcard, and a
// name nothing matches gets the default certificate.
import { readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { createSecureContext, type SecureContext, type SecureContextOptions } from 'node:tls'
import { X509Certificate } from 'node:crypto'

export interface NamedCertKey {
  certFile: string
  keyFile: string
  /** Domain patterns; none means the certificate's own names. */
  names: string[]
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const isDnsSubdomain = (name: string): boolean => name.length <= 253 && name.split('.').every(label => label.length <= 63 && DNS_LABEL.test(label))

/**
 * The names a certificate serves, as the reference reads them: its DNS names, and its common
 * name when that is a domain (not an IP). IP addresses are left out: SNI never carries one.
 */
export function certificateNames (cert: X509Certificate): string[] {
  const names: string[] = []
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1] ?? ''
  if (cn !== '' && isIP(cn) === 0 && (cn === '*' || isDnsSubdomain(cn.replace(/^\*\./, '')))) names.push(cn)
  for (const entry of (cert.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) names.push(entry.slice(4))
  }
  return names
}

/**
 * Each name's context, built with `base` (the client CAs, versions and suites the default
 * certificate serves with, so client certificates are still verified). A file that cannot be
 * read or a pair that does not match stops start-up, in the reference's words.
 */
export function sniContexts (pairs: readonly NamedCertKey[], base: SecureContextOptions): Map<string, SecureContext> {
  const extracted = new Map<string, SecureContext>()
  const explicit = new Map<string, SecureContext>()
  // Backwards, so that an earlier pair's claim on a name is the one left standing.
  for (let i = pairs.length - 1; i >= 0; i--) {
    const { certFile, keyFile, names } = pairs[i]!
    let context: SecureContext
    let cert: X509Certificate
    try {
      const certPem = readFileSync(certFile)
      context = createSecureContext({ ...base, cert: certPem, key: readFileSync(keyFile) })
      cert = new X509Certificate(certPem)
    } catch (err) {
      throw new Error(`failed to load SNI cert and key: ${(err as Error).message}`)
    }
    if (names.length > 0) for (const name of names) explicit.set(name.toLowerCase(), context)
    else for (const name of certificateNames(cert)) extracted.set(name.toLowerCase(), context)
  }
  return new Map([...extracted, ...explicit])
}

/** The context for the name a client asked for: exact, then its first label as a wildcard; undefined for the default. */
export function contextFor (contexts: ReadonlyMap<string, SecureContext>, serverName: string): SecureContext | undefined {
  const name = serverName.toLowerCase()
  const exact = contexts.get(name)
  if (exact !== undefined || name === '') return exact
  const dot = name.indexOf('.')
  return contexts.get(dot < 0 ? '*' : `*${name.slice(dot)}`)
}
