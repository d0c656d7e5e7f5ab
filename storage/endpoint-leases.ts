// The API servers' address leases: one record per advertised address under
// `/endpointleases/<address>`, renewed by the replica that advertises it, so that every replica
// on the database knows which addresses the `kubernetes` Service's endpoints should name (the
// reference keeps the same records under etcd's `/masterleases/`, with a TTL). The records sit
// outside every kind's prefix, as the value pools' do: no API serves them, no watch cache holds
// them, and no client listing Leases or Endpoints meets them.
//
// PostgreSQL has no TTL, and the replicas' clocks need not agree: a record counts as expired
// once this reader has seen it unchanged (same revision) for its lease duration on its own
// monotonic clock, as a leader-election candidate judges a lease. A reader that first meets a
// dead record waits one duration before it drops it.
import { performance } from 'node:perf_hooks'
import { StorageError, type Storage } from './interface.js'

export const ENDPOINT_LEASES_PREFIX = '/endpointleases/'

interface LeaseRecord { metadata: Record<string, unknown>, address: string, leaseDurationSeconds: number }

export interface EndpointLeasesOptions {
  /** How long a record lives without renewal; the reference's master lease TTL is 15 s. */
  leaseDurationMs: number
  /** A monotonic clock in milliseconds (tests pass their own). */
  now?: () => number
}

export class EndpointLeases {
  private readonly now: () => number
  /** Per address: the revision last seen and when (this reader's clock) it was first seen. */
  private readonly seen = new Map<string, { revision: number, since: number }>()

  constructor (private readonly storage: Storage, private readonly opts: EndpointLeasesOptions) {
    this.now = opts.now ?? (() => performance.now())
  }

  private key (address: string): string { return `${ENDPOINT_LEASES_PREFIX}${address}` }

  /** Adds or refreshes the lease of `address`: a new revision, whatever the record held. */
  async renew (address: string): Promise<void> {
    const value: LeaseRecord = { metadata: {}, address, leaseDurationSeconds: Math.ceil(this.opts.leaseDurationMs / 1000) }
    // Two attempts: the record may be created or removed between the read and the write.
    for (let attempt = 0; ; attempt++) {
      const found = await this.storage.get(this.key(address))
      try {
        await this.storage.write(found === undefined
          ? { type: 'create', key: this.key(address), value: { ...value } }
          : { type: 'update', key: this.key(address), value: { ...value }, expectRevision: found.revision })
        return
      } catch (err) {
        if (attempt > 0 || !(err instanceof StorageError && ['KeyExists', 'NotFound', 'Conflict'].includes(err.code))) throw err
      }
    }
  }

  /** Removes the lease of `address`, whoever renewed it last. */
  async remove (address: string): Promise<void> {
    const found = await this.storage.get(this.key(address))
    if (found === undefined) return
    await this.deleteAt(address, found.revision)
  }

  /**
   * The addresses whose leases are live, sorted. Records this reader has seen unchanged for
   * longer than their duration are deleted (only at the revision seen: a renewal meanwhile wins).
   */
  async live (): Promise<string[]> {
    const now = this.now()
    const records: Array<{ address: string, revision: number, durationMs: number }> = []
    let after: string | undefined
    for (;;) {
      const page = await this.storage.list({ prefix: ENDPOINT_LEASES_PREFIX, limit: 1000, continueAfterKey: after })
      for (const item of page.items) {
        const record = JSON.parse(item.json) as Partial<LeaseRecord>
        const durationMs = (record.leaseDurationSeconds ?? 0) * 1000 || this.opts.leaseDurationMs
        records.push({ address: item.key.slice(ENDPOINT_LEASES_PREFIX.length), revision: item.revision, durationMs })
      }
      if (page.continueAfterKey === undefined) break
      after = page.continueAfterKey
    }
    const listed = new Set(records.map(r => r.address))
    for (const address of this.seen.keys()) if (!listed.has(address)) this.seen.delete(address)
    const live: string[] = []
    for (const { address, revision, durationMs } of records) {
      const seen = this.seen.get(address)
      if (seen === undefined || seen.revision !== revision) this.seen.set(address, { revision, since: now })
      if (now - (this.seen.get(address)!.since) < durationMs) live.push(address)
      else await this.deleteAt(address, revision)
    }
    return live.sort()
  }

  private async deleteAt (address: string, revision: number): Promise<void> {
    try {
      await this.storage.write({ type: 'delete', key: this.key(address), value: { metadata: {} }, expectRevision: revision })
      this.seen.delete(address)
    } catch (err) {
      // Renewed or removed meanwhile: either way not this reader's to delete.
      if (!(err instanceof StorageError && (err.code === 'NotFound' || err.code === 'Conflict'))) throw err
    }
  }
}
