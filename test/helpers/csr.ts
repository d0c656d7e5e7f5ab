// Certificate requests for tests: a fresh key and a PKCS#10 request with the given subject and names.
import { webcrypto } from 'node:crypto'
import * as x509 from '@peculiar/x509'

x509.cryptoProvider.set(webcrypto as unknown as Crypto)

export interface RequestOptions {
  cn: string
  o?: string[]
  dns?: string[]
  ips?: string[]
  emails?: string[]
}

export interface TestRequest {
  /** The request, PEM. */
  pem: string
  /** The request as spec.request carries it (base64 of the PEM). */
  b64: string
  /** The private key, PKCS#8 PEM, for a client that connects with the issued certificate. */
  keyPem: string
}

export async function certificateRequest (o: RequestOptions): Promise<TestRequest> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']) as CryptoKeyPair
  const name = [{ CN: [o.cn] }, ...(o.o ?? []).map(org => ({ O: [org] }))]
  const sans: x509.JsonGeneralName[] = [
    ...(o.dns ?? []).map(value => ({ type: 'dns' as const, value })),
    ...(o.ips ?? []).map(value => ({ type: 'ip' as const, value })),
    ...(o.emails ?? []).map(value => ({ type: 'email' as const, value }))
  ]
  const req = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys,
    signingAlgorithm: alg,
    extensions: sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : []
  })
  const pem = req.toString('pem') + '\n'
  const keyPem = x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY') + '\n'
  return { pem, b64: Buffer.from(pem).toString('base64'), keyPem }
}

/** A request whose signature does not match its key: the last signature byte flipped. */
export function tamper (pem: string): string {
  const der = Buffer.from(x509.PemConverter.decode(pem)[0]!)
  der[der.length - 1] = der[der.length - 1]! ^ 0xff
  return Buffer.from(x509.PemConverter.encode(der, 'CERTIFICATE REQUEST') + '\n').toString('base64')
}

/** A self-signed certificate, PEM: any well-formed certificate, for the format rules. */
export async function selfSignedCertificate (cn = 'svc-test'): Promise<string> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']) as CryptoKeyPair
  const cert = await x509.X509CertificateGenerator.createSelfSigned({ name: `CN=${cn}`, keys, signingAlgorithm: alg, notBefore: new Date(), notAfter: new Date(Date.now() + 86_400_000) })
  return cert.toString('pem') + '\n'
}
