// The repair pass of the value pools (the reference server's IP and node port repair loops):
// at start and every few minutes, every claim no stored object holds is released, and every
// value a stored object holds without a claim is claimed for it. Any kind whose strategy says
// what it holds (`heldValues`) takes part. A claim younger than the grace period is left alone:
// it may belong to a write still in flight on some replica (claims come before the object).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../resources/define.js'
import type { ResourceStore } from '../storage/resource-store.js'

export interface ValuePoolRepairOptions {
  intervalMs?: number
  /** How old an unheld claim must be to be released (default 2 minutes: longer than any write). */
  graceMs?: number
  now?: () => number
}

const INTERVAL_MS = 3 * 60_000
const GRACE_MS = 2 * 60_000

export interface RepairResult { released: number, recorded: number }

export async function repairValuePools (fastify: FastifyInstance, graceMs = GRACE_MS, now = Date.now): Promise<RepairResult> {
  const pools = fastify.pools.all()
  if (pools.length === 0) return { released: 0, recorded: 0 }
  // Claims first: a value claimed after this read is not judged now.
  const claims = new Map(await Promise.all(pools.map(async p => [p.name, await p.claims()] as const)))
  const held = new Map<string, Map<string, string>>()
  const storeOf = new Map<string, ResourceStore>()
  for (const store of fastify.resources.all()) {
    const heldValues = store.resource.strategy.heldValues
    if (heldValues === undefined) continue
    await store.freshen(undefined)
    for (const item of store.cache.list(store.prefix)) {
      const obj = JSON.parse(item.json) as AnyObject
      storeOf.set(item.key, store)
      for (const h of heldValues(obj)) {
        if (!held.has(h.pool)) held.set(h.pool, new Map())
        held.get(h.pool)!.set(fastify.pools.get(h.pool)?.contains(h.value) === true ? canonical(fastify, h.pool, h.value) : h.value, item.key)
      }
    }
  }
  /** Whether the object at `key` holds `value` of `pool` now (its store caught up first). */
  const stillHeld = async (key: string, pool: string, value: string): Promise<boolean> => {
    const store = storeOf.get(key)!
    await store.freshen(undefined)
    const item = store.cache.get(key)
    if (item === undefined) return false
    return store.resource.strategy.heldValues!(JSON.parse(item.json) as AnyObject)
      .some(h => h.pool === pool && (fastify.pools.get(pool)?.contains(h.value) === true ? canonical(fastify, pool, h.value) : h.value) === value)
  }
  let released = 0
  let recorded = 0
  for (const pool of pools) {
    const holders = held.get(pool.name) ?? new Map<string, string>()
    const claimed = claims.get(pool.name) ?? []
    for (const c of claimed) {
      if (holders.has(c.value)) continue
      const age = now() - Date.parse(c.claimedAt)
      if (!(age >= graceMs)) continue
      await pool.release(c.value, c.owner)
      released++
    }
    const claimedValues = new Set(claimed.map(c => c.value))
    for (const [value, owner] of holders) {
      if (claimedValues.has(value) || !pool.contains(value)) continue
      try {
        await pool.claim(value, owner, false)
      } catch {
        // Claimed meanwhile (by its own write, or by another replica's repair).
        continue
      }
      // Deleted (its claim released) between the read above and this claim: not a holder now.
      if (await stillHeld(owner, pool.name, value)) recorded++
      else await pool.release(value, owner)
    }
  }
  return { released, recorded }
}

/** The value as the pool's keys spell it. */
function canonical (fastify: FastifyInstance, pool: string, value: string): string {
  return fastify.pools.get(pool)!.canonical(value)
}

export default fp(async function valuePoolRepair (fastify: FastifyInstance, opts: ValuePoolRepairOptions) {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<unknown> = Promise.resolve()
  const pass = () => {
    running = repairValuePools(fastify, opts.graceMs, opts.now).then(r => {
      if (r.released + r.recorded > 0) fastify.log.info(r, 'value pools repaired')
    }, err => { fastify.log.warn({ err }, 'value pool repair failed') })
    return running
  }
  fastify.addHook('onReady', async () => {
    await pass()
    timer = setInterval(() => { void pass() }, opts.intervalMs ?? INTERVAL_MS)
    timer.unref()
  })
  fastify.addHook('onClose', async () => {
    if (timer !== undefined) clearInterval(timer)
    await running
  })
}, { name: 'controller:value-pool-repair', dependencies: ['rest'] })
