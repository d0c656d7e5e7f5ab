// Watch streams: newline-delimited events written straight from the cache's stored bytes.
import { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AnyObject, Resource } from '../../resources/define.js'
import { StorageError, type CacheEvent, type CachedObject } from '../../storage/interface.js'
import { ApiError, expired, internalError } from '../../resources/status.js'
import type { GenericStore } from './store.js'
import type { ListOptions } from './options.js'
import { matchesFields, matchesLabels } from '../../machinery/selectors.js'
import { table } from './table.js'
import type { Representation } from './negotiation.js'

/** Default of WatchSettings.maxBufferedBytes. */
const MAX_TIMER_MS = 2 ** 31 - 1

export const MAX_BUFFERED_BYTES = 16 * 1024 * 1024
const MIN_DEFAULT_TIMEOUT_S = 1800
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end'

export interface WatchSettings {
  bookmarkIntervalMs: number
  /** A client reading slower than this much unsent output has its stream closed; it re-watches. */
  maxBufferedBytes: number
  /** The open streams' ends, so that shutdown can end each cleanly (its last chunk written). */
  open?: Set<() => void>
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED'

/**
 * Each event's JSON line, encoded once for all the watchers it goes to (a thousand watchers of
 * one kind would otherwise build and UTF-8-encode the same line a thousand times). Keyed by the
 * cache's event object, so a line lives as long as the cache keeps its event.
 */
const jsonLines = new WeakMap<CacheEvent, Partial<Record<EventType, Buffer>>>()

/** The line just encoded: consecutive watchers of one event skip the WeakMap lookup. */
let last: { e?: CacheEvent, type?: EventType, line?: Buffer } = {}

function jsonLine (e: CacheEvent, type: EventType): Buffer {
  if (last.e === e && last.type === type) return last.line!
  let lines = jsonLines.get(e)
  if (lines === undefined) {
    lines = {}
    jsonLines.set(e, lines)
  }
  const line = (lines[type] ??= Buffer.from(`{"type":"${type}","object":${e.json}}\n`))
  last = { e, type, line }
  return line
}

/**
 * A watch stream writes at most once per flush round: the events that come sooner wait for one
 * shared timer and leave together, as one chunk. A thousand watchers of a busy kind would
 * otherwise cost a write (a syscall and a TLS record, some 20 µs here whatever its size) per
 * event per watcher. Rounds start at most every FLUSH_MS, and no sooner after the last one's
 * start than one and a half times as long as it took (up to MAX_FLUSH_MS), so that requests and
 * the log reader keep a third of the process whatever the fan-out (the spacing measured best
 * between 1x and 2x on the benchmark). The first event after a quiet spell leaves at once.
 */
const FLUSH_MS = 10
/** A bound on the spacing, so that a round slowed by a stall does not stretch the next ones. */
const MAX_FLUSH_MS = 100
const dueFlushes = new Set<() => void>()
let flushTimer: NodeJS.Timeout | undefined
let flushInterval = FLUSH_MS
let lastRoundAt = 0

function flushLater (flush: () => void): void {
  dueFlushes.add(flush)
  flushTimer ??= setTimeout(() => {
    const began = performance.now()
    lastRoundAt = began
    flushTimer = undefined
    const due = [...dueFlushes]
    dueFlushes.clear()
    for (const f of due) f()
    flushInterval = Math.min(MAX_FLUSH_MS, Math.max(FLUSH_MS, 1.5 * (performance.now() - began)))
  }, Math.max(0, lastRoundAt + flushInterval - performance.now()))
}

/** The last chunk built: the watchers of one round mostly send the very same events. */
let lastChunk: { parts: Array<string | Buffer>, chunk: Buffer } | undefined

function chunkOf (parts: Array<string | Buffer>): string | Buffer {
  if (parts.length === 1) return parts[0]
  const prev = lastChunk?.parts
  if (prev !== undefined && prev.length === parts.length && prev.every((p, i) => p === parts[i])) return lastChunk!.chunk
  const chunk = Buffer.concat(parts.map(p => typeof p === 'string' ? Buffer.from(p) : p))
  lastChunk = { parts, chunk }
  return chunk
}

const CRLF = Buffer.from('\r\n')
/** The last chunk framed: a round sends one chunk object to every watcher of the same events. */
let lastFramed: { chunk: string | Buffer, framed: Buffer } | undefined

/** A chunk as HTTP/1.1 chunked transfer coding puts it on the wire: its size in hex, CRLF, the bytes, CRLF. */
function framedOf (chunk: string | Buffer): Buffer {
  if (lastFramed?.chunk === chunk) return lastFramed.framed
  const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
  const framed = Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, CRLF])
  lastFramed = { chunk, framed }
  return framed
}

/**
 * A watch through an alias or an older version: its objects' apiVersion is rewritten, or, for a
 * kind converted out of process, the objects converted (`convertAll`; events keep their order).
 */
