// The `kubernetes` Service in `default`: the first address of the service range, port 443
// (https) to this server's port, so in-cluster clients find the API server by name. A
// start-up write of every replica, as the reference server's bootstrap controller makes it:
// created when missing, its ports put back when they differ. It has no selector: its Endpoints
// and EndpointSlice, of its name, are written by the endpoint reconciler (endpoint-reconciler.ts)
// at start and every interval on every replica, naming the advertised address of every live
// replica at its port; a replica's address goes as it shuts down.
import fp from 'fastify-plugin'
import { isDeepStrictEqual } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { networkInterfaces } from 'node:os'
import { isIPv6 } from 'node:net'
import { CONTROLLER_USER, ENDPOINT_SLICES, GROUPS, NAMESPACES } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import { SERVICE_POOLS } from '../resources/service-allocation.js'
import { familyOf } from '../resources/value-ranges.js'
import type { Caller } from '../storage/resource-store.js'
import { EndpointLeases } from '../storage/endpoint-leases.js'
import {
  DEFAULT_ENDPOINT_LEASE_DURATION_MS, DEFAULT_ENDPOINT_RECONCILE_INTERVAL_MS, LeaseEndpointReconciler, type EndpointReconcilerOptions
} from './endpoint-reconciler.js'

export interface KubernetesServiceOptions {
  /** The first address of the primary service range. */
  clusterIP: string
  /** The port this server listens on. */
  port: number
  /** The address clients in the cluster reach this server at: what its endpoints name; none written without it. */
  endpointIP?: string
  /** --endpoint-reconciler-type, and the lease's duration and renewal interval. */
  reconciler?: EndpointReconcilerOptions
}

/**
 * The reference's ChooseHostInterface, roughly: the first global address of this host's
 * interfaces, IPv4 before IPv6; undefined when the host has only loopback and link-local ones.
 */
export function hostAddress (): string | undefined {
  const all = Object.values(networkInterfaces()).flatMap(list => list ?? []).filter(a => !a.internal && !a.address.startsWith('fe80:') && !a.address.startsWith('169.254.'))
  return (all.find(a => a.family === 'IPv4') ?? all[0])?.address
}

export const KUBERNETES_SERVICE_NAME = 'kubernetes'
/** Longer than a create takes between its address's claim and its object on a busy replica. */
const LEFTOVER_CLAIM_WAIT_MS = 1000

