// The `kubernetes` Service's endpoint reconciler (the reference server's
// `--endpoint-reconciler-type`): with `lease`, each replica renews the lease of its advertised
// address and writes the addresses of every live lease, sorted, as the Service's Endpoints and
// EndpointSlice; a replica that stops cleanly removes its own lease and writes again. With
// `none`, nothing is written. The reference's deprecated `master-count` (which needs
// --apiserver-count) is not offered.
import type { EndpointLeases } from '../storage/endpoint-leases.js'

export const ENDPOINT_RECONCILER_TYPES = ['lease', 'none'] as const
export type EndpointReconcilerType = typeof ENDPOINT_RECONCILER_TYPES[number]

/** The reference's defaults: master leases live 15 s and are renewed every 10 s. */
export const DEFAULT_ENDPOINT_LEASE_DURATION_MS = 15_000
export const DEFAULT_ENDPOINT_RECONCILE_INTERVAL_MS = 10_000

export interface EndpointReconcilerOptions {
  /** --endpoint-reconciler-type (default lease). */
  type?: EndpointReconcilerType
  /** How long an address stays without renewal (default 15 s). */
  leaseDurationMs?: number
  /** How often each replica renews and reconciles (default 10 s). */
  intervalMs?: number
}

/** Writes the Service's Endpoints and EndpointSlice naming these addresses (in this order). */
export type EndpointsWriter = (addresses: string[]) => Promise<void>

export class LeaseEndpointReconciler {
  private stopped = false
  /** Reconciles run one at a time: a removal waits for a renewal under way, not beside it. */
  private queue: Promise<void> = Promise.resolve()

  constructor (private readonly leases: EndpointLeases, private readonly write: EndpointsWriter) {}

  /** Renews `address`'s lease, then writes every live address; nothing once stopped. */
  reconcile (address: string): Promise<void> {
    return this.serially(async () => {
      if (this.stopped) return
      // Renewed first, whatever follows fails: the other replicas still see this one.
      await this.leases.renew(address)
      await this.writeLive()
    })
  }

  /**
   * Stops the reconciles, removes `address`'s lease and writes the addresses left. The last
   * replica to stop leaves its address named: there is no other to name.
   */
  remove (address: string): Promise<void> {
    this.stopped = true
    return this.serially(async () => {
      await this.leases.remove(address)
      const addresses = await this.leases.live()
      if (addresses.length > 0) await this.write(addresses)
    })
  }

  private async writeLive (): Promise<void> {
    const addresses = await this.leases.live()
    // As the reference: with its own lease just renewed, no live lease at all is a fault of the
    // store, not a cluster without servers; the endpoints are left as they are.
    if (addresses.length === 0) throw new Error('no API server addresses were listed in storage, refusing to erase all endpoints for the kubernetes service')
    await this.write(addresses)
  }

  private serially (step: () => Promise<void>): Promise<void> {
    const run = this.queue.then(step)
    this.queue = run.catch(() => {})
    return run
  }
}
