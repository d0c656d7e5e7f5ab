// The paged workload, run in the load generator's process: a paged walk of every ConfigMap,
// the unpaged list, namespace lists and a label selector matching 1%, each beside
// JSON.stringify of the same items in this process (the ceiling, measured in the same run); the
// namespace list also in protobuf and as kubectl's Table, beside the JSON one.
import { processCpuMs, processWaitMs } from './cpu.js'
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
  /** The server's process, whose CPU and run-queue wait are read around each walk and unpaged list. */
  serverPid?: number
}

export interface PagedResult {
  objects: number
  /** Whole timed walks (the items not parsed): each one's time, and every page's. */
  walk: LatencySummary
  pages: LatencySummary
  pagesPerWalk: number
  unpaged: LatencySummary
  /**
   * Medians, in ms, for a timed walk and for an unpaged list: the load generator's CPU (neither
   * parses the items), the server's CPU, and the time each spent runnable but waiting for a core.
   */
  costs: { walk: Costs, unpaged: Costs }
  unpagedBytes: number
  namespace: LatencySummary
  /** The namespace's list in protobuf, timed to its last byte. */
  namespaceProtobuf: LatencySummary
  /** The namespace's list as a Table (kubectl get's form), timed to its last byte. */
  namespaceTable: LatencySummary
  namespaceItems: number
  selector: LatencySummary
  selectorItems: number
  /** The server's CPU per namespace list and per selector list, in ms (the timed answers'). */
  serverCpuPerList: { namespace: number, namespaceProtobuf: number, namespaceTable: number, selector: number }
  stringify: { all: LatencySummary, namespace: LatencySummary, selector: LatencySummary }
}

const cpuMs = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }

export interface Costs { clientCpu: number, serverCpu: number, clientWait: number, serverWait: number }

/** The counters Costs are differences of, as they stand now. */
function costsNow (serverPid: number | undefined): Costs {
  return {
    clientCpu: cpuMs(),
    serverCpu: serverPid === undefined ? 0 : processCpuMs(serverPid),
    clientWait: processWaitMs('self'),
    serverWait: serverPid === undefined ? 0 : processWaitMs(serverPid)
  }
}

