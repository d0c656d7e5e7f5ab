// What the fault harness records while it runs, and the database's log it is checked against.

/** One row of the revision log, as the database committed it (kept whole by a trigger, compaction or not). */
export interface LogEntry {
  revision: number
  key: string
  type: string
  value: string
}

/**
 * One write a writer sent: a ConfigMap create or merge patch whose data carries a unique id, a
 * body and the body's digest, so its event in the log can be found and proved whole.
 */
export interface WriteRecord {
  id: string
  name: string
  op: 'create' | 'patch'
  /** sha256 of the body, hex. */
  sum: string
  /**
   * acked: a 2xx answer naming the revision; failed: a 4xx answer (the server said it wrote
   * nothing); uncertain: no answer, a 5xx, or a broken connection: either outcome is allowed.
   */
  outcome: 'acked' | 'uncertain' | 'failed'
  revision?: number
  server: number
  detail?: string
}

export interface WatchEventRecord { type: string, revision: number, name: string, id?: string }

/** One watch request, from the revision it named to the end of its stream. */
export interface WatchSegment {
  watcher: string
  /** The resourceVersion the request named: events must start just after it. */
  from: number
  /** True when this request resumed a stream that broke (not the first after a list). */
  resumed: boolean
  events: WatchEventRecord[]
  /** Answered 410 Gone (as the status, or as an ERROR event). */
  expired: boolean
  /** Clock (ms) before the request was sent, and when its stream ended. */
  startedAt: number
  endedAt: number
}

/** One paginated list: its pages' revision, and its items once every page came. */
export interface ListRecord {
  watcher: string
  /** The list's resourceVersion (from its first page), undefined when the first page failed. */
  revision?: number
  /** Each continue request: whether it was answered 410, and when it was sent. */
  continues: Array<{ expired: boolean, startedAt: number }>
  /** Every item (name, data.id, resourceVersion) when the list completed. */
  items?: Array<{ name: string, id?: string, revision: number }>
}

/** A compaction the harness forced: every request sent after `doneAt` must see it. */
export interface CompactionRecord { revision: number, doneAt: number }

export interface History {
  /** The key prefix of the watched and written collection, e.g. /registry/core/configmaps/faults/. */
  prefix: string
  log: LogEntry[]
  writes: WriteRecord[]
  watches: WatchSegment[]
  lists: ListRecord[]
  compactions: CompactionRecord[]
  /** Each watcher and the newest revision it reached once the writers stopped and it was given time. */
  reached: Array<{ watcher: string, revision: number }>
}