export interface ServedAs {
  apiVersion: string
  /** The kind as the path serves it, when its Table columns are not the stored kind's (a CRD version's). */
  served?: Resource
  rewrite: (json: string) => string
  convertAll?: (jsons: readonly string[]) => Promise<string[]>
}

export async function serveWatch (store: GenericStore, namespace: string, o: ListOptions, repr: Representation,
  request: FastifyRequest, reply: FastifyReply, settings: WatchSettings, servedAs?: ServedAs): Promise<void> {
  const sel = store.selectors(o)
  const filtered = sel.labels.length > 0 || sel.fields.length > 0
  const matches = (a: CacheEvent['attrs'] | undefined): boolean =>
    a !== undefined && (matchesLabels(sel.labels, a.labels) && matchesFields(sel.fields, a.fields))
  const prefix = store.listPrefix(namespace)
  const r = store.resource
  const cache = store.cache

  const rv = o.resourceVersion === undefined ? undefined : Number(o.resourceVersion)
  const initialEvents = o.sendInitialEvents ?? (rv === undefined || rv === 0)
  if (initialEvents) await store.freshen(rv)
  // The caches learn of compactions on a timer; the database knows at once.
  const compacted = initialEvents ? 0 : await store.compactedRevision()

  const raw = reply.raw
  reply.hijack()
  // A protobuf stream is length-prefixed WatchEvent frames, named as the client asked with `stream=watch`.
  const contentType = repr.as === 'protobuf' ? `${repr.mediaType};stream=watch` : 'application/json'
  raw.writeHead(200, { 'content-type': contentType, 'x-content-type-options': 'nosniff' })
  raw.flushHeaders()

  let closed = false
  let lastRv = rv ?? 0
  let columnsSent = false
  const encode = (type: string, json: string): string | Buffer => {
    if (repr.as === 'protobuf') return request.server.protobuf.watchFrame(type, JSON.parse(json) as AnyObject)
    if (repr.as === 'Table') {
      const t = table(servedAs?.served ?? r, [JSON.parse(json) as AnyObject], { resourceVersion: (JSON.parse(json) as AnyObject).metadata?.resourceVersion ?? '' }, 'Metadata', repr.apiVersion, !columnsSent)
      columnsSent = true
      return `{"type":"${type}","object":${JSON.stringify(t)}}\n`
    }
    if (repr.as === 'PartialObjectMetadata') {
      return `{"type":"${type}","object":${JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: repr.apiVersion, metadata: (JSON.parse(json) as AnyObject).metadata })}}\n`
    }
    return `{"type":"${type}","object":${json}}\n`
  }
  // Events wait in `pending` for this stream's next flush, then leave as one chunk.
  let pending: Array<string | Buffer> = []
  let scheduled = false
  let flushedAt = 0
  const flush = (): void => {
    scheduled = false
    flushedAt = performance.now()
    if (pending.length === 0 || raw.destroyed || raw.writableEnded) return
    const parts = pending
    pending = []
    // What earlier rounds left unsent (the response's writableLength counts its socket's too)
    // tells a slow reader; this round's own size does not, or a large burst of initial events
    // would close a client that reads as fast as it can.
    if (raw.writableLength > settings.maxBufferedBytes) {
      finish()
      return
    }
    const chunk = chunkOf(parts)
    const socket = raw.socket
    if (socket instanceof Socket && (raw as { chunkedEncoding?: boolean }).chunkedEncoding === true) {
      // The framed chunk is built once per round for every stream sending the same events, and
      // goes to the socket in one write: through the response it would be four writes (size,
      // bytes, two CRLFs) joined again by the TLS layer, for each stream. The response's own
      // end() still writes the last chunk.
      socket.write(framedOf(chunk))
    } else {
      // Corked here, the response writes (and encrypts) inside this round rather than in a tick
      // of its own after it, so the round's measured cost is its real cost.
      socket?.cork()
      raw.write(chunk)
      socket?.uncork()
    }
  }
  const sentEvents = request.server.metrics.watchEvents(r.group, r.version, r.plural)
  const send = (chunk: string | Buffer): void => {
    if (closed) return
    sentEvents.inc()
    pending.push(chunk)
    if (scheduled) return
    scheduled = true
    if (performance.now() - flushedAt >= flushInterval) process.nextTick(flush)
    else flushLater(flush)
  }
  const errorFrame = (status: AnyObject): string | Buffer =>
    repr.as === 'protobuf' ? request.server.protobuf.watchFrame('ERROR', status) : `{"type":"ERROR","object":${JSON.stringify(status)}}\n`
  // Out-of-process conversion: every frame waits for the ones before it, so the order holds; a
  // conversion that fails ends the stream with its Status.
  let ordered: Promise<void> = Promise.resolve()
  const sendInOrder = (frames: () => Promise<Array<string | Buffer>>): void => {
    ordered = ordered.then(async () => {
      if (closed) return
      try {
        for (const frame of await frames()) send(frame)
      } catch (err) {
        const status = err instanceof ApiError ? err.status : internalError((err as Error).message).status
        send(errorFrame(status))
        finish()
      }
    })
  }
  const convertAll = servedAs?.convertAll
  const sendEvent = (type: EventType, e: CacheEvent): void => {
    if (convertAll !== undefined) return sendInOrder(async () => (await convertAll([e.json])).map(json => encode(type, json)))
    if (servedAs !== undefined) return send(encode(type, servedAs.rewrite(e.json)))
    send(repr.as === 'json' ? jsonLine(e, type) : encode(type, e.json))
  }
  const bookmark = (revision: number, annotations?: Record<string, string>): void => {
    const metadata: AnyObject = { resourceVersion: String(revision) }
    if (annotations !== undefined) metadata.annotations = annotations
    const object = { kind: r.kind, apiVersion: servedAs?.apiVersion ?? r.apiVersion, metadata }
    const frame = repr.as === 'protobuf' ? request.server.protobuf.watchFrame('BOOKMARK', object) : `{"type":"BOOKMARK","object":${JSON.stringify(object)}}\n`
    if (convertAll !== undefined) sendInOrder(async () => [frame])
    else send(frame)
  }

  let handle: { stop(): void } | undefined
  const timers: NodeJS.Timeout[] = []
  const info = request.requestInfo
  const uncount = request.server.hasDecorator('watchCounts')
    ? request.server.watchCounts.register({ apiGroup: info.apiGroup, resource: info.resource, namespace: info.namespace, name: info.name || info.fieldSelectorName })
    : undefined
  function finish (): void {
    if (closed) return
    closed = true
    uncount?.()
    settings.open?.delete(finish)
    handle?.stop()
    for (const t of timers) clearTimeout(t)
    flush()
    raw.end()
  }
  request.raw.on('close', finish)
  raw.on('close', finish)
  settings.open?.add(finish)

  const onEvent = (e: CacheEvent): void => {
    if (e.revision <= lastRv) return
    lastRv = e.revision
    // Without selectors every event goes as it is, and no object's attributes are looked at.
    if (!filtered) return sendEvent(e.type, e)
    const now = matches(e.attrs)
    const before = e.prevAttrs !== undefined && matches(e.prevAttrs)
    if (e.type === 'ADDED') { if (now) sendEvent('ADDED', e) } else if (e.type === 'DELETED') {
      if (now || before) sendEvent('DELETED', e)
    } else if (now && before) sendEvent('MODIFIED', e)
    else if (now) sendEvent('ADDED', e)
    else if (before) sendEvent('DELETED', e)
  }
  const onError = (err: Error): void => {
    // The kind was served anew (its CRD changed) or went: the stream ends, as the reference ends
    // watches on a storage it replaces, and the client watches again.
    if (err instanceof StorageError && err.code === 'Removed') return finish()
    const status = err instanceof StorageError && err.code === 'Compacted'
      ? expired(`too old resource version: ${rv ?? 0} (${err.revision ?? 0})`).status
      : { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: err.message, reason: 'InternalError', code: 500 }
    send(errorFrame(status))
    finish()
  }

  let start: number
  let live: boolean
  if (initialEvents) {
    // The current objects and the position they were read at come from one synchronous step.
    start = cache.revision
    const initial: CachedObject[] = cache.list(prefix)
    const wanted = filtered ? initial.filter(obj => matches(obj.attrs)) : initial
    if (convertAll !== undefined) sendInOrder(async () => (await convertAll(wanted.map(obj => obj.json))).map(json => encode('ADDED', json)))
    else for (const obj of wanted) send(encode('ADDED', servedAs === undefined ? obj.json : servedAs.rewrite(obj.json)))
    lastRv = start
    if (o.sendInitialEvents === true) bookmark(start, { [INITIAL_EVENTS_END]: 'true' })
    live = true
  } else {
    start = rv!
    live = start >= cache.windowStart
  }
  if (start < compacted) onError(new StorageError('Compacted', prefix, 'compacted', compacted))
  else handle = cache.watch(prefix, start, onEvent, onError)

  const timeoutS = o.timeoutSeconds !== undefined && o.timeoutSeconds > 0
    ? o.timeoutSeconds
    : MIN_DEFAULT_TIMEOUT_S * (1 + Math.random())
  // setTimeout takes at most 2^31-1 ms and fires at once past that; a longer timeout is that long.
  timers.push(setTimeout(finish, Math.min(timeoutS * 1000, MAX_TIMER_MS)))
  if (o.allowWatchBookmarks) {
    const tick = (): void => {
      if (closed) return
      // Before a replay from the log has caught up, only positions already sent are safe.
      bookmark(live ? Math.max(lastRv, cache.revision) : lastRv)
      timers.push(setTimeout(tick, settings.bookmarkIntervalMs))
    }
    timers.push(setTimeout(tick, settings.bookmarkIntervalMs))
  }
}
