// The big-lists workload, run in the load generator's process: unpaged lists of a whole large
// collection, one at a time (JSON and protobuf, each beside JSON.stringify of the same items in
// this process, the ceiling) or `concurrency` at once (the orchestrator samples the server's RSS
// meanwhile). Answers are read as they arrive and counted, never kept, so the client's own
// memory does not pace the server.
import { pool } from './http-pool.js'
import { latencySummary, type LatencySummary } from './payload.js'

export const LIST_MEDIA_TYPES = { json: 'application/json', protobuf: 'application/vnd.kubernetes.protobuf' } as const
export type ListMedia = keyof typeof LIST_MEDIA_TYPES

export interface BigListJob {
  mode: 'big-lists'
  target: { origin: string, ca?: string, cert?: string, key?: string }
  path: string
  /** `single`: one list at a time, timed, and the stringify ceiling; `concurrent`: this many at once, `rounds` times. */
  phase: 'single' | 'concurrent'
  concurrency: number
  rounds: number
  media: ListMedia[]
}

export interface BigListResult {
  /**
   * Per media type: each list's time and its answer's size; `cutOff`: concurrent lists the server
   * closed before their end (at the request deadline, --request-timeout).
   */
  lists: Partial<Record<ListMedia, { ms: LatencySummary, bytes: number, cutOff: number }>>
  /** single: JSON.stringify of the JSON answer's document, and its item count. */
  stringify?: LatencySummary
  items?: number
}

export async function bigLists (job: BigListJob): Promise<BigListResult> {
  const t = job.target
  const p = pool(t, job.concurrency)
  /** One list, read to its end; its text only when `keep`. */
  const one = async (media: ListMedia, keep: boolean): Promise<{ ms: number, bytes: number, text?: string }> => {
    const t0 = performance.now()
    const res = await p.request({ method: 'GET', path: job.path, headers: { accept: LIST_MEDIA_TYPES[media] } })
    if (res.statusCode !== 200) throw new Error(`LIST ${job.path} as ${media}: ${res.statusCode} ${(await res.body.text()).slice(0, 300)}`)
    let bytes = 0
    const parts: Buffer[] = []
    for await (const chunk of res.body) {
      bytes += (chunk as Buffer).length
      if (keep) parts.push(chunk as Buffer)
    }
    return { ms: performance.now() - t0, bytes, text: keep ? Buffer.concat(parts).toString() : undefined }
  }
  try {
    const result: BigListResult = { lists: {} }
    for (const media of job.media) {
      const ms: number[] = []
      let bytes = 0
      let cutOff = 0
      // The first single list warms up.
      if (job.phase === 'single') await one(media, false)
      for (let r = 0; r < job.rounds; r++) {
        const answers = job.phase === 'single'
          ? [await one(media, false)]
          : await Promise.all(Array.from({ length: job.concurrency }, async () => await one(media, false).catch((err: unknown) => {
            // A list still being written at its deadline is closed by the server: counted, not fatal.
            if ((err as { code?: string }).code !== 'UND_ERR_SOCKET') throw err
            cutOff++
            return undefined
          })))
        for (const a of answers) {
          if (a === undefined) continue
          ms.push(a.ms)
          bytes = a.bytes
        }
      }
      result.lists[media] = { ms: latencySummary(ms), bytes, cutOff }
    }
    if (job.phase === 'single') {
      const doc = JSON.parse((await one('json', true)).text!) as { items: unknown[] }
      result.items = doc.items.length
      const ms: number[] = []
      for (let i = 0; i < job.rounds + 1; i++) {
        const t0 = performance.now()
        const s = JSON.stringify(doc)
        if (i > 0) ms.push(performance.now() - t0)
        if (s.length === 0) throw new Error('unreachable')
      }
      result.stringify = latencySummary(ms)
    }
    return result
  } finally {
    await p.close()
  }
}
