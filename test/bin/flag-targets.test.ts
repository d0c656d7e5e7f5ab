// Each flag's value reaches the option its table entry names as target: set through the flag,
// read back from the options the server builds the app with.
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { isDeepStrictEqual } from 'node:util'
import { appOptions } from '../../bin/app-options.js'
import { FLAG_TABLE, type Flag } from '../../bin/flags/index.js'
import { parseFlags } from '../../bin/flags.js'

const PKI = { caCertPem: 'generated-ca', caKeyPem: 'generated-ca-key', servingCertPem: 'generated-cert', servingKeyPem: 'generated-key', serviceAccountKeyPem: 'generated-sa' }

/** The flags whose file is refused at start unless it holds a private key tokens can be signed with. */
const SIGNING_KEY_FLAGS = ['service-account-signing-key-file', 'service-account-private-key-file']
const SIGNING_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

/** Values the table's defaults are not, where a kind refuses just any text. */
const SAMPLES: Record<string, string> = {
  'authorization-webhook-version': 'v1',
  'authentication-token-webhook-version': 'v1',
  'enable-admission-plugins': 'AlwaysPullImages',
  'disable-admission-plugins': 'AlwaysPullImages',
  'admission-webhook-service-address': 'a.hooks.svc=10.0.0.7:443',
  'service-cluster-ip-range': '10.0.0.0/16',
  'service-node-port-range': '20000-20999',
  'feature-gates': 'AllAlpha=true',
  'kubelet-preferred-address-types': 'InternalIP,Hostname',
  'endpoint-reconciler-type': 'none',
  'tls-cipher-suites': 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'tls-min-version': 'VersionTLS13',
  'tls-sni-cert-key': 'a.crt,a.key:a.example'
}
const BY_TYPE: Record<string, string> = { int: '7', duration: '7s', strings: 'a,b', stringArray: 'a', mapStringString: 'k=v', string: 'x', ip: '10.0.0.5' }

function sample (f: Flag): string {
  if (f.kind.type === '') return String(f.default !== true)
  const text = SAMPLES[f.name] ?? BY_TYPE[f.kind.type]
  assert.ok(text !== undefined, `a sample value for --${f.name}`)
  return text
}

const at = (options: unknown, path: string): unknown => path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], options)

test('every flag whose target is an app option sets that option', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flag-targets-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = (name: string): string => {
    const path = join(dir, name)
    writeFileSync(path, `contents of --${name}\n${SIGNING_KEY_FLAGS.includes(name) ? SIGNING_KEY : ''}`)
    return path
  }
  // The options built only when their group is on: both webhooks, OIDC, the proxy, the signer's pair.
  const groupsOn = ['--authorization-webhook-config-file=/w', '--authentication-token-webhook-config-file=/t', '--oidc-issuer-url=https://idp', '--oidc-client-id=cli',
    `--requestheader-client-ca-file=${file('requestheader-client-ca-file')}`, '--requestheader-username-headers=X-User',
    `--cluster-signing-cert-file=${file('cluster-signing-cert-file')}`, `--cluster-signing-key-file=${file('cluster-signing-key-file')}`]
  let checked = 0
  for (const f of FLAG_TABLE) {
    // The audit policy is loaded by the process before anything starts, and handed over loaded.
    if (f.target.startsWith('process:') || f.name === 'audit-policy-file') continue
    const flags = parseFlags([...groupsOn, `--${f.name}=${f.readsFile === true ? file(f.name) : sample(f)}`], {})
    // As the process does: the URL given, else the embedded database's.
    const options = appOptions(flags, { databaseUrl: flags.storageUrl ?? 'postgres://embedded', pki: PKI })
    const got = at(options, f.target)
    if (f.readsFile === true) {
      assert.ok(JSON.stringify(got).includes(`contents of --${f.name}`), `--${f.name}'s file reaches ${f.target}: ${JSON.stringify(got)}`)
    } else {
      const want = (flags as unknown as Record<string, unknown>)[f.key]
      assert.notDeepEqual(want, (parseFlags([], {}) as unknown as Record<string, unknown>)[f.key], `--${f.name}'s sample is not its default`)
      assert.ok(isDeepStrictEqual(got, want) || JSON.stringify(got).includes(JSON.stringify(want)), `--${f.name} reaches ${f.target}: ${JSON.stringify(got)}, want ${JSON.stringify(want)}`)
    }
    checked++
  }
  assert.ok(checked > 50, `${checked} flags checked`)
})
