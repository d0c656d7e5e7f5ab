// --service-account-private-key-file: the token controller's key, the signing key unless given,
// refused at start unless a private key tokens can be signed with.
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { it } from 'node:test'
import { authOptions } from '../../bin/auth-options.js'
import { parseFlags } from '../../bin/flags.js'

const GENERATED = { serviceAccountKeyPem: 'generated-sa', caCertPem: 'ca', caKeyPem: 'ca-key' }
const privatePem = (type: 'rsa' | 'ec' | 'ed25519'): string => {
  const pair = type === 'rsa'
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-384' }) : generateKeyPairSync('ed25519')
  return pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
}

function keyFile (t: { after (fn: () => void): void }, contents: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sa-key-flags-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'key.pem'), contents)
  return join(dir, 'key.pem')
}

it('leaves the token controller on the signing key unless --service-account-private-key-file is given', () => {
  const o = authOptions(parseFlags([], {}), GENERATED)
  assert.equal(o.serviceAccounts?.signingKeyPem, 'generated-sa')
  assert.equal(o.serviceAccounts?.legacySigningKeyPem, undefined)
})

it('reads an RSA or ECDSA key from --service-account-private-key-file', (t) => {
  for (const type of ['rsa', 'ec'] as const) {
    const pem = privatePem(type)
    const o = authOptions(parseFlags(['--service-account-private-key-file', keyFile(t, pem)], {}), GENERATED)
    assert.equal(o.serviceAccounts?.legacySigningKeyPem, pem)
  }
})

it('stops start-up on a file that holds no key tokens can be signed with, naming the flag', (t) => {
  const publicOnly = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString()
  for (const contents of ['not a key', publicOnly, privatePem('ed25519')]) {
    const path = keyFile(t, contents)
    assert.throws(() => authOptions(parseFlags(['--service-account-private-key-file', path], {}), GENERATED),
      new RegExp(`^Error: --service-account-private-key-file ${path}: not a PEM-encoded RSA or ECDSA private key`))
  }
  assert.throws(() => authOptions(parseFlags(['--service-account-private-key-file', '/nonexistent/key.pem'], {}), GENERATED),
    /^Error: --service-account-private-key-file: ENOENT/)
})
