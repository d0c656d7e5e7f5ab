// What each node may read: the objects that the pods bound to it reference, rebuilt from the
// watch caches of pods, claims, volumes and attachments after any of them changes. Kinds this
// server does not serve simply contribute nothing.
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../../resources/define.js'
import { GROUPS } from '../../resources/naming.js'
import type { ResourceStore } from '../../resources/resource-store.js'
import { podReferences } from '../../resources/pod-references.js'

type Kind = 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'persistentvolumes' | 'volumeattachments'

const SOURCES: ReadonlyArray<[string, string]> = [
  ['pods', ''], ['persistentvolumeclaims', ''], ['persistentvolumes', ''], ['volumeattachments', GROUPS.storage]
]
const CATCH_UP_TIMEOUT_MS = 3000

const key = (kind: Kind, namespace: string, name: string): string => `${kind}/${namespace}/${name}`

export class NodeGraph {
  private edges: Map<string, Set<string>> | undefined
  private watches: Array<{ stop (): void }> = []
  private stopped = false

  constructor (private readonly fastify: FastifyInstance) {}

  private stores (): ResourceStore[] {
    return SOURCES.map(([plural, group]) => this.fastify.resources.find({ group: group, resource: plural })).filter((s): s is ResourceStore => s !== undefined)
  }

  private objects (plural: string, group: string): AnyObject[] {
    const s = this.fastify.resources.find({ group: group, resource: plural })
    return s === undefined ? [] : s.cache.list(s.prefix).map(o => JSON.parse(o.json) as AnyObject)
  }

  private build (): Map<string, Set<string>> {
    const edges = new Map<string, Set<string>>()
    const allow = (node: string, k: string): void => {
      let set = edges.get(node)
      if (set === undefined) edges.set(node, set = new Set())
      set.add(k)
    }
    const claims = new Map<string, AnyObject>()
    for (const c of this.objects('persistentvolumeclaims', '')) claims.set(`${c.metadata.namespace}/${c.metadata.name}`, c)
    const volumes = new Map<string, AnyObject>()
    for (const v of this.objects('persistentvolumes', '')) volumes.set(v.metadata.name, v)
    for (const pod of this.objects('pods', '')) {
      const node = pod.spec?.nodeName
      if (typeof node !== 'string' || node === '') continue
      const ns = pod.metadata.namespace as string
      const refs = podReferences(pod)
      for (const s of refs.secrets) allow(node, key('secrets', ns, s))
      for (const c of refs.configmaps) allow(node, key('configmaps', ns, c))
      for (const claimName of refs.claims) {
        allow(node, key('persistentvolumeclaims', ns, claimName))
        const volumeName = claims.get(`${ns}/${claimName}`)?.spec?.volumeName
        if (typeof volumeName !== 'string' || volumeName === '') continue
        allow(node, key('persistentvolumes', '', volumeName))
        const pv = volumes.get(volumeName)
        if (pv === undefined) continue
        for (const [field, source] of Object.entries((pv.spec ?? {}) as AnyObject)) {
          if (typeof source !== 'object' || source === null || field === 'claimRef') continue
          for (const ref of ['secretRef', 'nodePublishSecretRef', 'nodeStageSecretRef', 'nodeExpandSecretRef', 'controllerPublishSecretRef', 'controllerExpandSecretRef']) {
            const r = (source as AnyObject)[ref]
            if (typeof r?.name === 'string') allow(node, key('secrets', r.namespace ?? ns, r.name))
          }
        }
      }
    }
    for (const va of this.objects('volumeattachments', GROUPS.storage)) {
      if (typeof va.spec?.nodeName === 'string') allow(va.spec.nodeName, key('volumeattachments', '', va.metadata.name))
    }
    return edges
  }

  related (node: string, kind: Kind, namespace: string, name: string): boolean {
    this.edges ??= this.build()
    return this.edges.get(node)?.has(key(kind, namespace, name)) ?? false
  }

  /** Waits until the source caches hold every committed write, then rebuilds. */
  async catchUp (): Promise<void> {
    const stores = this.stores()
    if (stores.length === 0) return
    // Best effort: with the database unreachable the caches' answer stands.
    const revision = await this.fastify.storage.currentRevision().catch(() => undefined)
    if (revision === undefined) return
    for (const s of stores) {
      if (s.cache.revision < revision) await s.cache.waitForRevision(revision, CATCH_UP_TIMEOUT_MS).catch(() => undefined)
    }
    this.edges = undefined
  }

  async start (): Promise<void> {
    for (const s of this.stores()) {
      await s.cache.ready
      this.subscribe(s)
    }
    this.edges = undefined
  }

  private subscribe (s: ResourceStore): void {
    if (this.stopped) return
    this.watches.push(s.cache.watch(s.prefix, s.cache.revision, () => { this.edges = undefined }, () => {
      this.edges = undefined
      if (!this.stopped) setTimeout(() => this.subscribe(s), 1000).unref()
    }))
  }

  stop (): void {
    this.stopped = true
    for (const w of this.watches) w.stop()
  }
}
