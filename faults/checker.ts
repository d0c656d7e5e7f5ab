// The fault harness's judge: the database's revision log is the truth, and every recorded write,
// watch and list is held against it. Pure functions: no clock, no I/O.
import { createHash } from 'node:crypto'
import type { History, LogEntry, WatchSegment } from './history.js'

export type ViolationKind =
  | 'lost' | 'misplaced' | 'partial' | 'refused-but-written' | 'twice' | 'phantom'
  | 'gap' | 'duplicate' | 'out-of-order' | 'content' | 'resume' | 'not-expired' | 'list' | 'stalled'

export interface Violation { kind: ViolationKind, detail: string }

export interface Figures {
  acked: number
  uncertain: number
  uncertainPresent: number
  failed: number
  lost: number
  eventsChecked: number
  gaps: number
  duplicates: number
  outOfOrder: number
  resumes: number
  wrongResumes: number
  expired: number
  listsChecked: number
  compactions: number
}

export interface Report { violations: Violation[], figures: Figures }

interface Payload { id?: string, body?: string, sum?: string }

/** The data of a logged ConfigMap, or undefined when the value does not parse (a torn write). */
function payloadOf (entry: LogEntry): Payload | undefined {
  try {
    const obj = JSON.parse(entry.value) as { data?: Payload }
    return obj.data ?? {}
  } catch {
    return undefined
  }
}

export const digest = (body: string): string => createHash('sha256').update(body).digest('hex')

/** Whole: the value parses and carries the body the writer sent, intact. */
function whole (entry: LogEntry, sum: string): boolean {
  const p = payloadOf(entry)
  return p !== undefined && p.sum === sum && typeof p.body === 'string' && digest(p.body) === sum
}

/** The compacted revision known to have committed before `at` (0 when none). */
function compactedBefore (h: History, at: number): number {
  let c = 0
  for (const x of h.compactions) if (x.doneAt < at && x.revision > c) c = x.revision
  return c
}

export function check (h: History): Report {
  const violations: Violation[] = []
  const figures: Figures = {
    acked: 0, uncertain: 0, uncertainPresent: 0, failed: 0, lost: 0, eventsChecked: 0, gaps: 0, duplicates: 0,
    outOfOrder: 0, resumes: 0, wrongResumes: 0, expired: 0, listsChecked: 0, compactions: h.compactions.length
  }
  const log = h.log.filter(e => e.key.startsWith(h.prefix)).sort((a, b) => a.revision - b.revision)
  checkWrites(h, log, violations, figures)
  checkWatches(h, log, violations, figures)
  checkLists(h, log, violations, figures)
  checkCompactions(h, violations, figures)
  // A watcher that stops hearing (a notification lost for good, a stream that never resumes)
  // shows no gap in what it did deliver: it is caught by not reaching the log's end.
  const end = log.at(-1)?.revision ?? 0
  for (const r of h.reached) {
    if (r.revision < end) violations.push({ kind: 'stalled', detail: `${r.watcher} reached revision ${r.revision}, the log ends at ${end}` })
  }
  return { violations, figures }
}

function checkWrites (h: History, log: LogEntry[], out: Violation[], f: Figures): void {
  const byId = new Map<string, LogEntry[]>()
  for (const e of log) {
    const id = payloadOf(e)?.id
    if (id === undefined) continue
    const list = byId.get(id)
    if (list === undefined) byId.set(id, [e])
    else list.push(e)
  }
  const sent = new Set<string>()
  for (const w of h.writes) {
    sent.add(w.id)
    const found = byId.get(w.id) ?? []
    const type = w.op === 'create' ? 'ADDED' : 'MODIFIED'
    const key = h.prefix + w.name
    if (found.length > 1) out.push({ kind: 'twice', detail: `write ${w.id} is in the log ${found.length} times (revisions ${found.map(e => e.revision).join(', ')})` })
    const entry = found[0]
    if (entry !== undefined && (entry.key !== key || entry.type !== type)) {
      out.push({ kind: 'misplaced', detail: `write ${w.id} (${w.op} ${w.name}) is logged as ${entry.type} ${entry.key}` })
    }
    if (w.outcome === 'acked') {
      f.acked++
      if (entry === undefined) {
        f.lost++
        out.push({ kind: 'lost', detail: `acknowledged ${w.op} ${w.name} (${w.id}) at revision ${w.revision} is not in the log` })
      } else if (entry.revision !== w.revision) {
        out.push({ kind: 'misplaced', detail: `acknowledged ${w.op} ${w.name} (${w.id}) answered revision ${w.revision}, logged at ${entry.revision}` })
      } else if (!whole(entry, w.sum)) {
        out.push({ kind: 'partial', detail: `acknowledged ${w.op} ${w.name} (${w.id}) is logged torn at revision ${entry.revision}` })
      }
    } else if (w.outcome === 'uncertain') {
      f.uncertain++
      if (entry !== undefined) {
        f.uncertainPresent++
        if (!whole(entry, w.sum)) out.push({ kind: 'partial', detail: `uncertain ${w.op} ${w.name} (${w.id}) is logged torn at revision ${entry.revision}` })
      }
    } else {
      f.failed++
      if (entry !== undefined) out.push({ kind: 'refused-but-written', detail: `${w.op} ${w.name} (${w.id}) was refused (${w.detail ?? ''}) yet logged at revision ${entry.revision}` })
    }
  }
  for (const [id, entries] of byId) {
    if (!sent.has(id)) out.push({ kind: 'phantom', detail: `the log holds write ${id} (revision ${entries[0]!.revision}) that no writer sent` })
  }
}

