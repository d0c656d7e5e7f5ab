// The clients of the fault harness: writers that record each write's outcome, and on every server
// a watcher that lists page by page, watches from the list's revision, resumes from the last
// revision it saw when a stream breaks, and lists again on 410.
import { randomBytes } from 'node:crypto'
import { request, type Agent } from 'undici'
import { digest } from './checker.js'
import type { ListRecord, WatchEventRecord, WatchSegment, WriteRecord } from './history.js'

export const NAMESPACE = 'faults'
const COLLECTION = `/api/v1/namespaces/${NAMESPACE}/configmaps`
const PAGE = 40
const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** Where the clients find the servers; `url(i)` follows a server that was restarted. */
export interface Target { agent: Agent, count: number, url (index: number): string }

interface Answer { status: number, body: any }

async function call (t: Target, server: number, method: string, path: string, body?: unknown, contentType = 'application/json', signal?: AbortSignal): Promise<Answer> {
  const res = await request(t.url(server) + path, {
    method: method as 'GET',
    dispatcher: t.agent,
    headers: body === undefined ? {} : { 'content-type': contentType },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal
  })
  const text = await res.body.text()
  let parsed: unknown = text
  try { parsed = JSON.parse(text) } catch {}
  return { status: res.statusCode, body: parsed }
}

export class Workload {
  readonly writes: WriteRecord[] = []
  readonly watches: WatchSegment[] = []
  readonly lists: ListRecord[] = []
  /** Per watcher, the newest revision it has seen (from an event or a list). */
  readonly reached = new Map<string, number>()
  private stopping = false
  private readonly abort = new AbortController()
  private readonly writers: Array<Promise<void>> = []
  private readonly watchers: Array<Promise<void>> = []

  constructor (private readonly t: Target) {}

