// One cluster identity per database: the certificate authority clients trust (ca.crt in every
// namespace, in token secrets and kubeconfigs) and the key service-account tokens are signed with
// are those of the first server that started on the database. Their fingerprints are recorded
// there once; a server with others refuses to start, naming what to share, so that replicas never
// publish two CAs (they would rewrite the root CA ConfigMaps back and forth) nor issue tokens
// the others reject.
import fp from 'fastify-plugin'
import { createHash, createPublicKey } from 'node:crypto'
import { hostname } from 'node:os'
import type { FastifyInstance } from 'fastify'
import { StorageError } from '../storage/interface.js'

/** Outside every kind's prefix: no API serves it, the watch caches skip it, pg_dump keeps it. */
export const CLUSTER_IDENTITY_KEY = '/cluster/identity'

export interface ClusterIdentityOptions {
  /** The CA this server publishes; unset (tests without TLS): not checked. */
  caCertPem?: string
  /** The service-account signing key (PKCS#8 PEM); unset (a key generated per process): not checked. */
  serviceAccountKeyPem?: string
}

interface Recorded {
  caCertSha256?: string
  serviceAccountKeySha256?: string
  recordedBy?: string
  recordedAt?: string
}

const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex')

/** The fingerprint of the certificates in a PEM bundle: their DER bytes, whatever the line breaks. */
export function certificateFingerprint (pem: string): string {
  const blocks = [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)]
  return sha256(Buffer.concat(blocks.map(m => Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'))))
}

export const publicKeyFingerprint = (privateKeyPem: string): string =>
  sha256(createPublicKey(privateKeyPem).export({ type: 'spki', format: 'der' }))

const short = (fp: string): string => `sha256:${fp.slice(0, 16)}`

export default fp(async function clusterIdentity (fastify: FastifyInstance, opts: ClusterIdentityOptions) {
  const mine: Recorded = {}
  if (opts.caCertPem !== undefined) mine.caCertSha256 = certificateFingerprint(opts.caCertPem)
  if (opts.serviceAccountKeyPem !== undefined) mine.serviceAccountKeySha256 = publicKeyFingerprint(opts.serviceAccountKeyPem)
  if (mine.caCertSha256 === undefined && mine.serviceAccountKeySha256 === undefined) return
  const stamp = { recordedBy: hostname(), recordedAt: new Date().toISOString() }

  for (let attempt = 0; attempt < 10; attempt++) {
    const found = await fastify.storage.get(CLUSTER_IDENTITY_KEY)
    try {
      if (found === undefined) {
        await fastify.storage.write({ type: 'create', key: CLUSTER_IDENTITY_KEY, value: { metadata: {}, ...mine, ...stamp } })
        fastify.log.info({ ...mine }, 'recorded this server\'s CA and service-account key as the cluster\'s identity')
        return
      }
      const recorded = JSON.parse(found.json) as Recorded & { metadata: Record<string, unknown> }
      const by = `recorded by ${recorded.recordedBy ?? 'an earlier server'} at ${recorded.recordedAt ?? 'an unknown time'}`
      if (recorded.caCertSha256 !== undefined && mine.caCertSha256 !== undefined && recorded.caCertSha256 !== mine.caCertSha256) {
        throw new Error(`this server's certificate authority (${short(mine.caCertSha256)}) is not the cluster's (${short(recorded.caCertSha256)}, ${by}): ` +
          'every server on one database must use the same CA; start this one with the first server\'s --cert-dir ' +
          '(default <data-dir>/pki: ca.crt, ca.key, sa.key) copied or shared')
      }
      if (recorded.serviceAccountKeySha256 !== undefined && mine.serviceAccountKeySha256 !== undefined && recorded.serviceAccountKeySha256 !== mine.serviceAccountKeySha256) {
        throw new Error(`this server's service-account signing key (${short(mine.serviceAccountKeySha256)}) is not the cluster's (${short(recorded.serviceAccountKeySha256)}, ${by}): ` +
          'tokens it issued would be rejected by the other servers; start this one with the first server\'s --service-account-signing-key-file, ' +
          'or its --cert-dir (default <data-dir>/pki: sa.key) copied or shared')
      }
      // A first server without a CA or key (started with neither) leaves them to the next one.
      const missing = (['caCertSha256', 'serviceAccountKeySha256'] as const).filter(k => recorded[k] === undefined && mine[k] !== undefined)
      if (missing.length === 0) return
      const next = { ...recorded, metadata: {}, ...Object.fromEntries(missing.map(k => [k, mine[k]])) }
      await fastify.storage.write({ type: 'update', key: CLUSTER_IDENTITY_KEY, value: next, expectRevision: found.revision })
      return
    } catch (err) {
      // Another server starting at the same moment wrote first: read what it recorded.
      if (err instanceof StorageError && (err.code === 'KeyExists' || err.code === 'Conflict')) continue
      throw err
    }
  }
  throw new Error('could not record the cluster identity: the record kept changing')
}, { name: 'cluster-identity', dependencies: ['storage'] })
