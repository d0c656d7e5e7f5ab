// The paged workload, run in the load generator's process: a paged walk of every ConfigMap,
// the unpaged list, namespace lists and a label selector matching 1%, each beside
// JSON.stringify of the same items in this process (the ceiling, measured in the same run).
import { pool, timedGet } from './http-pool.js'
import { latencySummary, type LatencySummary } from './payload.js'

export interface PagedJob {
  mode: 'paged'
  target: { origin: string, ca?: string, cert?: string, key?: string }
  /** The cluster-wide list, a namespace's, and the selector's query. */
  allPath: string
  namespacePath: string
  selector: string
  pageLimit: number
  walks: number
  unpagedIterations: number
  iterations: number
  warmup: number
}

export interface PagedResult {
  objects: number
  /** Whole walks: each one's time, and every page's. */
  walk: LatencySummary
  pages: LatencySummary
  pagesPerWalk: number
  unpaged: LatencySummary
  unpagedBytes: number
  namespace: LatencySummary
  namespaceItems: number
  selector: LatencySummary
  selectorItems: number
  stringify: { all: LatencySummary, namespace: LatencySummary, selector: LatencySummary }
}

interface ListDoc { items: unknown[], metadata: { continue?: string, resourceVersion: string } }

export async function pagedLists (job: PagedJob): Promise<PagedResult> {
  const t = job.target
  const p = pool(t, 1)
  const time = async (path: string): Promise<{ ms: number, body: string }> => await timedGet(p, path)
  /** `n` timed answers after `warmup` untimed ones, and the last document. */
  const repeat = async (path: string, n: number, warmup: number): Promise<{ ms: number[], last: string }> => {
    const ms: number[] = []
    let last = ''
    for (let i = 0; i < warmup + n; i++) {
      const a = await time(path)
      if (i >= warmup) ms.push(a.ms)
      last = a.body
    }
    return { ms, last }
  }
  const stringify = (doc: unknown, n: number, warmup: number): number[] => {
    const ms: number[] = []
    for (let i = 0; i < warmup + n; i++) {
      const t0 = performance.now()
      const s = JSON.stringify(doc)
      if (i >= warmup) ms.push(performance.now() - t0)
      if (s.length === 0) throw new Error('unreachable')
    }
    return ms
  }

  try {
    const walks: number[] = []
    const pages: number[] = []
    let objects = 0
    let pagesPerWalk = 0
    for (let w = 0; w < job.walks + 1; w++) {
      const t0 = performance.now()
      let token: string | undefined
      let n = 0
      let count = 0
      let revision: string | undefined
      do {
        const a = await time(`${job.allPath}?limit=${job.pageLimit}${token === undefined ? '' : `&continue=${encodeURIComponent(token)}`}`)
        const doc = JSON.parse(a.body) as ListDoc
        revision ??= doc.metadata.resourceVersion
        if (doc.metadata.resourceVersion !== revision) throw new Error(`page ${n} at ${doc.metadata.resourceVersion}, the walk at ${revision}`)
        if (w > 0) pages.push(a.ms)
        count += doc.items.length
        token = doc.metadata.continue
        n++
      } while (token !== undefined)
      // The first walk warms up.
      if (w > 0) walks.push(performance.now() - t0)
      objects = count
      pagesPerWalk = n
    }
    const unpaged = await repeat(job.allPath, job.unpagedIterations, 1)
    const all = JSON.parse(unpaged.last) as ListDoc
    if (all.items.length !== objects) throw new Error(`the unpaged list has ${all.items.length} items, the walk ${objects}`)
    const allStringify = stringify(all, job.unpagedIterations, 1)
    const unpagedBytes = Buffer.byteLength(unpaged.last)
    unpaged.last = ''
    const ns = await repeat(job.namespacePath, job.iterations, job.warmup)
    const nsDoc = JSON.parse(ns.last) as ListDoc
    const sel = await repeat(`${job.allPath}?labelSelector=${encodeURIComponent(job.selector)}`, job.iterations, job.warmup)
    const selDoc = JSON.parse(sel.last) as ListDoc
    return {
      objects,
      walk: latencySummary(walks),
      pages: latencySummary(pages),
      pagesPerWalk,
      unpaged: latencySummary(unpaged.ms),
      unpagedBytes,
      namespace: latencySummary(ns.ms),
      namespaceItems: nsDoc.items.length,
      selector: latencySummary(sel.ms),
      selectorItems: selDoc.items.length,
      stringify: {
        all: latencySummary(allStringify),
        namespace: latencySummary(stringify(nsDoc, job.iterations, job.warmup)),
        selector: latencySummary(stringify(selDoc, job.iterations, job.warmup))
      }
    }
  } finally {
    await p.close()
  }
}
