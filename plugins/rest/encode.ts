// Writes answers in the negotiated representation; JSON objects go out as the stored bytes.
import type { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import { stringify as toYaml } from 'yaml'
import type { AnyObject, Resource } from '../../resources/define.js'
import { MEDIA_TYPES } from '../../resources/naming.js'
import type { Representation } from './negotiation.js'
import { chunkStream } from './chunk-stream.js'
import { partialObjectMetadata, renderRow, rowTemplate, table, tableRow, type IncludeObject, type RowTemplate } from './table.js'

export interface EncodeOptions { repr: Representation, pretty: boolean, includeObject: IncludeObject }

function sendText (reply: FastifyReply, code: number, json: string, o: EncodeOptions): FastifyReply {
  if (o.repr.as === 'protobuf') {
    // An object its message cannot hold in full goes out as JSON, which every protobuf client also accepts.
    const body = reply.server.protobuf.tryEncode(JSON.parse(json))
    if (body !== undefined) return reply.code(code).type(o.repr.mediaType).send(body)
  }
  if (o.repr.as === 'yaml') return reply.code(code).type(MEDIA_TYPES.yaml).send(toYaml(JSON.parse(json)))
  const body = o.pretty ? JSON.stringify(JSON.parse(json), null, 2) + '\n' : json
  return reply.code(code).type(MEDIA_TYPES.json).send(body)
}

/** One object, from its stored JSON. */
export function sendObject (reply: FastifyReply, code: number, r: Resource, json: string, o: EncodeOptions): FastifyReply {
  if (o.repr.as === 'Table') {
    const obj = JSON.parse(json) as AnyObject
    return sendText(reply, code, JSON.stringify(table(r, [obj], { resourceVersion: obj.metadata?.resourceVersion ?? '' }, o.includeObject, o.repr.apiVersion)), { ...o, repr: { as: 'json' } })
  }
  if (o.repr.as === 'PartialObjectMetadata') {
    return sendText(reply, code, JSON.stringify(partialObjectMetadata(JSON.parse(json), o.repr.apiVersion)), o)
  }
  return sendText(reply, code, json, o)
}

/**
 * Lists whose items hold more than this many characters of JSON go out streamed: written in
 * chunks of about CHUNK characters as the socket takes them (chunked transfer coding, as the
 * reference streams its JSON collections), never built as one string. Settable for tests, which
 * compare both ways.
 */
export const listStreaming = {
  minChars: 256 * 1024,
  /** Whether a shared page's kept encodings answer (tests turn it off to compare with the answers made afresh). */
  keptPages: true
}
const CHUNK = 64 * 1024
/** What Fastify writes for a JSON string; a stream gets no charset of its own. */
const STREAMED_JSON = `${MEDIA_TYPES.json}; charset=utf-8`

/** The answer's text in pieces, as one chunked stream of about CHUNK characters each. */
function streamOf (pieces: Iterable<string>): Readable {
  function * chunks (): Generator<Buffer> {
    let chunk = ''
    for (const piece of pieces) {
      chunk += piece
      if (chunk.length >= CHUNK) {
        yield Buffer.from(chunk)
        chunk = ''
      }
    }
    if (chunk !== '') yield Buffer.from(chunk)
  }
  return pulled(chunks())
}

/** Pulled as the socket drains, a turn of the event loop each: at most a chunk or two are held beside the items. */
const pulled = (chunks: Iterable<Buffer>): Readable => chunkStream(chunks, CHUNK)

/** Whether an audit records this request's answer (it then keeps the answer whole). */
function answerRecorded (reply: FastifyReply): boolean {
  const audit = reply.request.auditContext
  return audit !== null && audit !== undefined && audit.decision.level === 'RequestResponse'
}

/** Whether a list answer is streamed: large, plain JSON, and not kept whole by an audit that records answers. */
function streams (reply: FastifyReply, items: ReadonlyArray<{ json: string }>, o: EncodeOptions): boolean {
  if (o.pretty || listStreaming.minChars === Infinity || answerRecorded(reply)) return false
  let chars = 0
  for (const item of items) {
    chars += item.json.length
    if (chars > listStreaming.minChars) return true
  }
  return false
}

/** A JSON document whose last member is an array, as its text before the array's items, the items, and its end. */
function * jsonWithArray (head: string, items: Iterable<string>): Generator<string> {
  yield head
  let first = true
  for (const item of items) {
    yield first ? item : `,${item}`
    first = false
  }
  yield ']}'
}

function * rowsOf (r: Resource, items: ReadonlyArray<{ json: string }>, o: EncodeOptions & { repr: { as: 'Table', apiVersion: string } }): Generator<string> {
  // Each item is parsed only when its row is written.
  for (const item of items) yield JSON.stringify(tableRow(r, JSON.parse(item.json) as AnyObject, o.includeObject, o.repr.apiVersion))
}

/**
 * The items' JSON joined by commas, as bytes, kept for a shared items array (ListResult.shared)
 * as long as the array lives: the cache's page memo drops the array when its prefix changes.
 */
const joinedItems = new WeakMap<ReadonlyArray<{ json: string }>, Buffer>()
const LIST_END = Buffer.from(']}')

function joinedBytes (items: ReadonlyArray<{ json: string }>): Buffer {
  let bytes = joinedItems.get(items)
  if (bytes === undefined) {
    let text = ''
    for (let i = 0; i < items.length; i++) text += (i === 0 ? '' : ',') + items[i]!.json
    joinedItems.set(items, bytes = Buffer.from(text))
  }
  return bytes
}

/**
 * A shared items array's Table rows without their ages, per Resource (a custom resource's
 * columns change with its definition), inclusion and meta version; null when a column reads
 * the clock. Gone with the array, as its joined bytes are.
 */
const rowTemplates = new WeakMap<ReadonlyArray<{ json: string }>, Map<string, { r: Resource, rows: RowTemplate[] | null }>>()

function keptRows (r: Resource, items: ReadonlyArray<{ json: string }>, include: IncludeObject, apiVersion: string): RowTemplate[] | undefined {
  let forms = rowTemplates.get(items)
  if (forms === undefined) rowTemplates.set(items, forms = new Map())
  const form = `${include}\0${apiVersion}`
  let kept = forms.get(form)
  if (kept === undefined || kept.r !== r) {
    const rows: RowTemplate[] = []
    for (const item of items) {
      const row = rowTemplate(r, JSON.parse(item.json) as AnyObject, include, apiVersion)
      if (row === undefined) break
      rows.push(row)
    }
    forms.set(form, kept = { r, rows: rows.length === items.length ? rows : null })
  }
  return kept.rows ?? undefined
}

/** The kept bytes in CHUNK slices, none copied, between the envelope's head and end. */
function * slicesOf (head: Buffer, bytes: Buffer): Generator<Buffer> {
  yield head
  for (let at = 0; at < bytes.length; at += CHUNK) yield bytes.subarray(at, at + CHUNK)
  yield LIST_END
}

/**
 * A list, concatenating the items' stored JSON without parsing it; a streamed protobuf list once
 * its length is known. `shared`: the items array is a cached page's (ListResult.shared), whose
 * JSON bytes are then made once and answered again while the page stays.
 */
export function sendList (reply: FastifyReply, r: Resource, items: ReadonlyArray<{ json: string }>, listMeta: AnyObject, o: EncodeOptions,
  shared = false): FastifyReply | Promise<FastifyReply> {
  if (o.repr.as === 'Table') {
    const templates = shared && listStreaming.keptPages && !o.pretty && !answerRecorded(reply) ? keptRows(r, items, o.includeObject, o.repr.apiVersion) : undefined
    if (templates !== undefined) {
      const head = JSON.stringify(table(r, [], listMeta, o.includeObject, o.repr.apiVersion)).slice(0, -2)
      const ages = new Map<string | null | undefined, string>()
      const rows = mapped(templates, t => renderRow(t, ages))
      if (streams(reply, items, o)) return reply.code(200).type(STREAMED_JSON).send(streamOf(jsonWithArray(head, rows)))
      return sendText(reply, 200, [...jsonWithArray(head, rows)].join(''), { ...o, repr: { as: 'json' } })
    }
    if (streams(reply, items, o)) {
      // JSON.stringify without spacing composes: the rows written one by one are the same bytes.
      const empty = JSON.stringify(table(r, [], listMeta, o.includeObject, o.repr.apiVersion))
      return reply.code(200).type(STREAMED_JSON).send(streamOf(jsonWithArray(empty.slice(0, -2), rowsOf(r, items, { ...o, repr: o.repr }))))
    }
    const objs = items.map(i => JSON.parse(i.json) as AnyObject)
    return sendText(reply, 200, JSON.stringify(table(r, objs, listMeta, o.includeObject, o.repr.apiVersion)), { ...o, repr: { as: 'json' } })
  }
  if (o.repr.as === 'PartialObjectMetadata') {
    const apiVersion = o.repr.apiVersion
    const metadataOf = (i: { json: string }): AnyObject => partialObjectMetadata(JSON.parse(i.json), apiVersion)
    if (streams(reply, items, o)) {
      const empty = JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion, metadata: listMeta, items: [] })
      return reply.code(200).type(STREAMED_JSON).send(streamOf(jsonWithArray(empty.slice(0, -2), mapped(items, i => JSON.stringify(metadataOf(i))))))
    }
    const body = { kind: 'PartialObjectMetadataList', apiVersion, metadata: listMeta, items: items.map(metadataOf) }
    return sendText(reply, 200, JSON.stringify(body), o)
  }
  const head = `{"kind":${JSON.stringify(r.listKind)},"apiVersion":${JSON.stringify(r.apiVersion)},"metadata":${JSON.stringify(listMeta)},"items":[`
  const kept = shared && listStreaming.keptPages && !o.pretty && !answerRecorded(reply)
  if (kept && o.repr.as === 'json') {
    const bytes = joinedBytes(items)
    const headBytes = Buffer.from(head)
    return bytes.length > listStreaming.minChars
      ? reply.code(200).type(STREAMED_JSON).send(pulled(slicesOf(headBytes, bytes)))
      : reply.code(200).type(STREAMED_JSON).send(Buffer.concat([headBytes, bytes, LIST_END]))
  }
  const streamed = (o.repr.as === 'json' || o.repr.as === 'protobuf') && streams(reply, items, o)
  if (o.repr.as === 'protobuf' && (streamed || kept)) {
    const mediaType = o.repr.mediaType
    return reply.server.protobuf.listInChunks(r.apiVersion, r.listKind, listMeta, items, CHUNK, kept).then(parts => {
      if (parts === undefined) return streamed ? reply.code(200).type(STREAMED_JSON).send(streamOf(jsonWithArray(head, itemsJson(items)))) : sendText(reply, 200, wholeJson(head, items), { ...o, repr: { as: 'json' } })
      // The length is known up front (the envelope needs it), so the answer carries it as a whole one does.
      if (streamed) return reply.code(200).type(mediaType).header('content-length', parts.length).send(pulled(parts.chunks()))
      return reply.code(200).type(mediaType).send(Buffer.concat([...parts.chunks()]))
    })
  }
  if (streamed) return reply.code(200).type(STREAMED_JSON).send(streamOf(jsonWithArray(head, itemsJson(items))))
  return sendText(reply, 200, wholeJson(head, items), o)
}

/** A list's JSON as one string, from its head (up to the items' `[`). */
function wholeJson (head: string, items: ReadonlyArray<{ json: string }>): string {
  let json = head
  for (let i = 0; i < items.length; i++) json += (i === 0 ? '' : ',') + items[i]!.json
  return json + ']}'
}

/** A plain document (Status, discovery), honouring pretty and YAML. */
export const sendDocument = (reply: FastifyReply, code: number, doc: unknown, o: EncodeOptions): FastifyReply =>
  sendText(reply, code, JSON.stringify(doc), o)

function * itemsJson (items: ReadonlyArray<{ json: string }>): Generator<string> {
  for (const item of items) yield item.json
}

/** Each item's text, made when its chunk is written. */
function * mapped<T> (items: ReadonlyArray<T>, text: (item: T) => string): Generator<string> {
  for (const item of items) yield text(item)
}
