// How many watch streams are open on each resource, namespace and object (the reference's watch
// tracker). The REST layer's watch streams register here; API Priority and Fairness reads it to
// charge a write for the events its watchers will be sent. A module of its own so that neither
// plugin imports the other.
import type { RequestInfo } from './request-info.js'

declare module 'fastify' {
  interface FastifyInstance { watchCounts: WatchCounts }
}

type Scope = Pick<RequestInfo, 'apiGroup' | 'resource' | 'namespace' | 'name'>

const keyOf = (group: string, resource: string, namespace = '', name = ''): string => `${group}\0${resource}\0${namespace}\0${name}`

export class WatchCounts {
  private readonly counts = new Map<string, number>()

  /** Counts one open watch of `scope`; the function returned uncounts it (once). */
  register (scope: Scope): () => void {
    const key = keyOf(scope.apiGroup, scope.resource, scope.namespace, scope.name)
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
    let done = false
    return () => {
      if (done) return
      done = true
      const left = (this.counts.get(key) ?? 1) - 1
      if (left === 0) this.counts.delete(key)
      else this.counts.set(key, left)
    }
  }

  /**
   * The watches a write of `info` is sent to, as the reference counts them: those of the whole
   * resource, of its namespace, and of the one object (a watch by metadata.name).
   */
  interested (info: Scope): number {
    let n = this.counts.get(keyOf(info.apiGroup, info.resource)) ?? 0
    if (info.namespace !== '') n += this.counts.get(keyOf(info.apiGroup, info.resource, info.namespace)) ?? 0
    if (info.name !== '') n += this.counts.get(keyOf(info.apiGroup, info.resource, info.namespace, info.name)) ?? 0
    return n
  }
}
