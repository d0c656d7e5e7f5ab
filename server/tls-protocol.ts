// --tls-min-version and --tls-cipher-suites: the reference names TLS versions and cipher suites
// as Go's crypto/tls does, and OpenSSL (Node's TLS) names them its own way. The names here are
// Go's, in Go's server preference order; each TLS 1.2 suite maps to OpenSSL's name for it.
import { createSecureContext, type SecureVersion } from 'node:tls'

export const TLS_VERSIONS = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3'
} as const
export type TlsVersionName = keyof typeof TLS_VERSIONS
export const TLS_VERSION_NAMES = Object.keys(TLS_VERSIONS) as TlsVersionName[]

export interface TlsProtocolOptions {
  /** Default VersionTLS12, as Go's servers. */
  minVersion?: TlsVersionName
  /** Go's names; unset leaves OpenSSL's default suites. */
  cipherSuites?: string[]
}

interface CipherSuite {
  name: string
  /** OpenSSL's name; none for TLS 1.3 suites, which Go does not let a server choose. */
  openssl?: string
  insecure?: true
}

// Go's cipherSuitesPreferenceOrder. The two CHACHA20 suites have two names each in Go.
const SUITES: readonly CipherSuite[] = [
  { name: 'TLS_AES_128_GCM_SHA256' },
  { name: 'TLS_AES_256_GCM_SHA384' },
  { name: 'TLS_CHACHA20_POLY1305_SHA256' },
  { name: 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', openssl: 'ECDHE-ECDSA-AES128-GCM-SHA256' },
  { name: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', openssl: 'ECDHE-RSA-AES128-GCM-SHA256' },
  { name: 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', openssl: 'ECDHE-ECDSA-AES256-GCM-SHA384' },
  { name: 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', openssl: 'ECDHE-RSA-AES256-GCM-SHA384' },
  { name: 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', openssl: 'ECDHE-ECDSA-CHACHA20-POLY1305' },
  { name: 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305', openssl: 'ECDHE-ECDSA-CHACHA20-POLY1305' },
  { name: 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', openssl: 'ECDHE-RSA-CHACHA20-POLY1305' },
  { name: 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', openssl: 'ECDHE-RSA-CHACHA20-POLY1305' },
  { name: 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', openssl: 'ECDHE-ECDSA-AES128-SHA' },
  { name: 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', openssl: 'ECDHE-RSA-AES128-SHA' },
  { name: 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA', openssl: 'ECDHE-ECDSA-AES256-SHA' },
  { name: 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA', openssl: 'ECDHE-RSA-AES256-SHA' },
  { name: 'TLS_RSA_WITH_AES_128_GCM_SHA256', openssl: 'AES128-GCM-SHA256' },
  { name: 'TLS_RSA_WITH_AES_256_GCM_SHA384', openssl: 'AES256-GCM-SHA384' },
  { name: 'TLS_RSA_WITH_AES_128_CBC_SHA', openssl: 'AES128-SHA' },
  { name: 'TLS_RSA_WITH_AES_256_CBC_SHA', openssl: 'AES256-SHA' },
  { name: 'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA', openssl: 'ECDHE-RSA-DES-CBC3-SHA', insecure: true },
  { name: 'TLS_RSA_WITH_3DES_EDE_CBC_SHA', openssl: 'DES-CBC3-SHA', insecure: true },
  { name: 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256', openssl: 'ECDHE-ECDSA-AES128-SHA256', insecure: true },
  { name: 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256', openssl: 'ECDHE-RSA-AES128-SHA256', insecure: true },
  { name: 'TLS_RSA_WITH_AES_128_CBC_SHA256', openssl: 'AES128-SHA256', insecure: true },
  { name: 'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA', openssl: 'ECDHE-ECDSA-RC4-SHA', insecure: true },
  { name: 'TLS_ECDHE_RSA_WITH_RC4_128_SHA', openssl: 'ECDHE-RSA-RC4-SHA', insecure: true },
  { name: 'TLS_RSA_WITH_RC4_128_SHA', openssl: 'RC4-SHA', insecure: true }
]
const BY_NAME = new Map(SUITES.map(s => [s.name, s]))

/** As the reference's --help lists them: sorted. */
export const PREFERRED_CIPHER_NAMES = SUITES.filter(s => s.insecure !== true).map(s => s.name).sort()
export const INSECURE_CIPHER_NAMES = SUITES.filter(s => s.insecure === true).map(s => s.name).sort()

/** Throws the reference's message for a name Go does not know. */
export function checkCipherSuiteNames (names: readonly string[]): void {
  for (const name of names) {
    if (!BY_NAME.has(name)) throw new Error(`cipher suite ${name} not supported or doesn't exist`)
  }
}

/** The cipher suites HTTP/2 over TLS 1.2 requires (RFC 7540 9.2.2), one of which Go's HTTP/2 server insists on. */
const HTTP2_REQUIRED = ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256']

/**
 * Node's TLS options for the settings: the minimum version, and with suites given, OpenSSL's list
 * of them in Go's order, the server's order winning (Go's servers choose by their own order). TLS
 * 1.3's suites stay OpenSSL's, as Go's stay Go's. Below TLS 1.2, OpenSSL's security level is
 * lowered so that old clients can connect at all, as they can to the reference. Throws, with the
 * reference's words where it has them, on settings that would leave a client nothing to agree on.
 */
export function tlsProtocolOptions (opts: TlsProtocolOptions | undefined, http2: boolean): { minVersion: SecureVersion, ciphers?: string, honorCipherOrder?: boolean } {
  const version = opts?.minVersion ?? 'VersionTLS12'
  const minVersion = TLS_VERSIONS[version]
  const legacy = version === 'VersionTLS10' || version === 'VersionTLS11'
  const names = opts?.cipherSuites ?? []
  if (names.length === 0) return legacy ? { minVersion, ciphers: 'DEFAULT:@SECLEVEL=0' } : { minVersion }
  checkCipherSuiteNames(names)
  const chosen = new Set(names)
  if (http2 && version !== 'VersionTLS13' && !HTTP2_REQUIRED.some(n => chosen.has(n))) {
    throw new Error(`error configuring http2: http2: TLSConfig.CipherSuites is missing an HTTP/2-required AES_128_GCM_SHA256 cipher (need at least one of ${HTTP2_REQUIRED.join(' or ')})`)
  }
  const openssl = [...new Set(SUITES.filter(s => chosen.has(s.name) && s.openssl !== undefined).map(s => s.openssl!))]
  // Only TLS 1.3 suites named: like Go, no TLS 1.2 suite is left, so only TLS 1.3 can be agreed.
  if (openssl.length === 0) return { minVersion: TLS_VERSIONS.VersionTLS13 }
  const ciphers = openssl.join(':') + (legacy ? ':@SECLEVEL=0' : '')
  if (version !== 'VersionTLS13') {
    try {
      createSecureContext({ ciphers })
    } catch {
      throw new Error(`--tls-cipher-suites: none of ${names.join(', ')} is offered by this server's TLS library (OpenSSL ${process.versions.openssl})`)
    }
  }
  return { minVersion, ciphers, honorCipherOrder: true }
}