/** Each watch request's events must be exactly the log's events after the revision it named, in order. */
function checkWatches (h: History, log: LogEntry[], out: Violation[], f: Figures): void {
  for (const s of h.watches) {
    if (s.expired) f.expired++
    if (s.resumed) f.resumes++
    const start = firstAfter(log, s.from)
    const seen = new Set<number>()
    let last = s.from
    for (let i = 0; i < s.events.length; i++) {
      const got = s.events[i]!
      const want = log[start + i]
      f.eventsChecked++
      const where = `watch ${s.watcher} from ${s.from}, event ${i + 1}`
      if (want !== undefined && got.revision === want.revision) {
        const id = payloadOf(want)?.id
        if (got.type !== want.type || h.prefix + got.name !== want.key || got.id !== id) {
          out.push({ kind: 'content', detail: `${where}: ${got.type} ${got.name} (${got.id}) at ${got.revision}, the log has ${want.type} ${want.key} (${id})` })
          break
        }
        seen.add(got.revision)
        last = got.revision
        continue
      }
      if (seen.has(got.revision) || got.revision === s.from) {
        f.duplicates++
        out.push({ kind: 'duplicate', detail: `${where}: revision ${got.revision} delivered again` })
      } else if (got.revision < last) {
        f.outOfOrder++
        out.push({ kind: 'out-of-order', detail: `${where}: revision ${got.revision} after ${last}` })
      } else if (i === 0 && s.resumed) {
        f.wrongResumes++
        out.push({ kind: 'resume', detail: `${where}: resumed at revision ${got.revision}, the log's next is ${want?.revision ?? 'nothing'}` })
      } else {
        f.gaps++
        out.push({ kind: 'gap', detail: `${where}: revision ${got.revision}, skipping ${want === undefined ? 'past the end of the log' : `revision ${want.revision}`}` })
      }
      break
    }
  }
}

/** Index of the first log entry after `revision`. */
function firstAfter (log: LogEntry[], revision: number): number {
  let lo = 0
  let hi = log.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (log[mid]!.revision <= revision) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** A completed paginated list must be the log's state at its revision, every page included. */
function checkLists (h: History, log: LogEntry[], out: Violation[], f: Figures): void {
  for (const l of h.lists) {
    for (const c of l.continues) if (c.expired) f.expired++
    if (l.items === undefined || l.revision === undefined) continue
    f.listsChecked++
    const state = new Map<string, { id?: string, revision: number }>()
    for (const e of log) {
      if (e.revision > l.revision) break
      const name = e.key.slice(h.prefix.length)
      if (e.type === 'DELETED') state.delete(name)
      else state.set(name, { id: payloadOf(e)?.id, revision: e.revision })
    }
    const got = new Map(l.items.map(i => [i.name, i]))
    const problems: string[] = []
    if (got.size !== l.items.length) problems.push('an item appears twice')
    for (const [name, want] of state) {
      const item = got.get(name)
      if (item === undefined) problems.push(`${name} missing`)
      else if (item.revision !== want.revision || item.id !== want.id) problems.push(`${name} at ${item.revision} (${item.id}), the log has ${want.revision} (${want.id})`)
    }
    for (const name of got.keys()) if (!state.has(name)) problems.push(`${name} is not in the log at that revision`)
    if (problems.length > 0) out.push({ kind: 'list', detail: `list ${l.watcher} at ${l.revision}: ${problems.slice(0, 5).join('; ')}` })
  }
}

/** Every watch or continue request below a compaction that committed before it was sent must be 410. */
function checkCompactions (h: History, out: Violation[], _f: Figures): void {
  const requests: Array<{ what: string, revision: number, expired: boolean, startedAt: number, delivered: number }> = [
    ...h.watches.map((s: WatchSegment) => ({ what: `watch ${s.watcher} from ${s.from}`, revision: s.from, expired: s.expired, startedAt: s.startedAt, delivered: s.events.length })),
    ...h.lists.flatMap(l => l.revision === undefined ? [] : l.continues.map(c => ({ what: `continue of list ${l.watcher} at ${l.revision}`, revision: l.revision!, expired: c.expired, startedAt: c.startedAt, delivered: 0 })))
  ]
  for (const r of requests) {
    const compacted = compactedBefore(h, r.startedAt)
    if (r.revision < compacted && (!r.expired || r.delivered > 0)) {
      out.push({ kind: 'not-expired', detail: `${r.what}: below the compacted revision ${compacted}, answered ${r.expired ? `${r.delivered} events before 410` : 'without 410'}` })
    }
  }
}
