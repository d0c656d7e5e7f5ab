// The garbage collector (the reference kube-controller-manager's `garbagecollector`): deletes
// objects whose owners are all gone (Background), deletes an owner's dependents before the
// owner when it carries the foregroundDeletion finalizer (Foreground), and strips an owner's
// references from its dependents when it carries the orphan finalizer (Orphan). The graph of
// owner references is kept from every kind's watch cache; what the cache suggests is confirmed
// by consistent reads before anything is deleted, as the reference collector reads the API.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ApiError } from '../resources/status.js'
import { GC_FINALIZERS, type AnyObject } from '../resources/define.js'
import type { ResourceStore } from '../storage/resource-store.js'
import type { CachedObject } from '../storage/interface.js'
import { CONTROLLER_WRITE, controllerCaller, eventLoop } from './loop.js'
import { Dependent, OwnerGraph, ownerRefsOf, type OwnerRef } from './garbage-collector-graph.js'
import { WorkQueue } from './work-queue.js'

/** A failed step is tried again this soon (a conflict, a database hiccup). */
const RETRY_MS = 500
/** Work items handled at once (the reference --concurrent-gc-syncs): each is a few reads and at most one write. */
const CONCURRENCY = 20
/** Every this many resyncs (30 s apart) the graph is rebuilt from the caches. */
const FULL_PASS_EVERY = 10
/** How long a full pass works before it lets other work run (a TLS handshake takes several turns). */
const PASS_SLICE_MS = 5

type OwnerState = 'solid' | 'waiting' | 'dangling'
/** How a reference resolves: an owner's state, or a reference that cannot be judged. */
type Resolution = OwnerState | 'invalid' | 'unknown'

interface Classified { solid: OwnerRef[], dangling: OwnerRef[], waiting: OwnerRef[] }

const finalizersOf = (obj: AnyObject | undefined): string[] => obj?.metadata?.finalizers ?? []
const foregroundDeleting = (obj: AnyObject | undefined): boolean =>
  obj?.metadata?.deletionTimestamp !== undefined && finalizersOf(obj).includes(GC_FINALIZERS.foreground)

