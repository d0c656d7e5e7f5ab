// Shared fixtures of the storage tests.
import type { ApiObject, ObjectAttrs, Storage } from '../../storage/interface.js'
import { createPostgresStorage, type PostgresStorageOptions } from '../../storage/postgres.js'
import { freshDatabase } from '../helpers/postgres.js'

export const PREFIX = '/registry/core/configmaps/'

export function key (namespace: string, name: string): string {
  return `${PREFIX}${namespace}/${name}`
}

export function configMap (namespace: string, name: string, data: Record<string, string> = {},
  labels: Record<string, string> = {}): ApiObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels }, data }
}

export function extractAttrs (obj: any): ObjectAttrs {
  return {
    labels: { ...obj.metadata.labels },
    fields: { 'metadata.name': obj.metadata.name, 'metadata.namespace': obj.metadata.namespace }
  }
}

/** Polls `check` until it returns true; fails after `timeoutMs`. */
export async function eventually (check: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!await check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

/** A fresh database for one test, and the Storages opened on it: closed, then the database dropped. */
export async function testDatabase (t: { after (fn: () => unknown): void }): Promise<{
  url: string
  open (opts?: Partial<PostgresStorageOptions>): Promise<Storage>
}> {
  const drops: Array<() => unknown> = []
  const url = await freshDatabase({ after: fn => drops.push(fn) })
  const opened: Storage[] = []
  t.after(async () => {
    for (const s of opened) await s.close().catch(() => {})
    for (const drop of drops) await drop()
  })
  return {
    url,
    async open (opts = {}) {
      const storage = await createPostgresStorage({ url, minRetain: 0, ...opts })
      opened.push(storage)
      return storage
    }
  }
}
