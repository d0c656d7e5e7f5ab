// Value pools in the store: each claimed value is one record under `/pools/<pool>/<value>`,
// created only when absent, so the database's key uniqueness decides between concurrent claims
// on every replica (the reference server's IPAddress objects play this part). The records sit
// outside every kind's prefix: no API serves them and no watch cache holds them.
import { randomBytes } from 'node:crypto'
import { PoolError, type Pools, type ValuePool } from '../resources/define.js'
import type { ValueRange } from '../resources/value-ranges.js'
import { StorageError, type Storage } from './interface.js'

export const POOLS_PREFIX = '/pools/'

export interface PoolDefinition {
  /** Names the pool in keys: letters, digits, `-`, `.` and `/`. */
  name: string
  range: ValueRange
}

/** A claim as recorded. */
export interface Claim {
  value: string
  /** The storage key of the object holding it. */
  owner: string
  /** When it was claimed (ISO time, the claiming replica's clock). */
  claimedAt: string
  revision: number
}

/** Random probes before a claimAny lists what is taken: a nearly full range costs one listing. */
const RANDOM_PROBES = 8
const PAGE = 5000

function randomOffset (size: bigint): bigint {
  const bytes = Math.ceil(size.toString(16).length / 2) + 8
  return BigInt(`0x${randomBytes(bytes).toString('hex')}`) % size
}

/** Offsets of each [from, to) in turn, each in a random rotation; lazily, as an IPv6 range is vast. */
function * rotated (...spans: Array<[bigint, bigint]>): Generator<bigint> {
  for (const [from, to] of spans) {
    const span = to - from
    if (span <= 0n) continue
    const start = randomOffset(span)
    for (let i = 0n; i < span; i++) yield from + (start + i) % span
  }
}

export class StoragePool implements ValuePool {
  readonly range: string
  private readonly prefix: string

  constructor (readonly name: string, private readonly values: ValueRange, private readonly storage: Storage) {
    this.range = values.text
    this.prefix = `${POOLS_PREFIX}${name}/`
  }

  contains (value: string): boolean { return this.values.offsetOf(value) !== undefined }

  /** The value as keys spell it (addresses canonical); PoolError 'outside' when it is not in the range. */
  canonical (value: string): string {
    const offset = this.values.offsetOf(value)
    if (offset === undefined) throw new PoolError('outside', `${value} is not in the range ${this.range}`)
    return this.values.valueAt(offset)
  }

  private key (value: string): string { return `${this.prefix}${value}` }

  /** Claims `value` when free; false when another holds it. */
  private async tryClaim (value: string, owner: string, dryRun: boolean): Promise<boolean> {
    if (dryRun) return await this.storage.get(this.key(value)) === undefined
    try {
      await this.storage.write({ type: 'create', key: this.key(value), value: { metadata: {}, owner, claimedAt: new Date().toISOString() } })
      return true
    } catch (err) {
      if (err instanceof StorageError && err.code === 'KeyExists') return false
      throw err
    }
  }

  async claim (value: string, owner: string, dryRun: boolean): Promise<void> {
    if (!await this.tryClaim(this.canonical(value), owner, dryRun)) throw new PoolError('taken', `${value} is already claimed`)
  }

  async claimAny (owner: string, dryRun: boolean): Promise<string> {
    const size = this.values.size
    if (size === 0n) throw new PoolError('full', 'range is full')
    // The dynamic band first, as the reference: the static band stays for requested values.
    const band = this.values.staticBand
    const dynamic = band < size ? band : 0n
    for (let probe = 0; probe < RANDOM_PROBES; probe++) {
      const value = this.values.valueAt(dynamic + randomOffset(size - dynamic))
      if (await this.tryClaim(value, owner, dryRun)) return value
    }
    // Crowded: walk each band from a random point, past what is recorded as taken.
    const taken = new Set((await this.claims()).map(c => c.value))
    if (BigInt(taken.size) >= size) throw new PoolError('full', 'range is full')
    for (const offset of rotated([dynamic, size], [0n, dynamic])) {
      const value = this.values.valueAt(offset)
      if (taken.has(value)) continue
      if (await this.tryClaim(value, owner, dryRun)) return value
    }
    throw new PoolError('full', 'range is full')
  }

  /** Releases `value` when `owner` holds it (undefined: whoever does). */
  async release (value: string, owner?: string): Promise<void> {
    let key: string
    try { key = this.key(this.canonical(value)) } catch { return }
    const found = await this.storage.get(key)
    if (found === undefined) return
    if (owner !== undefined && (JSON.parse(found.json) as { owner?: string }).owner !== owner) return
    try {
      await this.storage.write({ type: 'delete', key, value: { metadata: {} }, expectRevision: found.revision })
    } catch (err) {
      // Released meanwhile, or released and claimed anew by another: either way not ours now.
      if (!(err instanceof StorageError && (err.code === 'NotFound' || err.code === 'Conflict'))) throw err
    }
  }

  /** Every claim of this pool, read from the database. */
  async claims (): Promise<Claim[]> {
    const out: Claim[] = []
    let after: string | undefined
    for (;;) {
      const page = await this.storage.list({ prefix: this.prefix, limit: PAGE, continueAfterKey: after })
      for (const item of page.items) {
        const record = JSON.parse(item.json) as { owner?: string, claimedAt?: string }
        out.push({ value: item.key.slice(this.prefix.length), owner: record.owner ?? '', claimedAt: record.claimedAt ?? '', revision: item.revision })
      }
      if (page.continueAfterKey === undefined) return out
      after = page.continueAfterKey
    }
  }
}

export interface StoragePools extends Pools {
  get (name: string): StoragePool | undefined
  all (): StoragePool[]
}

export function createPools (storage: Storage, definitions: readonly PoolDefinition[]): StoragePools {
  const pools = new Map(definitions.map(d => [d.name, new StoragePool(d.name, d.range, storage)]))
  return { get: (name) => pools.get(name), names: () => [...pools.keys()], all: () => [...pools.values()] }
}
