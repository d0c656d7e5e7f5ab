// The --cluster-signing-* flags: parsed as the reference server names them, the generated CA by
// default, a cert without its key (or the reverse) refused at start.
import { it } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseFlags } from '../../bin/flags.js'
import { authOptions } from '../../bin/auth-options.js'

const generated = { serviceAccountKeyPem: 'sa', caCertPem: 'generated-cert', caKeyPem: 'generated-key' }

it('signs with the generated CA for a year by default', () => {
  const o = authOptions(parseFlags([], {}), generated)
  assert.deepEqual(o.clusterSigning, { certPem: 'generated-cert', keyPem: 'generated-key', durationMs: 365 * 24 * 3_600_000 })
})

it('reads --cluster-signing-cert-file, --cluster-signing-key-file and --cluster-signing-duration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'csr-flags-'))
  writeFileSync(join(dir, 'ca.crt'), 'my-cert')
  writeFileSync(join(dir, 'ca.key'), 'my-key')
  const o = authOptions(parseFlags([`--cluster-signing-cert-file=${join(dir, 'ca.crt')}`, '--cluster-signing-key-file', join(dir, 'ca.key'), '--cluster-signing-duration=720h'], {}), generated)
  assert.deepEqual(o.clusterSigning, { certPem: 'my-cert', keyPem: 'my-key', durationMs: 720 * 3_600_000 })
})

it('refuses a signing certificate without its key, and a missing file by its flag', () => {
  assert.throws(() => authOptions(parseFlags(['--cluster-signing-cert-file=/x'], {}), generated), /--cluster-signing-cert-file and --cluster-signing-key-file must be set together/)
  assert.throws(() => authOptions(parseFlags(['--cluster-signing-cert-file=/nope/ca.crt', '--cluster-signing-key-file=/nope/ca.key'], {}), generated), /--cluster-signing-cert-file: ENOENT/)
})