export default fp(async function kubernetesService (fastify: FastifyInstance, opts: KubernetesServiceOptions) {
  // With --secure-port 0 the port is the one listen() was given, known only once it is bound.
  let servingPort = opts.port
  const whenPortKnown = (work: () => Promise<void>): void => {
    if (opts.port !== 0) {
      fastify.addHook('onReady', work)
      return
    }
    fastify.addHook('onListen', async () => {
      const bound = fastify.server.address()
      if (typeof bound !== 'object' || bound === null) return
      servingPort = bound.port
      await work().catch((err: unknown) => { fastify.log.warn({ err }, 'the kubernetes Service could not be written') })
    })
  }
  const caller = (): Caller => ({ user: { ...CONTROLLER_USER, groups: [...CONTROLLER_USER.groups] }, manager: 'kubernetes-service', warnings: [] })
  const writeOptions = { dryRun: false, fieldValidation: 'Strict' as const, force: false }

  whenPortKnown(async () => {
    const store = fastify.resources.find({ group: '', resource: 'services' })
    if (store === undefined) return
    const ports = [{ name: 'https', protocol: 'TCP', port: 443, targetPort: servingPort }]
    const body = {
      metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACES.default, labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: 'ClusterIP', clusterIP: opts.clusterIP, clusterIPs: [opts.clusterIP], ipFamilyPolicy: 'SingleStack', sessionAffinity: 'None', ports }
    }
    // Looked up before the create, as the reference's controller does: a create of a Service that
    // exists claims its address first and is refused for that (422), not with the 409 of its name.
    const exists = (): Promise<boolean> => store.get(NAMESPACES.default, KUBERNETES_SERVICE_NAME).then(() => true, (err: unknown) => {
      if (err instanceof ApiError && err.code === 404) return false
      throw err
    })
    const create = async (): Promise<ApiError | undefined> => {
      try {
        await store.create(NAMESPACES.default, body, writeOptions, caller())
        return undefined
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        return err
      }
    }
    if (!await exists()) {
      let refused = await create()
      if (refused === undefined) return
      // Another replica created it meanwhile (409, or 422 for its address): reconcile it below.
      if (!await exists() && await releaseLeftoverClaim(store.key(NAMESPACES.default, KUBERNETES_SERVICE_NAME), exists)) {
        refused = await create()
        if (refused === undefined) return
      }
      // Otherwise its address is held by another Service: serve anyway, and say why it is missing.
      if (!await exists()) {
        fastify.log.warn({ err: refused.message }, 'the kubernetes Service could not be created')
        return
      }
    }
    try {
      await store.update(NAMESPACES.default, KUBERNETES_SERVICE_NAME, (current) => {
        const kept = (current.spec?.ports ?? []).map(({ nodePort: _n, ...p }: Record<string, unknown>) => p)
        return isDeepStrictEqual(kept, ports) ? current : { ...current, spec: { ...current.spec, ports } }
      }, { ...writeOptions, subresource: '' }, caller())
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      fastify.log.warn({ err: err.message }, 'the kubernetes Service could not be reconciled')
    }
  })

  /**
   * A claim of the Service's address held in the Service's own name while the Service does not
   * exist: what a create leaves when its process stops between the claim and the object (a start
   * stopped by a signal). The repair pass would release it only after its grace period, and the
   * Service would be missing until the next start; it is released here once a moment's wait
   * shows no create of it in flight on another replica. True when it was released.
   */
  async function releaseLeftoverClaim (owner: string, exists: () => Promise<boolean>): Promise<boolean> {
    const family = familyOf(opts.clusterIP)
    const pool = family === undefined ? undefined : fastify.pools.get(SERVICE_POOLS.clusterIPs(family))
    if (pool === undefined) return false
    const value = pool.canonical(opts.clusterIP)
    const claim = (await pool.claims()).find(c => c.value === value)
    if (claim === undefined || claim.owner !== owner) return false
    await new Promise(resolve => setTimeout(resolve, LEFTOVER_CLAIM_WAIT_MS))
    if (await exists()) return false
    await pool.release(value, owner)
    return true
  }

  /** The Endpoints and EndpointSlice naming `addresses`, created or put right. */
  async function writeEndpoints (addresses: string[]): Promise<void> {
    const port = { name: 'https', port: servingPort, protocol: 'TCP' }
    await writeOwn(fastify.resources.find({ group: '', resource: 'endpoints' }), {
      apiVersion: 'v1',
      kind: 'Endpoints',
      // No controller mirrors these into a slice: the slice is written below.
      metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACES.default, labels: { [ENDPOINT_SLICES.skipMirrorLabel]: 'true' } },
      subsets: [{ addresses: addresses.map(ip => ({ ip })), ports: [port] }]
    }, ['subsets'])
    await writeOwn(fastify.resources.find({ group: GROUPS.discovery, resource: 'endpointslices' }), {
      apiVersion: `${GROUPS.discovery}/v1`,
      kind: 'EndpointSlice',
      metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACES.default, labels: { [ENDPOINT_SLICES.serviceNameLabel]: KUBERNETES_SERVICE_NAME } },
      addressType: isIPv6(addresses[0]!) ? 'IPv6' : 'IPv4',
      endpoints: addresses.map(ip => ({ addresses: [ip], conditions: { ready: true } })),
      ports: [port]
    }, ['endpoints', 'ports'])
  }

  const address = opts.endpointIP
  if (address !== undefined && (opts.reconciler?.type ?? 'lease') === 'lease') {
    const leases = new EndpointLeases(fastify.storage, { leaseDurationMs: opts.reconciler?.leaseDurationMs ?? DEFAULT_ENDPOINT_LEASE_DURATION_MS })
    const reconciler = new LeaseEndpointReconciler(leases, writeEndpoints)
    const intervalMs = opts.reconciler?.intervalMs ?? DEFAULT_ENDPOINT_RECONCILE_INTERVAL_MS
    let timer: NodeJS.Timeout | undefined
    let running: Promise<void> = Promise.resolve()
    const reconcile = (): Promise<void> => reconciler.reconcile(address)
      .catch((err: unknown) => { fastify.log.warn({ err: err instanceof Error ? err.message : err }, 'reconciling the kubernetes Service\'s endpoints failed') })
    whenPortKnown(async () => {
      await reconcile()
      timer = setInterval(() => { running = reconcile() }, intervalMs)
      timer.unref()
    })
    // As shutdown begins (before the shutdown delay, while this server still answers), as the
    // reference's pre-shutdown hook does: the other replicas' clients stop being sent here. A
    // close without a shutdown (an embedding app, a test) does it too.
    let left: Promise<void> | undefined
    const leave = async (): Promise<void> => {
      left ??= (async () => {
        if (timer !== undefined) clearInterval(timer)
        await running
        await reconciler.remove(address).catch((err: unknown) => {
          fastify.log.warn({ err: err instanceof Error ? err.message : err }, 'removing this server from the kubernetes Service\'s endpoints failed')
        })
      })()
      await left
    }
    fastify.health.onShutdown(leave)
    fastify.addHook('preClose', leave)
  }

  /** Per kind, the last failure logged: a reconcile failing the same way every interval says so once. */
  const failures = new Map<string, string>()

  /**
   * Puts back an object's labels and the given fields when they differ, or creates it. A write
   * that met another replica's (409) is tried once more on what that one wrote.
   */
  async function writeOwn (store: ReturnType<typeof fastify.resources.find>, body: Record<string, any>, fields: string[]): Promise<void> {
    if (store === undefined) return
    const kind = String(body.kind)
    const put = (current: Record<string, any>): Record<string, any> => {
      const labels = { ...current.metadata.labels, ...body.metadata.labels }
      const changed = !isDeepStrictEqual(labels, current.metadata.labels ?? {}) || fields.some(f => !isDeepStrictEqual(current[f], body[f]))
      if (!changed) return current
      return { ...current, ...Object.fromEntries(fields.map(f => [f, body[f]])), metadata: { ...current.metadata, labels } }
    }
    for (let attempt = 0; ; attempt++) {
      try {
        try {
          await store.update(NAMESPACES.default, KUBERNETES_SERVICE_NAME, put, { ...writeOptions, subresource: '' }, caller())
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 404)) throw err
          await store.create(NAMESPACES.default, body, writeOptions, caller())
        }
        failures.delete(kind)
        return
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        if (err.code === 409 && attempt === 0) continue
        if (failures.get(kind) !== err.message) fastify.log.warn({ err: err.message }, `the kubernetes ${kind} could not be written`)
        failures.set(kind, err.message)
        return
      }
    }
  }
}, { name: 'controller:kubernetes-service', dependencies: ['rest', 'health'] })
