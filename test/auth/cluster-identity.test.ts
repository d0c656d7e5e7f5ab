// One cluster identity per database: the first app records its CA and token key; an app with
// others fails to build with a message naming what to share; one with the same ones starts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildTestApp } from '../helpers/app.js'
import { ensureCertificates } from '../../auth/pki.js'
import { CLUSTER_IDENTITY_KEY, certificateFingerprint } from '../../auth/cluster-identity.js'

const signingKey = (): string => generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

test('the database keeps the first server\'s CA and token key; others are refused', async (t) => {
  const dirs = [mkdtempSync(join(tmpdir(), 'identity-a-')), mkdtempSync(join(tmpdir(), 'identity-b-'))]
  t.after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }) })
  const [pkiA, pkiB] = await Promise.all(dirs.map(async d => await ensureCertificates(d)))
  const keyA = signingKey()

  const a = await buildTestApp(t, { rootCAPem: pkiA!.caCertPem, serviceAccounts: { signingKeyPem: keyA } })
  const recorded = JSON.parse((await a.app.storage.get(CLUSTER_IDENTITY_KEY))!.json)
  assert.equal(recorded.caCertSha256, certificateFingerprint(pkiA!.caCertPem))
  assert.match(recorded.serviceAccountKeySha256, /^[0-9a-f]{64}$/)

  // Another CA: refused, naming the directory to share.
  await assert.rejects(buildTestApp(t, { databaseUrl: a.databaseUrl, rootCAPem: pkiB!.caCertPem, serviceAccounts: { signingKeyPem: keyA } }),
    /certificate authority \(sha256:[0-9a-f]{16}\) is not the cluster's \(sha256:[0-9a-f]{16}, recorded by .*--cert-dir/)
  // The same CA with another token key: refused, naming the key flag.
  await assert.rejects(buildTestApp(t, { databaseUrl: a.databaseUrl, rootCAPem: pkiA!.caCertPem, serviceAccounts: { signingKeyPem: signingKey() } }),
    /service-account signing key .* is not the cluster's .*--service-account-signing-key-file/)
  // The same identity (the CA re-encoded with other line breaks): a replica like any other.
  const b = await buildTestApp(t, { databaseUrl: a.databaseUrl, rootCAPem: pkiA!.caCertPem.replace(/\n/g, '\r\n'), serviceAccounts: { signingKeyPem: keyA } })
  assert.equal((await b.request({ method: 'GET', url: '/api/v1/namespaces/default' })).statusCode, 200)
})

test('a first server without a CA leaves it to the next one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'identity-c-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const pki = await ensureCertificates(dir)
  const a = await buildTestApp(t)
  assert.equal(await a.app.storage.get(CLUSTER_IDENTITY_KEY), undefined)
  await buildTestApp(t, { databaseUrl: a.databaseUrl, rootCAPem: pki.caCertPem })
  const recorded = JSON.parse((await a.app.storage.get(CLUSTER_IDENTITY_KEY))!.json)
  assert.equal(recorded.caCertSha256, certificateFingerprint(pki.caCertPem))
  assert.equal(recorded.serviceAccountKeySha256, undefined)
})
