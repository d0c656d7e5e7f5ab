// What a Service claims from the server's pools: cluster IPs from the range of each IP family
// (--service-cluster-ip-range) and node ports (--service-node-port-range), as the reference
// server's service REST allocates them before the strategy runs; claims are released when the
// write fails, and values an update gives up once it is written.
import { invalid, internalError, ApiError } from './status.js'
import { PoolError, type FinishWrite, type HeldValue, type Pools, type RequestContext, type ValuePool } from './define.js'
import { CLUSTER_IP_NONE, isHeadless, validateClusterIPs, needsClusterIP, needsHealthCheck, needsNodePorts, shouldAllocateNodePorts } from './service-validation.js'
import { familyOf, type IPFamily } from './value-ranges.js'

type Svc = Record<string, any>
type Port = Record<string, any>

/** The pools a Service claims from. */
export const SERVICE_POOLS = {
  clusterIPs: (family: IPFamily): string => `services/cluster-ips/${family}`,
  nodePorts: 'services/node-ports'
}

const SERVICE_KIND = { group: '', kind: 'Service' }
const ipRefusal = (err: PoolError, ip: string, pool: ValuePool): string =>
  err.refusal === 'taken' ? 'provided IP is already allocated' : `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${pool.range}`
const portRefusal = (err: PoolError, pool: ValuePool): string =>
  err.refusal === 'taken' ? 'provided port is already allocated' : `provided port is not in the valid range. The range of valid ports is ${pool.range}`

/** The configured cluster IP families, the primary (first of --service-cluster-ip-range) first. */
function configuredFamilies (pools: Pools): IPFamily[] {
  const names = pools.names()
  return (['IPv4', 'IPv6'] as const).filter(f => names.includes(SERVICE_POOLS.clusterIPs(f)))
    .sort((a, b) => names.indexOf(SERVICE_POOLS.clusterIPs(a)) - names.indexOf(SERVICE_POOLS.clusterIPs(b)))
}

/** The values a stored Service holds. */
export function serviceHeldValues (svc: Svc): HeldValue[] {
  const held: HeldValue[] = []
  if (needsClusterIP(svc) && !isHeadless(svc)) {
    for (const ip of (svc.spec?.clusterIPs ?? []) as string[]) {
      const family = familyOf(ip)
      if (family !== undefined) held.push({ pool: SERVICE_POOLS.clusterIPs(family), value: ip })
    }
  }
  const ports = new Set<number>()
  for (const p of (svc.spec?.ports ?? []) as Port[]) if (typeof p.nodePort === 'number' && p.nodePort !== 0) ports.add(p.nodePort)
  if (needsHealthCheck(svc) && typeof svc.spec?.healthCheckNodePort === 'number' && svc.spec.healthCheckNodePort !== 0) ports.add(svc.spec.healthCheckNodePort)
  for (const port of ports) held.push({ pool: SERVICE_POOLS.nodePorts, value: String(port) })
  return held
}

/** The claims of one write, kept to be released if the write fails. */
class Claims {
  readonly made: Array<{ pool: ValuePool, value: string }> = []
  constructor (private readonly ctx: RequestContext) {}

  async claim (pool: ValuePool, value: string): Promise<void> {
    await pool.claim(value, this.ctx.owner ?? '', this.ctx.dryRun)
    if (!this.ctx.dryRun) this.made.push({ pool, value })
  }

  async claimAny (pool: ValuePool): Promise<string> {
    const value = await pool.claimAny(this.ctx.owner ?? '', this.ctx.dryRun)
    if (!this.ctx.dryRun) this.made.push({ pool, value })
    return value
  }

  async releaseAll (): Promise<void> {
    await Promise.all(this.made.map(async c => { await c.pool.release(c.value, this.ctx.owner).catch(() => {}) }))
  }
}

