// --tls-min-version and --tls-cipher-suites, as the reference takes them (Go's names): the port
// refuses older versions and other TLS 1.2 suites, prefers the server's order, keeps TLS 1.3 and
// HTTP/2 working, and a name the reference refuses stops start-up with the reference's words.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import type { ConnectionOptions } from 'node:tls'
import { parseFlags } from '../../bin/flags.js'
import { tlsProtocolOptions } from '../../server/tls-protocol.js'
import { startTestServer, type TestServer } from '../helpers/tls-app.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { tlsProbe, type TlsProbe } from '../helpers/tls-probe.js'

/** A handshake with the admin's credentials and an HTTP/1.1 GET /version on it. */
const handshake = (server: TestServer, opts: ConnectionOptions): Promise<TlsProbe> =>
  tlsProbe(server, { ca: server.admin.ca, rejectUnauthorized: true, cert: server.admin.cert, key: server.admin.key, servername: 'localhost', ALPNProtocols: ['http/1.1'], ...opts }, '/version')

describe('TLS versions and cipher suites', () => {
  it('maps Go\'s names to OpenSSL\'s in Go\'s order, the server\'s order winning', () => {
    assert.deepEqual(tlsProtocolOptions(undefined, true), { minVersion: 'TLSv1.2' })
    assert.deepEqual(tlsProtocolOptions({ minVersion: 'VersionTLS13' }, true), { minVersion: 'TLSv1.3' })
    assert.deepEqual(tlsProtocolOptions({ cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'TLS_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'] }, true),
      { minVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384', honorCipherOrder: true })
    // Only TLS 1.3 suites named leave TLS 1.2 nothing, as in Go.
    assert.deepEqual(tlsProtocolOptions({ minVersion: 'VersionTLS13', cipherSuites: ['TLS_AES_256_GCM_SHA384'] }, true), { minVersion: 'TLSv1.3' })
    // Below TLS 1.2, OpenSSL's security level would refuse the old handshakes the flag asks for.
    assert.deepEqual(tlsProtocolOptions({ minVersion: 'VersionTLS10' }, false), { minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' })
  })

  it('refuses what the reference refuses, in its words', () => {
    assert.throws(() => parseFlags(['--tls-min-version=VersionTLS14']), /invalid --tls-min-version "VersionTLS14": unknown tls version; possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13/)
    assert.throws(() => parseFlags(['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,ECDHE-RSA-AES128-SHA']), /^Error: cipher suite ECDHE-RSA-AES128-SHA not supported or doesn't exist$/)
    const parsed = parseFlags(['--tls-min-version', 'VersionTLS13', '--tls-cipher-suites=TLS_AES_128_GCM_SHA256,TLS_RSA_WITH_AES_128_GCM_SHA256'])
    assert.equal(parsed.tlsMinVersion, 'VersionTLS13')
    assert.deepEqual(parsed.tlsCipherSuites, ['TLS_AES_128_GCM_SHA256', 'TLS_RSA_WITH_AES_128_GCM_SHA256'])
    // Go's HTTP/2 server requires an ECDHE AES-128-GCM suite among TLS 1.2's.
    assert.throws(() => tlsProtocolOptions({ cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'] }, true), /^Error: error configuring http2: http2: TLSConfig.CipherSuites is missing an HTTP\/2-required AES_128_GCM_SHA256 cipher/)
    assert.doesNotThrow(() => tlsProtocolOptions({ cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'] }, false))
    // Names Go knows that this TLS library no longer offers at all: said at start-up, not at the first handshake.
    assert.throws(() => tlsProtocolOptions({ cipherSuites: ['TLS_RSA_WITH_RC4_128_SHA'] }, false), /--tls-cipher-suites: none of TLS_RSA_WITH_RC4_128_SHA is offered by this server's TLS library/)
  })

  it('with --tls-min-version=VersionTLS13, refuses a TLS 1.2 client and serves TLS 1.3 ones, kubectl too', async (t) => {
    const server = await startTestServer(t, { tlsProtocol: { minVersion: 'VersionTLS13' } })
    await assert.rejects(handshake(server, { maxVersion: 'TLSv1.2' }), /protocol version/)
    const ok = await handshake(server, {})
    assert.equal(ok.protocol, 'TLSv1.3')
    assert.equal(ok.status, 200)
    if (!hasKubectl()) return
    const kubectl = kubectlFor({ kubeconfig: server.kubeconfig, home: server.dir })
    const { stdout } = await kubectl.check(['get', 'namespace', 'default', '-o', 'name'])
    assert.equal(stdout.trim(), 'namespace/default')
  })

  it('with --tls-cipher-suites, agrees to those TLS 1.2 suites only, in the server\'s order, and keeps TLS 1.3 and HTTP/2', async (t) => {
    // The generated serving key is ECDSA.
    const server = await startTestServer(t, { tlsProtocol: { cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'] } })
    await assert.rejects(handshake(server, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-CHACHA20-POLY1305' }), /handshake failure/)
    const preferred = await handshake(server, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256' })
    assert.deepEqual([preferred.protocol, preferred.cipher, preferred.status], ['TLSv1.2', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 200])
    const only = await handshake(server, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' })
    assert.equal(only.cipher, 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384')
    assert.equal((await handshake(server, {})).protocol, 'TLSv1.3')
    const { alpn: h2 } = await tlsProbe(server, { ca: server.admin.ca, rejectUnauthorized: true, servername: 'localhost', maxVersion: 'TLSv1.2', ALPNProtocols: ['h2'] })
    assert.equal(h2, 'h2')
  })
})
