// Bulk filling for the memory workload: ConfigMaps shaped exactly as the server stores them (a
// template read back from it), written through the store's own interface in big group-commit
// batches, so the server's watch cache takes them in from the log as it takes any write.
import { randomUUID } from 'node:crypto'
import { storageKey } from '../resources/define.js'
import configMaps from '../resources/configmaps.js'
import { createPostgresStorage } from '../storage/postgres.js'
import type { ApiObject } from '../storage/interface.js'

const IN_FLIGHT = 2000

/**
 * Writes `count` copies of `template` (a stored ConfigMap) named `<prefix>-<n>` into `namespace`
 * (or `namespace(n)`), with `labels(n)` added to the template's when given.
 */
export async function fillConfigMaps (databaseUrl: string, template: string, namespace: string | ((n: number) => string), prefix: string, count: number,
  labels?: (n: number) => Record<string, string>): Promise<void> {
  const storage = await createPostgresStorage({ url: databaseUrl, poolSize: 2 })
  try {
    const base = JSON.parse(template) as ApiObject & { metadata: Record<string, unknown> }
    let next = 0
    const writer = async (): Promise<void> => {
      while (next < count) {
        const n = next++
        const name = `${prefix}-${n}`
        const ns = typeof namespace === 'string' ? namespace : namespace(n)
        const metadata: Record<string, unknown> = { ...base.metadata, name, namespace: ns, uid: randomUUID(), resourceVersion: undefined }
        if (labels !== undefined) metadata.labels = { ...(base.metadata.labels as Record<string, string> | undefined), ...labels(n) }
        const value = { ...base, metadata }
        await storage.write({ type: 'create', key: storageKey(configMaps, ns, name), value })
      }
    }
    await Promise.all(Array.from({ length: IN_FLIGHT }, writer))
  } finally {
    await storage.close()
  }
}
