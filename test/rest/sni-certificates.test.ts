// --tls-sni-cert-key: the certificate a client gets follows the name it asks for, as the
// reference chooses it (explicit names over the certificate's own, exact over wildcard, an
// earlier pair over a later one, the default certificate for any other name), client
// certificates still authenticate through it, and kubectl reaches the server by such a name.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseFlags } from '../../bin/flags.js'
import { certificateNames } from '../../server/sni-certificates.js'
import { startTestServer, type TestServer } from '../helpers/tls-app.js'
import { hasKubectl, kubectlFor } from '../helpers/kubectl.js'
import { tlsProbe } from '../helpers/tls-probe.js'
import { stringify } from 'yaml'

const hasOpenssl = spawnSync('openssl', ['version']).status === 0

/** A self-signed ECDSA pair with `cn` and the DNS names `sans`; returns its files. */
function pair (dir: string, file: string, cn: string, sans: string[]): { certFile: string, keyFile: string } {
  const certFile = join(dir, `${file}.crt`)
  const keyFile = join(dir, `${file}.key`)
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', `/CN=${cn}`, '-keyout', keyFile, '-out', certFile, ...(sans.length === 0 ? [] : ['-addext', `subjectAltName=${sans.map(n => `DNS:${n}`).join(',')}`])]
  const run = spawnSync('openssl', args, { encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  return { certFile, keyFile }
}

/** The common name of the certificate served to a client asking for `servername` (none: no SNI). */
const servedName = async (server: TestServer, servername?: string): Promise<string> =>
  (await tlsProbe(server, servername === undefined ? {} : { servername })).servedName

describe('serving certificates chosen by SNI (--tls-sni-cert-key)', () => {
  it('reads the flag as the reference does, one pair per occurrence', () => {
    const flags = parseFlags(['--tls-sni-cert-key=a.crt,a.key', '--tls-sni-cert-key', 'b.crt, b.key: *.b.example, b.example'])
    assert.deepEqual(flags.tlsSniCertKeys, [
      { certFile: 'a.crt', keyFile: 'a.key', names: [] },
      { certFile: 'b.crt', keyFile: 'b.key', names: ['*.b.example', 'b.example'] }
    ])
    assert.throws(() => parseFlags(['--tls-sni-cert-key=a.crt']), /expected comma separated certificate and key file paths/)
    assert.throws(() => parseFlags(['--tls-sni-cert-key=a.crt,a.key:']), /empty names list is not allowed/)
  })

  it('reads a certificate\'s names as the reference does: DNS names, and a common name that is a domain', (t) => {
    if (!hasOpenssl) return t.skip('openssl is not installed')
    const dir = mkdtempSync(join(tmpdir(), 'sni-names-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const named = (cn: string, sans: string[]): string[] => certificateNames(new X509Certificate(readFileSync(pair(dir, cn.replace(/\W/g, '_'), cn, sans).certFile)))
    assert.deepEqual(named('one.example', ['two.example', '*.three.example']), ['one.example', 'two.example', '*.three.example'])
    assert.deepEqual(named('10.0.0.1', []), [])
    assert.deepEqual(named('not a domain', ['four.example']), ['four.example'])
  })

  it('serves each name its certificate, client certificates still authenticating, and kubectl connects by that name', async (t) => {
    if (!hasOpenssl) return t.skip('openssl is not installed')
    const dir = mkdtempSync(join(tmpdir(), 'sni-serve-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const extracted = pair(dir, 'extracted', 'api.example', ['*.wild.example'])
    const explicit = pair(dir, 'explicit', 'explicit', ['named.example', 'exact.wild.example'])
    const later = pair(dir, 'later', 'later', ['api.example'])
    const server = await startTestServer(t, {
      sniCertificates: [
        { ...extracted, names: [] },
        { ...explicit, names: ['named.example', 'exact.wild.example'] },
        { ...later, names: [] }
      ]
    })
    const defaultName = await servedName(server)
    assert.notEqual(defaultName, 'api.example')
    assert.equal(await servedName(server, 'api.example'), 'api.example', 'an earlier pair wins a name over a later one')
    assert.equal(await servedName(server, 'API.Example'), 'api.example', 'names are matched whatever their case')
    assert.equal(await servedName(server, 'a.wild.example'), 'api.example', 'a wildcard covers one label')
    assert.equal(await servedName(server, 'exact.wild.example'), 'explicit', 'an exact name wins over a wildcard')
    assert.equal(await servedName(server, 'named.example'), 'explicit')
    assert.equal(await servedName(server, 'a.b.wild.example'), defaultName, 'a wildcard covers one label only')
    assert.equal(await servedName(server, 'other.example'), defaultName)

    // The admin's client certificate is verified on a connection served by an SNI certificate,
    // and HTTP/2 is still offered on one.
    const { status } = await tlsProbe(server, { servername: 'named.example', cert: server.admin.cert, key: server.admin.key, ALPNProtocols: ['http/1.1'] }, '/api/v1/namespaces/default')
    assert.equal(status, 200)
    assert.equal((await tlsProbe(server, { servername: 'named.example', ALPNProtocols: ['h2', 'http/1.1'] })).alpn, 'h2')

    if (!hasKubectl()) return
    // kubectl asks for the name its kubeconfig gives (tls-server-name) and checks the certificate against it.
    const kubeconfig = join(dir, 'sni.kubeconfig')
    writeFileSync(kubeconfig, stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'sni', cluster: { server: server.url, 'tls-server-name': 'named.example', 'certificate-authority-data': readFileSync(explicit.certFile).toString('base64') } }],
      users: [{ name: 'admin', user: { 'client-certificate-data': Buffer.from(server.admin.cert).toString('base64'), 'client-key-data': Buffer.from(server.admin.key).toString('base64') } }],
      contexts: [{ name: 'sni', context: { cluster: 'sni', user: 'admin' } }],
      'current-context': 'sni'
    }))
    const { stdout } = await kubectlFor({ kubeconfig, home: dir }).check(['get', 'namespace', 'default', '-o', 'name'])
    assert.equal(stdout.trim(), 'namespace/default')
  })

  it('stops start-up on a pair it cannot load, in the reference\'s words', async (t) => {
    await assert.rejects(startTestServer(t, { sniCertificates: [{ certFile: '/nonexistent.crt', keyFile: '/nonexistent.key', names: [] }] }), /failed to load SNI cert and key: .*nonexistent\.crt/)
  })
})
