// Storage protection: a deleted claim keeps its protection finalizer while a running pod uses
// it, a deleted volume while a claim is bound to it; once unused the finalizer goes and with it
// the object.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { CONTROLLER_USER, FINALIZERS } from '../resources/naming.js'
import { ApiError } from '../plugins/errors.js'
import type { AnyObject } from '../resources/define.js'
import type { Caller, GenericStore } from '../plugins/rest/store.js'

const RESYNC_MS = 2000
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
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  const watches: Array<{ stop(): void }> = []
  const inFlight = new Set<string>()
  const caller = (): Caller => ({ user: { ...CONTROLLER_USER, groups: [...CONTROLLER_USER.groups] }, manager: 'storage-protection-controller', warnings: [] })
  const options = { dryRun: false, fieldValidation: 'Ignore' as const, force: false, subresource: '' }

  const store = (plural: string): GenericStore => fastify.resources.find(plural, '')!
  const objects = (s: GenericStore, namespace = ''): AnyObject[] => s.cache.list(s.listPrefix(namespace)).map(o => JSON.parse(o.json))

  function claimInUse (claim: AnyObject): boolean {
    return objects(store('pods'), claim.metadata.namespace).some(pod =>
      !FINISHED_PHASES.includes(pod.status?.phase) && claimsOfPod(pod).includes(claim.metadata.name))
  }

  const volumeInUse = (volume: AnyObject): boolean =>
    objects(store('persistentvolumeclaims')).some(c => c.spec?.volumeName === volume.metadata.name)

  /** Removes `finalizer` once a consistent read of the users' cache still finds the object unused. */
  async function release (s: GenericStore, obj: AnyObject, finalizer: string, users: GenericStore, inUse: (o: AnyObject) => boolean): Promise<void> {
    const key = s.key(obj.metadata.namespace ?? '', obj.metadata.name)
    if (inFlight.has(key)) return
    inFlight.add(key)
    try {
      // The cache may not have seen a user created just before the delete: read up to the newest revision first.
      await users.freshen(undefined)
      if (inUse(obj)) return
      await s.update(obj.metadata.namespace ?? '', obj.metadata.name, (old) => ({
        ...old, metadata: { ...old.metadata, finalizers: (old.metadata.finalizers ?? []).filter((f: string) => f !== finalizer) }
      }), options, caller())
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) fastify.log.warn({ err, key }, 'storage protection: removing finalizer failed; will retry')
    } finally {
      inFlight.delete(key)
    }
  }

  function sweep (): void {
    if (stopped) return
    const claims = store('persistentvolumeclaims')
    for (const c of objects(claims)) {
      if (c.metadata.deletionTimestamp !== undefined && (c.metadata.finalizers ?? []).includes(FINALIZERS.pvcProtection) && !claimInUse(c)) {
        void release(claims, c, FINALIZERS.pvcProtection, store('pods'), claimInUse)
      }
    }
    const volumes = store('persistentvolumes')
    for (const v of objects(volumes)) {
      if (v.metadata.deletionTimestamp !== undefined && (v.metadata.finalizers ?? []).includes(FINALIZERS.pvProtection) && !volumeInUse(v)) {
        void release(volumes, v, FINALIZERS.pvProtection, claims, volumeInUse)
      }
    }
  }

  fastify.addHook('onReady', async () => {
    for (const plural of ['pods', 'persistentvolumeclaims', 'persistentvolumes']) {
      const s = store(plural)
      await s.cache.ready
      watches.push(s.cache.watch(s.prefix, s.cache.revision, () => { sweep() },
        (err) => fastify.log.warn({ err }, 'storage protection watch ended')))
    }
    const tick = (): void => {
      if (stopped) return
      sweep()
      timer = setTimeout(tick, RESYNC_MS)
    }
    timer = setTimeout(tick, 0)
  })
  fastify.addHook('onClose', async () => {
    stopped = true
    for (const w of watches) w.stop()
    if (timer !== undefined) clearTimeout(timer)
  })
}, { name: 'controller:storage-protection', dependencies: ['rest'] })
