// Namespace deletion: once a namespace is terminating, delete every namespaced object in it,
// then remove this server's finalizer through /finalize so the namespace itself goes.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { FINALIZERS } from '../resources/naming.js'
import { ApiError } from '../resources/status.js'
import type { ResourceStore } from '../storage/resource-store.js'
import { CONTROLLER_WRITE, controllerCaller, controllerLoop } from './loop.js'

/** While a namespace still holds objects (some with finalizers of their own), look again this soon. */
const RETRY_MS = 1000

export default fp(async function namespaceController (fastify: FastifyInstance) {
  const caller = controllerCaller('namespace-controller')
  const namespaces = (): ResourceStore => fastify.resources.find({ group: '', resource: 'namespaces' })!

  /** Deletes what is left in the namespace; true once nothing is. */
  async function emptyNamespace (name: string): Promise<boolean> {
    let remaining = 0
    for (const store of fastify.resources.all()) {
      if (!store.resource.namespaced || !store.resource.verbs.includes('delete')) continue
      await store.freshen(undefined)
      for (const obj of store.cachedObjects(name)) {
        remaining++
        if (obj.metadata?.deletionTimestamp !== undefined) continue
        try {
          // As the reference namespace controller: Background, so dependents go through the garbage collector.
          await store.delete(name, obj.metadata.name, { dryRun: false, propagationPolicy: 'Background' }, caller)
        } catch (err) {
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err
        }
      }
    }
    return remaining === 0
  }

  /** Finalizes the namespace once it is empty; false while objects remain. */
  async function finalize (name: string): Promise<boolean> {
    if (!(await emptyNamespace(name))) return false
    try {
      await namespaces().update('', name, (old) => ({
        ...old, spec: { ...(old.spec ?? {}), finalizers: (old.spec?.finalizers ?? []).filter((f: string) => f !== FINALIZERS.namespace) }
      }), { ...CONTROLLER_WRITE, subresource: 'finalize' }, caller)
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err
    }
    return true
  }

  controllerLoop(fastify, {
    name: 'namespace',
    watch: () => [namespaces()],
    async sync () {
      const store = namespaces()
      let pending = false
      for (const ns of store.cachedObjects()) {
        if (ns.metadata?.deletionTimestamp === undefined || !(ns.spec?.finalizers ?? []).includes(FINALIZERS.namespace)) continue
        if (!(await finalize(ns.metadata.name))) pending = true
      }
      return pending ? RETRY_MS : undefined
    }
  })
}, { name: 'controller:namespace', dependencies: ['rest'] })
