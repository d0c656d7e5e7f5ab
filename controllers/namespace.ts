// Namespace deletion: once a namespace is terminating, delete every namespaced object in it,
// then remove this server's finalizer through /finalize so the namespace itself goes.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { CONTROLLER_USER, FINALIZERS } from '../resources/naming.js'
import { ApiError } from '../plugins/errors.js'
import type { AnyObject } from '../resources/define.js'
import type { Caller, GenericStore } from '../plugins/rest/store.js'

const RESYNC_MS = 2000

export default fp(async function namespaceController (fastify: FastifyInstance) {
  let timer: NodeJS.Timeout | undefined
  let stopped = false
  let watch: { stop(): void } | undefined
  const inFlight = new Set<string>()
  const caller = (): Caller => ({ user: { ...CONTROLLER_USER, groups: [...CONTROLLER_USER.groups] }, manager: 'namespace-controller', warnings: [] })
  const options = { dryRun: false, fieldValidation: 'Ignore' as const, force: false }

  const namespaces = (): GenericStore => fastify.resources.find('namespaces', '')!

  /** Deletes what is left in the namespace; true once nothing is. */
  async function emptyNamespace (name: string): Promise<boolean> {
    let remaining = 0
    for (const store of fastify.resources.all()) {
      if (!store.resource.namespaced || !store.resource.verbs.includes('delete')) continue
      await store.freshen(undefined)
      for (const item of store.cache.list(store.listPrefix(name))) {
        remaining++
        const obj = JSON.parse(item.json) as AnyObject
        if (obj.metadata?.deletionTimestamp !== undefined) continue
        try {
          await store.delete(name, obj.metadata.name, { dryRun: false }, caller())
        } catch (err) {
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err
        }
      }
    }
    return remaining === 0
  }

  async function finalize (name: string): Promise<void> {
    if (inFlight.has(name)) return
    inFlight.add(name)
    try {
      if (!(await emptyNamespace(name))) return
      await namespaces().update('', name, (old) => ({
        ...old, spec: { ...(old.spec ?? {}), finalizers: (old.spec?.finalizers ?? []).filter((f: string) => f !== FINALIZERS.namespace) }
      }), { ...options, subresource: 'finalize' }, caller())
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) fastify.log.warn({ err, namespace: name }, 'namespace cleanup failed; will retry')
    } finally {
      inFlight.delete(name)
    }
  }

  function sweep (): void {
    const store = namespaces()
    for (const item of store.cache.list(store.prefix)) {
      const ns = JSON.parse(item.json) as AnyObject
      if (ns.metadata?.deletionTimestamp !== undefined && (ns.spec?.finalizers ?? []).includes(FINALIZERS.namespace)) void finalize(ns.metadata.name)
    }
  }

  fastify.addHook('onReady', async () => {
    const store = namespaces()
    await store.cache.ready
    watch = store.cache.watch(store.prefix, store.cache.revision, (e) => {
      if (e.type !== 'DELETED' && !stopped) sweep()
    }, (err) => fastify.log.warn({ err }, 'namespace controller watch ended'))
    const tick = (): void => {
      if (stopped) return
      sweep()
      timer = setTimeout(tick, RESYNC_MS)
    }
    timer = setTimeout(tick, 0)
  })
  fastify.addHook('onClose', async () => {
    stopped = true
    watch?.stop()
    if (timer !== undefined) clearTimeout(timer)
  })
}, { name: 'controller:namespace', dependencies: ['rest'] })
