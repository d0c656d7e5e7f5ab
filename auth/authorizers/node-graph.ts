// What each node may read: the objects that the pods bound to it reference, rebuilt from the
// watch caches of pods, claims, volumes and attachments after any of them changes. Kinds this
// server does not serve simply contribute nothing.
import type { FastifyInstance } from 'fastify'
import type { AnyObject } from '../../resources/define.js'
import { GROUPS } from '../../resources/naming.js'
import type { GroupResource, ResourceStore } from '../../storage/resource-store.js'
import { podReferences } from '../../resources/pod-references.js'
import { CacheIndex } from '../../storage/cache-index.js'

type Kind = 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'persistentvolumes' | 'volumeattachments'

const PODS: GroupResource = { group: '', resource: 'pods' }
const CLAIMS: GroupResource = { group: '', resource: 'persistentvolumeclaims' }
const VOLUMES: GroupResource = { group: '', resource: 'persistentvolumes' }
const ATTACHMENTS: GroupResource = { group: GROUPS.storage, resource: 'volumeattachments' }
const SOURCES = [PODS, CLAIMS, VOLUMES, ATTACHMENTS]

const key = (kind: Kind, namespace: string, name: string): string => `${kind}/${namespace}/${name}`

export class NodeGraph {
  private readonly edges: CacheIndex<Map<string, Set<string>>>

  constructor (private readonly fastify: FastifyInstance) {
    this.edges = new CacheIndex({
      sources: () => SOURCES.map(gr => this.fastify.resources.find(gr)).filter((s): s is ResourceStore => s !== undefined),
      build: () => this.build(),
      currentRevision: async () => await this.fastify.storage.currentRevision()
    })
  }

  private objects (gr: GroupResource): AnyObject[] {
    return this.fastify.resources.find(gr)?.cachedObjects() ?? []
  }

  private build (): Map<string, Set<string>> {
    const edges = new Map<string, Set<string>>()
    const allow = (node: string, k: string): void => {
      let set = edges.get(node)
      if (set === undefined) edges.set(node, set = new Set())
      set.add(k)
    }
    const claims = new Map<string, AnyObject>()
    for (const c of this.objects(CLAIMS)) claims.set(`${c.metadata.namespace}/${c.metadata.name}`, c)
    const volumes = new Map<string, AnyObject>()
    for (const v of this.objects(VOLUMES)) volumes.set(v.metadata.name, v)
    for (const pod of this.objects(PODS)) {
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
    for (const va of this.objects(ATTACHMENTS)) {
      if (typeof va.spec?.nodeName === 'string') allow(va.spec.nodeName, key('volumeattachments', '', va.metadata.name))
    }
    return edges
  }

  related (node: string, kind: Kind, namespace: string, name: string): boolean {
    return this.edges.current().get(node)?.has(key(kind, namespace, name)) ?? false
  }

  /** Waits until the source caches hold every committed write, then rebuilds. */
  async catchUp (): Promise<void> { await this.edges.catchUp() }

  async start (): Promise<void> { await this.edges.start() }

  stop (): void { this.edges.stop() }
}
