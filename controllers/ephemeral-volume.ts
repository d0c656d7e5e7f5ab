// Ephemeral volumes: every pod volume with a claim template gets its claim `<pod>-<volume>`,
// owned by the pod (so it goes when the pod goes).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'
import type { ResourceStore } from '../storage/resource-store.js'
import { CONTROLLER_WRITE, controllerCaller, eventLoop } from './loop.js'

/** The claim an ephemeral volume of a pod stands for. */
export function claimForVolume (pod: AnyObject, volume: AnyObject): AnyObject {
  const template = volume.ephemeral.volumeClaimTemplate ?? {}
  const metadata: AnyObject = {
    name: `${pod.metadata.name}-${volume.name}`,
    ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, uid: pod.metadata.uid, controller: true, blockOwnerDeletion: true }]
  }
  if (template.metadata?.labels !== undefined) metadata.labels = template.metadata.labels
  if (template.metadata?.annotations !== undefined) metadata.annotations = template.metadata.annotations
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata, spec: structuredClone(template.spec ?? {}) }
}

export default fp(async function ephemeralVolumeController (fastify: FastifyInstance) {
  const inFlight = new Set<string>()
  const caller = controllerCaller('ephemeral-volume-controller')

  const pods = (): ResourceStore => fastify.resources.find({ group: '', resource: 'pods' })!
  const claims = (): ResourceStore => fastify.resources.find({ group: '', resource: 'persistentvolumeclaims' })!

  async function ensureClaim (pod: AnyObject, volume: AnyObject): Promise<void> {
    const claim = claimForVolume(pod, volume)
    const namespace: string = pod.metadata.namespace
    const key = claims().key(namespace, claim.metadata.name)
    if (inFlight.has(key) || claims().cache.get(key) !== undefined) return
    inFlight.add(key)
    try {
      await claims().create(namespace, claim, CONTROLLER_WRITE, caller)
    } catch (err) {
      // 409: it exists (ours, or someone else's, which the pod then cannot use); 4xx: the template is refused.
      if (!(err instanceof ApiError && err.code < 500)) fastify.log.warn({ err, key }, 'ephemeral volume: creating claim failed; will retry')
    } finally {
      inFlight.delete(key)
    }
  }

  function reconcile (json: string): void {
    // Most pods have no ephemeral volume: skip parsing them.
    if (loop.stopped() || !json.includes('"ephemeral"')) return
    const pod = JSON.parse(json) as AnyObject
    if (pod.metadata.deletionTimestamp !== undefined) return
    for (const v of pod.spec?.volumes ?? []) if (v.ephemeral != null) void ensureClaim(pod, v)
  }

  const loop = eventLoop(fastify, {
    name: 'ephemeral-volume',
    sources: () => [{ store: pods(), onEvent: (e) => { if (e.type !== 'DELETED') reconcile(e.json) } }],
    resync () {
      const store = pods()
      for (const item of store.cache.list(store.prefix)) reconcile(item.json)
    }
  })
}, { name: 'controller:ephemeral-volume', dependencies: ['rest'] })
