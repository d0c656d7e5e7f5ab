// Storage protection: a deleted claim keeps its protection finalizer while a running pod uses
// it, a deleted volume while a claim is bound to it; once unused the finalizer goes and with it
// the object.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { FINALIZERS } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'
import type { ResourceStore } from '../storage/resource-store.js'
import { CONTROLLER_WRITE, controllerCaller, eventLoop } from './loop.js'
const FINISHED_PHASES = ['Succeeded', 'Failed']

/** The claims a pod uses: named ones and the generated claims of its ephemeral volumes. */
export function claimsOfPod (pod: AnyObject): string[] {
  const out: string[] = []
  for (const v of pod.spec?.volumes ?? []) {
    if (v.persistentVolumeClaim?.claimName) out.push(v.persistentVolumeClaim.claimName)
    if (v.ephemeral != null) out.push(`${pod.metadata.name}-${v.name}`)
  }
  return out
}

export default fp(async function storageProtectionController (fastify: FastifyInstance) {
  const inFlight = new Set<string>()
  const caller = controllerCaller('storage-protection-controller')

  const store = (plural: string): ResourceStore => fastify.resources.find({ group: '', resource: plural })!

  function claimInUse (claim: AnyObject): boolean {
    return store('pods').cachedObjects(claim.metadata.namespace).some(pod =>
      !FINISHED_PHASES.includes(pod.status?.phase) && claimsOfPod(pod).includes(claim.metadata.name))
  }

  const volumeInUse = (volume: AnyObject): boolean =>
    store('persistentvolumeclaims').cachedObjects().some(c => c.spec?.volumeName === volume.metadata.name)

  /** Removes `finalizer` once a consistent read of the users' cache still finds the object unused. */
  async function release (s: ResourceStore, obj: AnyObject, finalizer: string, users: ResourceStore, inUse: (o: AnyObject) => boolean): Promise<void> {
    const key = s.key(obj.metadata.namespace ?? '', obj.metadata.name)
    if (inFlight.has(key)) return
    inFlight.add(key)
    try {
      // The cache may not have seen a user created just before the delete: read up to the newest revision first.
      await users.freshen(undefined)
      if (inUse(obj)) return
      await s.update(obj.metadata.namespace ?? '', obj.metadata.name, (old) => ({
        ...old, metadata: { ...old.metadata, finalizers: (old.metadata.finalizers ?? []).filter((f: string) => f !== finalizer) }
      }), { ...CONTROLLER_WRITE, subresource: '' }, caller)
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) fastify.log.warn({ err, key }, 'storage protection: removing finalizer failed; will retry')
    } finally {
      inFlight.delete(key)
    }
  }

  // Terminating objects still holding our finalizer, by key: usually none, so events cost little.
  const pendingClaims = new Map<string, AnyObject>()
  const pendingVolumes = new Map<string, AnyObject>()

  function track (pending: Map<string, AnyObject>, finalizer: string, key: string, json: string | undefined): void {
    // Most objects are not being deleted: skip parsing them.
    const obj = json === undefined || !json.includes('"deletionTimestamp"') ? undefined : JSON.parse(json) as AnyObject
    if (obj !== undefined && (obj.metadata.finalizers ?? []).includes(finalizer)) pending.set(key, obj)
    else pending.delete(key)
  }

  function releaseUnused (): void {
    if (loop.stopped()) return
    for (const c of pendingClaims.values()) if (!claimInUse(c)) void release(store('persistentvolumeclaims'), c, FINALIZERS.pvcProtection, store('pods'), claimInUse)
    for (const v of pendingVolumes.values()) if (!volumeInUse(v)) void release(store('persistentvolumes'), v, FINALIZERS.pvProtection, store('persistentvolumeclaims'), volumeInUse)
  }

  function resync (): void {
    for (const [plural, pending, finalizer] of [['persistentvolumeclaims', pendingClaims, FINALIZERS.pvcProtection], ['persistentvolumes', pendingVolumes, FINALIZERS.pvProtection]] as const) {
      const s = store(plural)
      pending.clear()
      for (const o of s.cache.list(s.prefix)) track(pending, finalizer, o.key, o.json)
    }
    releaseUnused()
  }

  const loop = eventLoop(fastify, {
    name: 'storage-protection',
    sources: () => ([
      ['pods', undefined, ''],
      ['persistentvolumeclaims', pendingClaims, FINALIZERS.pvcProtection],
      ['persistentvolumes', pendingVolumes, FINALIZERS.pvProtection]
    ] as const).map(([plural, pending, finalizer]) => ({
      store: store(plural),
      onEvent: (e) => {
        if (pending !== undefined) track(pending, finalizer, e.key, e.type === 'DELETED' ? undefined : e.json)
        // Any change of a user may free a pending object.
        if (pendingClaims.size > 0 || pendingVolumes.size > 0) releaseUnused()
      }
    })),
    resync
  })
}, { name: 'controller:storage-protection', dependencies: ['rest'] })