function costsSince (before: Costs, serverPid: number | undefined): Costs {
  const now = costsNow(serverPid)
  return { clientCpu: now.clientCpu - before.clientCpu, serverCpu: now.serverCpu - before.serverCpu, clientWait: now.clientWait - before.clientWait, serverWait: now.serverWait - before.serverWait }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const medianCosts = (cs: Costs[]): Costs => ({
  clientCpu: median(cs.map(c => c.clientCpu)),
  serverCpu: median(cs.map(c => c.serverCpu)),
  clientWait: median(cs.map(c => c.clientWait)),
  serverWait: median(cs.map(c => c.serverWait))
})

interface ListDoc { items: unknown[], metadata: { continue?: string, resourceVersion: string } }

/** A list's metadata alone, from the text before its items (the server writes them last); `items` left empty. */
function listMetadataOf (body: string): ListDoc {
  const at = body.indexOf(',"items":[')
  if (at < 0) throw new Error(`a list answer without items: ${body.slice(0, 300)}`)
  return { ...(JSON.parse(body.slice(0, at) + '}') as { metadata: ListDoc['metadata'] }), items: [] }
}

export async function pagedLists (job: PagedJob): Promise<PagedResult> {
  const t = job.target
  const p = pool(t, 1)
  const time = async (path: string, accept?: string): Promise<{ ms: number, body: string }> => await timedGet(p, path, accept)
  /** `n` timed answers after `warmup` untimed ones, and the last document. */
  const repeat = async (path: string, n: number, warmup: number, accept?: string): Promise<{ ms: number[], last: string }> => {
    const ms: number[] = []
    let last = ''
    for (let i = 0; i < warmup + n; i++) {
      const a = await time(path, accept)
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
    const unpagedMs: number[] = []
    const costs = { walk: [] as Costs[], unpaged: [] as Costs[] }
    let objects = 0
    let pagesPerWalk = 0
    let all: ListDoc | undefined
    let unpagedBytes = 0
    // Walks and unpaged lists alternate (the first of each warms up), so that both meet the
    // same load on a shared machine.
    for (let w = 0; w < Math.max(job.walks, job.unpagedIterations) + 1; w++) {
      if (w <= job.walks) {
        // The first walk warms up and parses every page (its items are counted against the
        // unpaged list's). A timed walk reads each page's body in full, as the unpaged list is
        // read, and parses only the list's metadata, which comes before the items: what a
        // client needs to ask for the next page. Parsing the items too would add the client's
        // parse of every object to the walk and not to the unpaged list.
        const checked = w === 0
        const c0 = costsNow(job.serverPid)
        const t0 = performance.now()
        let token: string | undefined
        let n = 0
        let count = 0
        let revision: string | undefined
        do {
          const a = await time(`${job.allPath}?limit=${job.pageLimit}${token === undefined ? '' : `&continue=${encodeURIComponent(token)}`}`)
          const doc = checked ? JSON.parse(a.body) as ListDoc : listMetadataOf(a.body)
          revision ??= doc.metadata.resourceVersion
          if (doc.metadata.resourceVersion !== revision) throw new Error(`page ${n} at ${doc.metadata.resourceVersion}, the walk at ${revision}`)
          if (!checked) pages.push(a.ms)
          count += doc.items.length
          token = doc.metadata.continue
          n++
        } while (token !== undefined)
        if (checked) {
          objects = count
          pagesPerWalk = n
        } else {
          walks.push(performance.now() - t0)
          costs.walk.push(costsSince(c0, job.serverPid))
          if (n !== pagesPerWalk) throw new Error(`a walk of ${n} pages, the first of ${pagesPerWalk}`)
        }
      }
      if (w <= job.unpagedIterations) {
        const c0 = costsNow(job.serverPid)
        const a = await time(job.allPath)
        if (w > 0) {
          unpagedMs.push(a.ms)
          costs.unpaged.push(costsSince(c0, job.serverPid))
        }
        if (w === job.unpagedIterations) {
          all = JSON.parse(a.body) as ListDoc
          unpagedBytes = Buffer.byteLength(a.body)
        }
      }
    }
    if (all!.items.length !== objects) throw new Error(`the unpaged list has ${all!.items.length} items, the walk ${objects}`)
    const allStringify = stringify(all, job.unpagedIterations, 1)
    all = undefined
    const serverCpuPer = async (path: string, accept?: string): Promise<{ ms: number[], last: string, cpu: number }> => {
      // The warm-ups outside the CPU count: the first selector list builds the label index.
      await repeat(path, 0, job.warmup, accept)
      const c0 = costsNow(job.serverPid)
      const got = await repeat(path, job.iterations, 0, accept)
      return { ...got, cpu: costsSince(c0, job.serverPid).serverCpu / job.iterations }
    }
    const ns = await serverCpuPer(job.namespacePath)
    const nsDoc = JSON.parse(ns.last) as ListDoc
    // The same list in protobuf (client-go's form for built-in kinds), right after the JSON one.
    const nsProtobuf = await serverCpuPer(job.namespacePath, 'application/vnd.kubernetes.protobuf')
    const nsTable = await serverCpuPer(job.namespacePath, 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json')
    const sel = await serverCpuPer(`${job.allPath}?labelSelector=${encodeURIComponent(job.selector)}`)
    const selDoc = JSON.parse(sel.last) as ListDoc
    return {
      objects,
      walk: latencySummary(walks),
      pages: latencySummary(pages),
      pagesPerWalk,
      unpaged: latencySummary(unpagedMs),
      costs: { walk: medianCosts(costs.walk), unpaged: medianCosts(costs.unpaged) },
      unpagedBytes,
      namespace: latencySummary(ns.ms),
      namespaceProtobuf: latencySummary(nsProtobuf.ms),
      namespaceTable: latencySummary(nsTable.ms),
      namespaceItems: nsDoc.items.length,
      selector: latencySummary(sel.ms),
      selectorItems: selDoc.items.length,
      serverCpuPerList: { namespace: ns.cpu, namespaceProtobuf: nsProtobuf.cpu, namespaceTable: nsTable.cpu, selector: sel.cpu },
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
