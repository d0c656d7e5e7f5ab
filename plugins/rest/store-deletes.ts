// The delete verbs of the generic store: one object (at once, or marked terminating while
// finalizers hold it) and a collection, each through admission; and what an object leaving the
// store frees (its pool values).
import { ApiError, conflict, notFound } from '../../resources/status.js'
import type { AnyObject, Pools, Resource } from '../../resources/define.js'
import { StorageError, type Storage, type WatchCache } from '../../storage/interface.js'
import type { AdmissionChain } from '../../resources/admission.js'
import { admissionAttributes } from './admission-attributes.js'
import { finalizersForDeletion } from './deletion-finalizers.js'
import { now } from './admitted-metadata.js'
import { newerThan, StoreReads } from './store-reads.js'
import type { ListOptions } from './options.js'
import type { Caller, DeleteOptions, ResourceStores } from '../../storage/resource-store.js'

/** A delete re-reads and retries a conflict this many times before answering it. */
const MAX_PRECONDITION_ATTEMPTS = 8

const NO_POOLS: Pools = { get: () => undefined, names: () => [] }

export class StoreDeletes extends StoreReads {
  constructor (
    resource: Resource,
    storage: Storage,
    cache: WatchCache,
    protected readonly admission: AdmissionChain,
    registry: ResourceStores,
    protected readonly pools: Pools = NO_POOLS
  ) {
    super(resource, storage, cache, registry)
  }

  /** After an object left the store: its pool values are free again (a failure leaves them to the repair pass). */
  protected async releaseHeld (obj: AnyObject): Promise<void> {
    const held = this.resource.strategy.heldValues?.(obj) ?? []
    const owner = this.key(obj.metadata?.namespace ?? '', obj.metadata?.name ?? '')
    await Promise.all(held.map(async h => { await this.pools.get(h.pool)?.release(h.value, owner).catch(() => {}) }))
  }

  pendingFinalizers (obj: AnyObject): string[] {
    return [...(obj.metadata?.finalizers ?? []), ...(this.resource.strategy.pendingFinalizers?.(obj) ?? [])]
  }

  /**
   * Deletes one object: at once when nothing holds it, else marks it terminating. Returns the
   * object as last stored and whether it is gone.
   */
  async delete (namespace: string, name: string, opts: DeleteOptions, caller: Caller): Promise<{ json: string, object: AnyObject, deleted: boolean }> {
    const key = this.key(namespace, name)
    // As in update: from the cache first, consistently after that.
    let recent = true
    let atLeast: number | undefined
    for (let attempt = 1; ; attempt++) {
      const current = recent ? await this.readRecent(key, name) : await this.readCurrent(key, name, atLeast)
      if (current === undefined) throw notFound(this.gr, name)
      const old = JSON.parse(current.json) as AnyObject
      const pre = opts.preconditions
      if (recent && newerThan(pre?.resourceVersion, current.revision)) {
        recent = false
        continue
      }
      if (pre?.uid !== undefined && pre.uid !== null && pre.uid !== old.metadata.uid) {
        throw conflict(this.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(old.metadata.uid)}`)
      }
      if (pre?.resourceVersion !== undefined && pre.resourceVersion !== null && pre.resourceVersion !== old.metadata.resourceVersion) {
        throw conflict(this.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(old.metadata.resourceVersion)}`)
      }
      const attrs = admissionAttributes(this.resource, this.registry, { operation: 'DELETE', namespace, name, subresource: '', caller, dryRun: opts.dryRun, oldObject: old })
      await this.admission.mutate(attrs)
      await this.admission.validate(attrs)
      // The propagation policy becomes a finalizer the garbage collector acts on.
      const finalizers = finalizersForDeletion(this.resource, old, opts)
      const next = finalizers === undefined ? old : withFinalizers(old, finalizers)
      const held = this.pendingFinalizers(next).length > 0
      const terminating = old.metadata.deletionTimestamp !== undefined
      if (held && terminating && finalizers === undefined) return { json: current.json, object: old, deleted: false }
      try {
        if (held) {
          const marked = structuredClone(next)
          if (!terminating) {
            marked.metadata.deletionTimestamp = now()
            marked.metadata.deletionGracePeriodSeconds = 0
            this.resource.strategy.prepareForDelete?.(marked)
          }
          if (opts.dryRun) return { json: JSON.stringify(marked), object: marked, deleted: false }
          const stored = await this.write({ type: 'update', key, value: marked as any, expectRevision: current.revision })
          return { json: stored.json, object: JSON.parse(stored.json), deleted: false }
        }
        if (opts.dryRun) return { json: current.json, object: old, deleted: true }
        const stored = await this.write({ type: 'delete', key, value: old as any, expectRevision: current.revision })
        await this.releaseHeld(old)
        return { json: stored.json, object: old, deleted: true }
      } catch (err) {
        if (err instanceof StorageError && (err.code === 'Conflict' || err.code === 'NotFound') && attempt < MAX_PRECONDITION_ATTEMPTS) {
          if (err.code === 'NotFound') throw notFound(this.gr, name)
          recent = false
          atLeast = err.revision
          continue
        }
        throw this.translateError(err, name)
      }
    }
  }

  /** Deletes every object a list selects, one by one (each with its own admission and finalizers). */
  async deleteCollection (namespace: string, list: ListOptions, opts: DeleteOptions, caller: Caller): Promise<number> {
    const page = await this.list(namespace, { ...list, limit: undefined, continue: undefined })
    let count = 0
    for (const item of page.items) {
      const obj = JSON.parse(item.json) as AnyObject
      try {
        await this.delete(obj.metadata.namespace ?? '', obj.metadata.name, { ...opts, preconditions: undefined }, caller)
        count++
      } catch (err) {
        if (err instanceof ApiError && err.code === 404) continue
        throw err
      }
    }
    return count
  }
}

function withFinalizers (obj: AnyObject, finalizers: string[]): AnyObject {
  const { finalizers: _f, ...meta } = obj.metadata
  return { ...obj, metadata: finalizers.length === 0 ? meta : { ...meta, finalizers } }
}