export default fp(async function garbageCollector (fastify: FastifyInstance) {
  const caller = controllerCaller('generic-garbage-collector')
  const graph = new OwnerGraph()
  /** Objects being deleted that hold a GC finalizer, by key and by uid: usually none. */
  const terminating = new Map<string, { store: ResourceStore, uid: string }>()
  const terminatingByUid = new Map<string, string>()
  /** Each stored kind by `<group>/<kind>`, as owner references name them. */
  let kinds = new Map<string, ResourceStore>()
  /** An owner's uid and whether it waits for its dependents, per cached value (parsed once). */
  const ownerFacts = new WeakMap<CachedObject, { uid: string, waiting: boolean }>()

  /** Every stored kind (any may own); `followed` are those whose objects may be collected. */
  const stores = (): ResourceStore[] => fastify.resources.all().filter(s => s.resource.virtual === undefined)
  const followed = (): ResourceStore[] => stores().filter(s => s.resource.ignoredByGarbageCollector !== true)
  const kindsOf = (): Map<string, ResourceStore> => new Map(stores().map(s => [`${s.resource.group}/${s.resource.kind}`, s]))

  const queue = new WorkQueue(CONCURRENCY, async (item: { op: 'dependent' | 'owner', store: ResourceStore, key: string }) => {
    // A replica that no longer runs the loop (closed, or no longer leading) leaves the work to the one that does.
    if (loop.stopped()) return
    if (item.op === 'dependent') await attemptToDelete(item.store, item.key)
    else await processOwner(item.store, item.key)
  }, (err, id) => {
    if (!loop.stopped()) fastify.log.warn({ err, item: id }, 'garbage collector: will retry')
  }, RETRY_MS)

  const enqueueDependent = (d: Dependent): void => queue.add(`d:${d.key}`, { op: 'dependent', store: d.store, key: d.key })
  const enqueueOwner = (store: ResourceStore, key: string): void => queue.add(`o:${key}`, { op: 'owner', store, key })
  function wakeOwner (uid: string): void {
    const key = terminatingByUid.get(uid)
    const t = key === undefined ? undefined : terminating.get(key)
    if (key !== undefined && t !== undefined) enqueueOwner(t.store, key)
  }

  // ---- the graph, from the caches -----------------------------------------------------------

  function forgetTerminating (key: string): void {
    const t = terminating.get(key)
    if (t === undefined) return
    terminating.delete(key)
    if (terminatingByUid.get(t.uid) === key) terminatingByUid.delete(t.uid)
  }

  function observe (store: ResourceStore, key: string, json: string): void {
    // Most objects have neither owners nor a pending deletion: skip parsing them.
    if (!json.includes('"ownerReferences"') && !json.includes('"deletionTimestamp"')) {
      for (const uid of graph.remove(key)) wakeOwner(uid)
      forgetTerminating(key)
      return
    }
    const obj = JSON.parse(json) as AnyObject
    const meta = obj.metadata ?? {}
    const result = graph.set(new Dependent(store, key, meta.uid, ownerRefsOf(meta.ownerReferences)))
    for (const uid of result.owners) wakeOwner(uid)
    const d = graph.dependents.get(key)
    if (result.changed && d !== undefined) enqueueDependent(d)
    const f = finalizersOf(obj)
    if (meta.deletionTimestamp !== undefined && (f.includes(GC_FINALIZERS.orphan) || f.includes(GC_FINALIZERS.foreground))) {
      terminating.set(key, { store, uid: meta.uid })
      terminatingByUid.set(meta.uid, key)
      enqueueOwner(store, key)
    } else forgetTerminating(key)
  }

  function gone (key: string, json: string): void {
    for (const uid of graph.remove(key)) wakeOwner(uid)
    forgetTerminating(key)
    if (graph.ownerCount === 0) return
    const uid = (JSON.parse(json) as AnyObject).metadata?.uid
    if (typeof uid === 'string') for (const d of graph.dependentsOf(uid)) enqueueDependent(d)
  }

  let resyncs = 0
  /** Set whenever the loop (re)starts its watches: events before that were not seen. */
  let rebuildDue = true
  let resyncing = false
  /** The keys the full pass in progress has seen, its events' included; undefined between passes. */
  let passSeen: Set<string> | undefined
  function resync (): void {
    if (resyncing) return
    resyncing = true
    resyncAll().catch((err: unknown) => {
      rebuildDue = true
      if (!loop.stopped()) fastify.log.warn({ err }, 'garbage collector: resync failed; the next one rebuilds')
    }).finally(() => { resyncing = false })
  }

  async function resyncAll (): Promise<void> {
    // The first pass reads every object of every followed kind (100,000 ConfigMaps: about half
    // a second of CPU): it waits until the server is ready rather than hold its start back.
    if (fastify.hasDecorator('health')) await fastify.health.afterStart()
    // The watches are gapless, so once built the graph needs no rebuilding while they last; a
    // full pass now and then costs a scan of every object and guards against a watch that ended.
    let full = rebuildDue || ++resyncs % FULL_PASS_EVERY === 0
    while (full) {
      rebuildDue = false
      await rebuild()
      // The loop restarted during the pass: the events it missed meanwhile need one more.
      full = rebuildDue && !loop.stopped()
    }
    if (loop.stopped()) return
    // What the events may not have settled: an owner absent from the start, a failed step.
    for (const d of graph.dependents.values()) {
      const pre = classifyCached(d)
      if (pre !== undefined && (pre.dangling.length > 0 || pre.waiting.length > 0)) enqueueDependent(d)
    }
    for (const [key, t] of terminating) enqueueOwner(t.store, key)
  }

  /**
   * Every followed object observed again, in slices of a few milliseconds: the first pass after
   * a start (100,000 objects cost about a second of CPU on a busy machine) would otherwise hold
   * every request, /readyz's included, until it is done.
   */
  async function rebuild (): Promise<void> {
    kinds = kindsOf()
    const seen = new Set<string>()
    passSeen = seen
    try {
      let n = 0
      let sliceEnd = performance.now() + PASS_SLICE_MS
      for (const store of followed()) {
        for (const { key } of store.cache.list(store.prefix)) {
          // The list is of the pass's start; an event may have changed or deleted the key (and
          // been observed) since: what the cache holds now is what counts.
          const item = store.cache.get(key)
          if (item !== undefined) {
            observe(store, key, item.json)
            seen.add(key)
          }
          if (++n % 64 === 0 && performance.now() > sliceEnd) {
            await new Promise(resolve => setImmediate(resolve))
            sliceEnd = performance.now() + PASS_SLICE_MS
            if (loop.stopped()) {
              rebuildDue = true
              return
            }
          }
        }
      }
      for (const key of [...graph.dependents.keys()]) if (!seen.has(key)) for (const uid of graph.remove(key)) wakeOwner(uid)
      for (const key of [...terminating.keys()]) if (!seen.has(key)) forgetTerminating(key)
    } finally {
      passSeen = undefined
    }
  }

  // ---- owners -------------------------------------------------------------------------------

  /** Where a reference's owner lives: its kind's store and key, or why it cannot be looked up. */
  function locate (d: { namespace: string }, ref: OwnerRef): { store: ResourceStore, key: string } | 'invalid' | 'unknown' {
    const store = kinds.get(`${ref.group}/${ref.kind}`)
    if (store === undefined) return 'unknown'
    if (!store.resource.namespaced) return { store, key: store.key('', ref.name) }
    // A cluster-scoped object cannot be owned by a namespaced one; a namespaced owner is looked
    // up in the dependent's own namespace, so one elsewhere does not count.
    if (d.namespace === '') return 'invalid'
    return { store, key: store.key(d.namespace, ref.name) }
  }

  function stateOf (json: string | undefined, ref: OwnerRef): OwnerState {
    if (json === undefined) return 'dangling'
    const obj = JSON.parse(json) as AnyObject
    if (obj.metadata?.uid !== ref.uid) return 'dangling'
    return foregroundDeleting(obj) ? 'waiting' : 'solid'
  }

  function cachedState (store: ResourceStore, key: string, ref: OwnerRef): OwnerState {
    const item = store.cache.get(key)
    if (item === undefined) return 'dangling'
    let facts = ownerFacts.get(item)
    if (facts === undefined) {
      const obj = JSON.parse(item.json) as AnyObject
      facts = { uid: obj.metadata?.uid, waiting: foregroundDeleting(obj) }
      ownerFacts.set(item, facts)
    }
    if (facts.uid !== ref.uid) return 'dangling'
    return facts.waiting ? 'waiting' : 'solid'
  }

  function sort (d: { namespace: string }, refs: OwnerRef[], resolve: (ref: OwnerRef, at: { store: ResourceStore, key: string }) => OwnerState): Classified | undefined {
    const out: Classified = { solid: [], dangling: [], waiting: [] }
    for (const ref of refs) {
      const at = locate(d, ref)
      // An invalid or unresolvable reference leaves the object alone, as the reference collector does.
      if (at === 'invalid' || at === 'unknown') return undefined
      out[resolve(ref, at)].push(ref)
    }
    return out
  }

  const classifyCached = (d: Dependent): Classified | undefined =>
    sort(d, d.owners, (ref, at) => cachedState(at.store, at.key, ref))

  async function classifyConsistently (d: { namespace: string }, refs: OwnerRef[]): Promise<Classified | undefined> {
    const states = new Map<OwnerRef, OwnerState>()
    for (const ref of refs) {
      const at = locate(d, ref)
      if (at === 'invalid' || at === 'unknown') return undefined
      const current = await at.store.readCurrent(at.key, ref.name)
      states.set(ref, stateOf(current?.json, ref))
    }
    return sort(d, refs, ref => states.get(ref)!)
  }

  // ---- writes -------------------------------------------------------------------------------

  const ignoreGone = (err: unknown): void => { if (!(err instanceof ApiError && err.code === 404)) throw err }

  /** Changes an object's metadata, only while it is still the object with `uid`. */
  async function updateMetadata (store: ResourceStore, namespace: string, name: string, uid: string, change: (meta: AnyObject) => void): Promise<void> {
    try {
      await store.update(namespace, name, (old) => {
        const meta = { ...old.metadata }
        change(meta)
        // A different object under the same name fails the uid precondition.
        return { ...old, metadata: { ...meta, uid } }
      }, { ...CONTROLLER_WRITE, subresource: '' }, caller)
    } catch (err) {
      if (err instanceof ApiError && err.code === 409 && /UID in precondition/.test(err.message)) return
      ignoreGone(err)
    }
  }

  const removeFinalizer = async (store: ResourceStore, obj: AnyObject, finalizer: string): Promise<void> =>
    await updateMetadata(store, obj.metadata.namespace ?? '', obj.metadata.name, obj.metadata.uid, (meta) => {
      const rest = finalizersOf({ metadata: meta }).filter(f => f !== finalizer)
      if (rest.length === 0) delete meta.finalizers
      else meta.finalizers = rest
    })

  const removeOwnerRefs = async (d: { store: ResourceStore, namespace: string, name: string, uid: string }, uids: string[]): Promise<void> =>
    await updateMetadata(d.store, d.namespace, d.name, d.uid, (meta) => {
      const rest = (meta.ownerReferences ?? []).filter((r: AnyObject) => !uids.includes(r?.uid))
      if (rest.length === 0) delete meta.ownerReferences
      else meta.ownerReferences = rest
    })

  // ---- dependents ---------------------------------------------------------------------------

  /** The reference collector's attemptToDeleteItem for one object with owners. */
  async function attemptToDelete (store: ResourceStore, key: string): Promise<void> {
    const d = graph.dependents.get(key)
    if (d === undefined) return
    // Being deleted is a one-way trip; an object waiting for its own dependents is an owner's work.
    const cached = store.cache.get(key)
    if (cached === undefined || (cached.json.includes('"deletionTimestamp"') && (JSON.parse(cached.json) as AnyObject).metadata?.deletionTimestamp !== undefined)) return
    const pre = classifyCached(d)
    if (pre === undefined || (pre.dangling.length === 0 && pre.waiting.length === 0)) return
    // The cache says an owner is gone or going: confirm it against the newest revision.
    const current = await store.readCurrent(key, d.name)
    if (current === undefined) return
    const latest = JSON.parse(current.json) as AnyObject
    if (latest.metadata.uid !== d.uid || latest.metadata.deletionTimestamp !== undefined) return
    const refs = ownerRefsOf(latest.metadata.ownerReferences)
    if (refs.length === 0) return
    const c = await classifyConsistently(d, refs)
    if (c === undefined) return
    const target = { store, namespace: d.namespace, name: d.name, uid: d.uid }
    if (c.solid.length > 0) {
      if (c.dangling.length + c.waiting.length > 0) await removeOwnerRefs(target, [...c.dangling, ...c.waiting].map(r => r.uid))
      return
    }
    let policy: 'Background' | 'Foreground' | 'Orphan'
    if (c.waiting.length > 0 && graph.hasDependents(d.uid)) {
      // An owner waits for this object, which has dependents of its own: delete it in the
      // foreground too. When one of those dependents is itself waiting (a cycle of owners),
      // stop this object blocking its owners first, so that neither waits for the other.
      const cycle = graph.dependentsOf(d.uid).some(dep => {
        const json = dep.store.cache.get(dep.key)?.json
        return json !== undefined && foregroundDeleting(JSON.parse(json))
      })
      if (cycle) {
        await updateMetadata(store, d.namespace, d.name, d.uid, (meta) => {
          meta.ownerReferences = (meta.ownerReferences ?? []).map((r: AnyObject) => r?.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r)
        })
      }
      policy = 'Foreground'
    } else {
      const f = finalizersOf(latest)
      policy = f.includes(GC_FINALIZERS.orphan) ? 'Orphan' : f.includes(GC_FINALIZERS.foreground) ? 'Foreground' : 'Background'
    }
    try {
      // Only the object as judged: an owner added since then (a 409 here) means judging it again.
      await store.delete(d.namespace, d.name, { dryRun: false, propagationPolicy: policy, preconditions: { uid: d.uid, resourceVersion: latest.metadata.resourceVersion } }, caller)
    } catch (err) {
      if (err instanceof ApiError && err.code === 409) enqueueDependent(d)
      else ignoreGone(err)
    }
  }

  // ---- owners being deleted -----------------------------------------------------------------

  /** The dependents whose reference names this owner exactly (kind, name, and namespace rules). */
  function dependentsNaming (store: ResourceStore, owner: AnyObject): Array<{ d: Dependent, ref: OwnerRef }> {
    const out: Array<{ d: Dependent, ref: OwnerRef }> = []
    for (const d of graph.dependentsOf(owner.metadata.uid)) {
      for (const ref of d.owners) {
        if (ref.uid !== owner.metadata.uid) continue
        const at = locate(d, ref)
        if (typeof at === 'object' && at.store === store && at.key === store.key(owner.metadata.namespace ?? '', owner.metadata.name)) out.push({ d, ref })
      }
    }
    return out
  }

  /** Waits until every cache has applied the newest revision, so the graph holds every dependent written before. */
  async function freshenAll (): Promise<void> {
    const all = stores()
    if (all.length === 0) return
    await all[0]!.freshen(undefined)
    const rev = all[0]!.cache.revision
    for (const s of all) await s.freshen(rev)
  }

  async function processOwner (store: ResourceStore, key: string): Promise<void> {
    const item = store.cache.get(key)
    if (item === undefined) return
    const owner = JSON.parse(item.json) as AnyObject
    if (owner.metadata?.deletionTimestamp === undefined) return
    const f = finalizersOf(owner)
    if (f.includes(GC_FINALIZERS.orphan)) {
      await freshenAll()
      for (const { d } of dependentsNaming(store, owner)) await removeOwnerRefs(d, [owner.metadata.uid])
      await removeFinalizer(store, owner, GC_FINALIZERS.orphan)
      return
    }
    if (!f.includes(GC_FINALIZERS.foreground)) return
    let named = dependentsNaming(store, owner)
    if (!named.some(n => n.ref.block)) {
      await freshenAll()
      named = dependentsNaming(store, owner)
    }
    if (!named.some(n => n.ref.block)) {
      await removeFinalizer(store, owner, GC_FINALIZERS.foreground)
      return
    }
    for (const { d } of named) enqueueDependent(d)
  }

  const loop = eventLoop(fastify, {
    name: 'garbagecollector',
    sources: () => {
      rebuildDue = true
      kinds = kindsOf()
      return followed().map(store => ({
        store,
        onEvent: (e) => {
          passSeen?.add(e.key)
          if (e.type === 'DELETED') gone(e.key, e.json)
          else observe(store, e.key, e.json)
        }
      }))
    },
    resync,
    resyncMs: 30_000
  })
  fastify.addHook('onClose', async () => { queue.stop() })
}, { name: 'controller:garbagecollector', dependencies: ['rest'] })