  /** Creates the namespace (retrying while the servers settle), then starts the clients. */
  async start (opts: { writersPerServer: number }): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const res = await call(this.t, 0, 'POST', '/api/v1/namespaces', { metadata: { name: NAMESPACE } }).catch(() => undefined)
      if (res !== undefined && (res.status === 201 || res.status === 409)) break
      if (attempt > 100) throw new Error(`namespace ${NAMESPACE} not created: ${JSON.stringify(res?.body)}`)
      await sleep(200)
    }
    for (let s = 0; s < this.t.count; s++) {
      this.watchers.push(this.watcher(`watcher-${s}`, s))
      for (let w = 0; w < opts.writersPerServer; w++) this.writers.push(this.writer(`w${s}-${w}`, s))
    }
  }

  /** Stops the writers once their writes in flight are answered. */
  async stopWriters (): Promise<void> {
    this.stopping = true
    await Promise.all(this.writers)
  }

  /** Lets every watcher reach `head` (or the deadline pass), then stops them. */
  async drain (head: () => Promise<number>, deadlineMs: number): Promise<void> {
    const until = Date.now() + deadlineMs
    for (;;) {
      const h = await head()
      if ([...this.reached.values()].every(r => r >= h) && this.reached.size === this.t.count) break
      if (Date.now() > until) break
      await sleep(200)
    }
    this.abort.abort()
    await Promise.all(this.watchers)
  }

  private async writer (name: string, server: number): Promise<void> {
    const acked: string[] = []
    for (let seq = 0; !this.stopping; seq++) {
      const id = `${name}-${seq}`
      const body = randomBytes(16 + Math.floor(Math.random() * 512)).toString('hex')
      const sum = digest(body)
      const data = { id, body, sum }
      const patch = acked.length > 0 && Math.random() < 0.5
      const objectName = patch ? acked[Math.floor(Math.random() * acked.length)]! : `${name}-${seq}`
      const record: WriteRecord = { id, name: objectName, op: patch ? 'patch' : 'create', sum, outcome: 'uncertain', server }
      this.writes.push(record)
      try {
        const res = patch
          ? await call(this.t, server, 'PATCH', `${COLLECTION}/${objectName}`, { data }, 'application/merge-patch+json')
          : await call(this.t, server, 'POST', COLLECTION, { metadata: { name: objectName }, data })
        if (res.status === 200 || res.status === 201) {
          record.outcome = 'acked'
          record.revision = Number(res.body.metadata.resourceVersion)
          if (!patch) acked.push(objectName)
        } else if (res.status >= 400 && res.status < 500) {
          record.outcome = 'failed'
          record.detail = `${res.status} ${res.body?.message ?? ''}`
        } else {
          record.detail = `${res.status} ${res.body?.message ?? ''}`
        }
      } catch (err) {
        record.detail = (err as Error).message
        // Refused at connect: the request never left this process, so nothing can have been written.
        const code = (err as { code?: string, cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code
        if (code === 'ECONNREFUSED') record.outcome = 'failed'
        if (!this.stopping) await sleep(100)
      }
    }
  }

  private async watcher (name: string, server: number): Promise<void> {
    let from: number | undefined
    let resumed = false
    while (!this.abort.signal.aborted) {
      try {
        if (from === undefined) {
          from = await this.list(name, server)
          resumed = false
          if (from === undefined) { await sleep(200); continue }
          this.reached.set(name, Math.max(this.reached.get(name) ?? 0, from))
        }
        const r = await this.watch(name, server, from, resumed)
        if (r.expired) from = undefined
        else { from = r.last; resumed = true }
        if (r.failed) await sleep(200)
      } catch {
        if (this.abort.signal.aborted) break
        resumed = from !== undefined
        await sleep(200)
      }
    }
  }

  /** A paginated list, a pause between pages so that compaction can pass it; its revision when it completed. */
  private async list (name: string, server: number): Promise<number | undefined> {
    const record: ListRecord = { watcher: name, continues: [] }
    this.lists.push(record)
    const items: NonNullable<ListRecord['items']> = []
    let token: string | undefined
    for (;;) {
      const startedAt = Date.now()
      const res = await call(this.t, server, 'GET', `${COLLECTION}?limit=${PAGE}${token === undefined ? '' : `&continue=${encodeURIComponent(token)}`}`, undefined, undefined, this.abort.signal)
      if (token !== undefined) record.continues.push({ expired: res.status === 410, startedAt })
      if (res.status !== 200) return undefined
      record.revision ??= Number(res.body.metadata.resourceVersion)
      for (const item of res.body.items) items.push({ name: item.metadata.name, id: item.data?.id, revision: Number(item.metadata.resourceVersion) })
      token = res.body.metadata.continue
      if (token === undefined || token === '') break
      await sleep(50)
    }
    record.items = items
    return record.revision
  }

  /**
   * A first list page held while `compact` runs, then its continue and a watch from its
   * revision: both must be 410 once the compaction passed that revision (the checker decides).
   */
  async acrossCompaction (server: number, compact: () => Promise<unknown>): Promise<void> {
    const name = `probe-${server}`
    const first = await call(this.t, server, 'GET', `${COLLECTION}?limit=1`)
    const token = first.body?.metadata?.continue
    if (first.status !== 200 || typeof token !== 'string' || token === '') return
    const revision = Number(first.body.metadata.resourceVersion)
    const record: ListRecord = { watcher: name, revision, continues: [] }
    this.lists.push(record)
    await compact()
    const startedAt = Date.now()
    const next = await call(this.t, server, 'GET', `${COLLECTION}?limit=1&continue=${encodeURIComponent(token)}`)
    record.continues.push({ expired: next.status === 410, startedAt })
    await this.watch(name, server, revision, false, false)
  }

  /** One watch request from `from`, until its stream ends; what it delivered, and where to resume. */
  private async watch (name: string, server: number, from: number, resumed: boolean, track = true): Promise<{ last: number, expired: boolean, failed: boolean }> {
    const startedAt = Date.now()
    const timeout = 1 + Math.floor(Math.random() * 4)
    const res = await request(`${this.t.url(server)}${COLLECTION}?watch=1&resourceVersion=${from}&timeoutSeconds=${timeout}`,
      { dispatcher: this.t.agent, signal: this.abort.signal })
    if (res.statusCode !== 200) {
      await res.body.text().catch(() => '')
      if (res.statusCode === 410) this.watches.push({ watcher: name, from, resumed, events: [], expired: true, startedAt, endedAt: Date.now() })
      return { last: from, expired: res.statusCode === 410, failed: true }
    }
    const segment: WatchSegment = { watcher: name, from, resumed, events: [], expired: false, startedAt, endedAt: startedAt }
    this.watches.push(segment)
    let last = from
    let failed = false
    let rest = ''
    try {
      for await (const chunk of res.body) {
        rest += chunk.toString()
        let nl: number
        while ((nl = rest.indexOf('\n')) !== -1) {
          const line = rest.slice(0, nl)
          rest = rest.slice(nl + 1)
          if (line.trim() === '') continue
          const event = JSON.parse(line) as { type: string, object: any }
          if (event.type === 'ERROR') {
            if (event.object.code === 410) segment.expired = true
            else failed = true
            continue
          }
          if (event.type === 'BOOKMARK') continue
          const e: WatchEventRecord = { type: event.type, revision: Number(event.object.metadata.resourceVersion), name: event.object.metadata.name, id: event.object.data?.id }
          segment.events.push(e)
          last = e.revision
          if (track) this.reached.set(name, Math.max(this.reached.get(name) ?? 0, last))
        }
      }
    } catch (err) {
      // A broken stream: resume from the last event delivered.
      if (this.abort.signal.aborted) throw err
      failed = true
    } finally {
      segment.endedAt = Date.now()
    }
    return { last, expired: segment.expired, failed }
  }
}