/** initIPFamilyFields: the policy and families from the request, the old object and the cluster's configuration. */
function initIPFamilyFields (svc: Svc, old: Svc | undefined, pools: Pools): void {
  const spec = svc.spec
  if (spec.type === 'ExternalName') return
  const configured = configuredFamilies(pools)
  if (spec.ipFamilyPolicy === undefined || spec.ipFamilyPolicy === null) {
    if (old?.spec?.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = old.spec.ipFamilyPolicy
    else if (isHeadless(svc) && Object.keys(spec.selector ?? {}).length === 0) spec.ipFamilyPolicy = 'RequireDualStack'
    else spec.ipFamilyPolicy = 'SingleStack'
  }
  const malformed = validateClusterIPs(svc)
  if (malformed.length > 0) throw invalid(SERVICE_KIND, svc.metadata?.name ?? '', malformed)
  const errors = []
  if (old !== undefined) {
    const same = (a: unknown[] | undefined, b: unknown[] | undefined) => JSON.stringify(a ?? []) === JSON.stringify(b ?? [])
    if (spec.ipFamilyPolicy === 'SingleStack') {
      if (same(old.spec?.clusterIPs, spec.clusterIPs) && (spec.clusterIPs ?? []).length > 1) spec.clusterIPs = spec.clusterIPs.slice(0, 1)
      if (same(old.spec?.ipFamilies, spec.ipFamilies) && (spec.ipFamilies ?? []).length > 1) spec.ipFamilies = spec.ipFamilies.slice(0, 1)
    } else {
      if ((spec.clusterIPs ?? []).length < (old.spec?.clusterIPs ?? []).length && needsClusterIP(old) && !isHeadless(old)) {
        errors.push({ type: 'Invalid' as const, field: 'spec.ipFamilyPolicy', value: spec.ipFamilyPolicy, detail: "must be 'SingleStack' to release the secondary cluster IP" })
      }
      if ((spec.ipFamilies ?? []).length < (old.spec?.ipFamilies ?? []).length && needsClusterIP(old)) {
        errors.push({ type: 'Invalid' as const, field: 'spec.ipFamilyPolicy', value: spec.ipFamilyPolicy, detail: "must be 'SingleStack' to release the secondary IP family" })
      }
    }
  }
  const ips: string[] = spec.clusterIPs ?? []
  const families: string[] = spec.ipFamilies ?? []
  if (spec.ipFamilyPolicy === 'SingleStack') {
    if (ips.length === 2) errors.push({ type: 'Invalid' as const, field: 'spec.ipFamilyPolicy', value: spec.ipFamilyPolicy, detail: "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified" })
    if (families.length === 2) errors.push({ type: 'Invalid' as const, field: 'spec.ipFamilyPolicy', value: spec.ipFamilyPolicy, detail: "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified" })
  }
  // Families follow the addresses given.
  ips.forEach((ip, i) => {
    if (ip === CLUSTER_IP_NONE || i < families.length) return
    const family = familyOf(ip)
    if (family === undefined) return
    if (!configured.includes(family)) errors.push({ type: 'Invalid' as const, field: `spec.clusterIPs[${i}]`, value: ips, detail: `${family} is not configured on this cluster` })
    else families.push(family)
  })
  if (errors.length > 0) throw invalid(SERVICE_KIND, svc.metadata?.name ?? '', errors)
  const other = (f: string): IPFamily => f === 'IPv4' ? 'IPv6' : 'IPv4'
  if (isHeadless(svc) && Object.keys(spec.selector ?? {}).length === 0) {
    // Headless without selector: any family, the cluster's or not.
    if (families.length === 0) families.push(configured[0] ?? 'IPv4')
    if (families.length < 2 && spec.ipFamilyPolicy !== 'SingleStack') families.push(other(families[0]!))
    spec.ipFamilies = families
    return
  }
  if (spec.ipFamilyPolicy === 'RequireDualStack' && configured.length < 2) {
    errors.push({ type: 'Invalid' as const, field: 'spec.ipFamilyPolicy', value: spec.ipFamilyPolicy, detail: 'this cluster is not configured for dual-stack services' })
  }
  families.forEach((f, i) => {
    if (!configured.includes(f as IPFamily)) errors.push({ type: 'Invalid' as const, field: `spec.ipFamilies[${i}]`, value: f, detail: 'not configured on this cluster' })
  })
  if (errors.length > 0) throw invalid(SERVICE_KIND, svc.metadata?.name ?? '', errors)
  if (families.length === 0 && configured.length > 0) families.push(configured[0]!)
  if (spec.ipFamilyPolicy !== 'SingleStack' && families.length === 1 && configured.length === 2) families.push(other(families[0]!))
  spec.ipFamilies = families
}

/** The cluster IPs at `indexes` of `ipFamilies`: the requested ones claimed, the missing ones allocated. */
async function claimClusterIPs (svc: Svc, indexes: number[], pools: Pools, claims: Claims): Promise<void> {
  const spec = svc.spec
  const ips: string[] = [...(spec.clusterIPs ?? [])]
  for (const i of indexes) {
    const family = spec.ipFamilies[i] as IPFamily
    const pool = pools.get(SERVICE_POOLS.clusterIPs(family))!
    const requested = ips[i]
    if (requested === undefined || requested === '') {
      try {
        ips[i] = await claims.claimAny(pool)
      } catch (err) {
        if (err instanceof PoolError) throw internalError(`failed to allocate a serviceIP: ${err.message}`)
        throw err
      }
      continue
    }
    try {
      await claims.claim(pool, requested)
    } catch (err) {
      if (!(err instanceof PoolError)) throw err
      throw invalid(SERVICE_KIND, svc.metadata?.name ?? '', [{ type: 'Invalid', field: 'spec.clusterIPs', value: spec.clusterIPs, detail: `failed to allocate IP ${requested}: ${ipRefusal(err, requested, pool)}` }])
    }
  }
  spec.clusterIPs = ips
  spec.clusterIP = ips[0]
}

/** Node ports of NodePort and LoadBalancer services (initNodePorts / updateNodePorts); `held` are the old object's. */
async function claimNodePorts (svc: Svc, held: Set<number>, pools: Pools, claims: Claims): Promise<void> {
  const pool = pools.get(SERVICE_POOLS.nodePorts)
  if (pool === undefined) return
  const ports: Port[] = svc.spec.ports ?? []
  const claimed = new Map<number, number>()
  const requestedElsewhere = (port: number): number => ports.find(p => p.port === port && (p.nodePort ?? 0) !== 0)?.nodePort ?? 0
  for (const [i, p] of ports.entries()) {
    if ((p.nodePort ?? 0) === 0 && !shouldAllocateNodePorts(svc)) continue
    const shared = claimed.get(p.port)
    if ((p.nodePort ?? 0) === 0 && shared !== undefined) { p.nodePort = shared; continue }
    const wanted: number = (p.nodePort ?? 0) !== 0 ? p.nodePort : requestedElsewhere(p.port)
    if (wanted === 0) {
      try {
        p.nodePort = Number(await claims.claimAny(pool))
      } catch (err) {
        if (err instanceof PoolError) throw internalError(`failed to allocate a nodePort: ${err.message}`)
        throw err
      }
    } else {
      if (!held.has(wanted) && ![...claimed.values()].includes(wanted)) {
        try {
          await claims.claim(pool, String(wanted))
        } catch (err) {
          if (!(err instanceof PoolError)) throw err
          throw invalid(SERVICE_KIND, svc.metadata?.name ?? '', [{ type: 'Invalid', field: `spec.ports[${i}].nodePort`, value: wanted, detail: portRefusal(err, pool) }])
        }
      }
      p.nodePort = wanted
    }
    claimed.set(p.port, p.nodePort)
  }
}

async function claimHealthCheckNodePort (svc: Svc, held: Set<number>, pools: Pools, claims: Claims): Promise<void> {
  const pool = pools.get(SERVICE_POOLS.nodePorts)
  if (pool === undefined || !needsHealthCheck(svc)) return
  const requested: number = svc.spec.healthCheckNodePort ?? 0
  try {
    if (requested === 0) svc.spec.healthCheckNodePort = Number(await claims.claimAny(pool))
    else if (!held.has(requested)) await claims.claim(pool, String(requested))
  } catch (err) {
    if (!(err instanceof PoolError)) throw err
    throw internalError(requested === 0 ? `failed to allocate a HealthCheck NodePort: ${err.message}` : `failed to allocate requested HealthCheck NodePort ${requested}: ${portRefusal(err, pool)}`)
  }
}

/** Runs `claimAll`; on any error releases what it claimed; returns the finish of the write. */
async function transaction (ctx: RequestContext, claimAll: (claims: Claims) => Promise<void>, releaseWhenWritten: () => Promise<void>): Promise<FinishWrite> {
  const claims = new Claims(ctx)
  try {
    await claimAll(claims)
  } catch (err) {
    await claims.releaseAll()
    if (err instanceof ApiError || !(err instanceof PoolError)) throw err
    throw internalError(err.message)
  }
  return async (written) => {
    if (written) await releaseWhenWritten().catch(() => {})
    else await claims.releaseAll()
  }
}

export async function beginServiceCreate (svc: Svc, ctx: RequestContext): Promise<FinishWrite> {
  initIPFamilyFields(svc, undefined, ctx.pools)
  return await transaction(ctx, async (claims) => {
    if (needsClusterIP(svc) && !isHeadless(svc)) await claimClusterIPs(svc, (svc.spec.ipFamilies as string[]).map((_f, i) => i), ctx.pools, claims)
    if (needsNodePorts(svc)) await claimNodePorts(svc, new Set(), ctx.pools, claims)
    await claimHealthCheckNodePort(svc, new Set(), ctx.pools, claims)
  }, async () => {})
}

export async function beginServiceUpdate (svc: Svc, old: Svc, ctx: RequestContext): Promise<FinishWrite> {
  initIPFamilyFields(svc, old, ctx.pools)
  const oldHeld = serviceHeldValues(old)
  const heldPorts = new Set(oldHeld.filter(h => h.pool === SERVICE_POOLS.nodePorts).map(h => Number(h.value)))
  return await transaction(ctx, async (claims) => {
    if (needsClusterIP(svc) && !isHeadless(svc)) {
      const families: string[] = svc.spec.ipFamilies ?? []
      if (!needsClusterIP(old)) await claimClusterIPs(svc, families.map((_f, i) => i), ctx.pools, claims)
      else if (!isHeadless(old) && (old.spec?.ipFamilies ?? []).length === 1 && families.length === 2) await claimClusterIPs(svc, [1], ctx.pools, claims)
    }
    if (needsNodePorts(svc)) await claimNodePorts(svc, heldPorts, ctx.pools, claims)
    await claimHealthCheckNodePort(svc, heldPorts, ctx.pools, claims)
  }, async () => {
    if (ctx.dryRun) return
    const kept = new Set(serviceHeldValues(svc).map(h => `${h.pool} ${h.value}`))
    await Promise.all(oldHeld.filter(h => !kept.has(`${h.pool} ${h.value}`))
      .map(async h => { await ctx.pools.get(h.pool)?.release(h.value, ctx.owner) }))
  })
}
