// A protobuf list written item by item (the reference's streaming collection encoder): the
// envelope's length prefixes come before the items, so a first pass learns every item's encoded
// length and a second encodes each again as the socket takes the chunks. The lengths are
// remembered per cached object (a number each, held weakly: gone with the object's version), so
// a collection listed again costs its first pass only for what changed; the encodings themselves
// are not kept: that would hold a second copy of the live set (about 0.8x its JSON) for every
// kind a protobuf client lists, where the second encoding costs only CPU while the list is sent.
// The first pass yields to other requests every few hundred items it has to encode. A page the
// watch cache shares while its prefix is unchanged (ListResult.shared) is the exception: its
// items' encoding is kept beside its array, as the JSON encoder keeps its bytes, and is gone
// with it, so only pages listed again, within the cache's budget for them, hold one.
import protobuf from 'protobufjs'
import type { AnyObject } from '../../resources/define.js'
import { ConversionError, toMessage } from './convert.js'
import { nextTurn } from '../../storage/slices.js'

/** Wire tag of a length-delimited field `n`. */
const lengthDelimited = (n: number): number => (n << 3) | 2
const varintSize = (n: number): number => n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5

const asBuffer = (b: Uint8Array): Buffer => Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length)

/** Items encoded between two turns of the event loop in the first pass. */
const ITEMS_PER_TURN = 200

/** Each item message type's encoded lengths, by the item object (the watch cache's, for one version of an object). */
const lengthsByType = new WeakMap<protobuf.Type, WeakMap<object, number>>()

/**
 * The items of a shared page, each tagged and length-prefixed as the list's field: kept while the
 * array lives. The encoding under way is kept too, so lists asked at once (informers starting
 * together) share one.
 */
const keptItems = new WeakMap<ReadonlyArray<{ json: string }>, { type: protobuf.Type, bytes: Promise<Buffer> }>()

/** `items` encoded as the list's repeated field, made once per shared array; rejects with ConversionError as the encoding does. */
function encodedItems (item: protobuf.Type, itemTag: number, items: ReadonlyArray<{ json: string }>): Promise<Buffer> {
  const kept = keptItems.get(items)
  if (kept?.type === item) return kept.bytes
  const bytes = encodeItems(item, itemTag, items)
  keptItems.set(items, { type: item, bytes })
  // A failed encoding is not kept: the next list tries again (and answers JSON if it fails again).
  bytes.catch(() => { if (keptItems.get(items)?.bytes === bytes) keptItems.delete(items) })
  return bytes
}

async function encodeItems (item: protobuf.Type, itemTag: number, items: ReadonlyArray<{ json: string }>): Promise<Buffer> {
  const parts: Buffer[] = []
  let w = protobuf.Writer.create()
  for (let i = 0; i < items.length; i++) {
    w.uint32(itemTag)
    item.encodeDelimited(toMessage(item, JSON.parse(items[i]!.json)), w)
    if ((i + 1) % ITEMS_PER_TURN === 0) {
      parts.push(asBuffer(w.finish()))
      w = protobuf.Writer.create()
      await nextTurn()
    }
  }
  parts.push(asBuffer(w.finish()))
  return Buffer.concat(parts)
}

export interface ListParts {
  /** The answer's length in bytes. */
  length: number
  /** The answer in chunks of about `chunkBytes`, each item encoded when its chunk is asked for. */
  chunks: () => Generator<Buffer>
}

export interface ListTypes {
  /** The kind's `<Kind>List` and the envelope's `runtime.Unknown`. */
  list: protobuf.Type
  unknown: protobuf.Type
  prefix: Buffer
}

/**
 * The envelope of `<Kind>List` with `listMeta` and `items` (each item's stored JSON), as the
 * codec's encode would write it whole; undefined when an item's message cannot hold all of it
 * (the caller answers JSON, as for a list encoded whole) or the list message is not the plain
 * `metadata = 1; repeated items = 2` whose items can be appended last.
 */
export async function listParts (types: ListTypes, apiVersion: string, kind: string, listMeta: AnyObject,
  items: ReadonlyArray<{ json: string }>, chunkBytes: number, shared = false): Promise<ListParts | undefined> {
  const itemsField = types.list.fields.items
  const itemType = itemsField?.resolvedType
  // protobufjs writes fields in the order of their numbers: the items go last only if theirs is the highest.
  if (itemsField === undefined || !itemsField.repeated || !(itemType instanceof protobuf.Type) ||
    types.list.fieldsArray.some(f => f.id > itemsField.id)) return undefined
  const item: protobuf.Type = itemType
  const itemTag = lengthDelimited(itemsField.id)
  const messageOf = (json: string): AnyObject => toMessage(item, JSON.parse(json))
  if (shared) return await sharedParts(types, apiVersion, kind, listMeta, item, itemTag, items, chunkBytes)
  let head: Uint8Array
  const lengths = new Uint32Array(items.length)
  let rawLength = 0
  let known = lengthsByType.get(item)
  if (known === undefined) lengthsByType.set(item, known = new WeakMap())
  try {
    head = types.list.encode(toMessage(types.list, { apiVersion, kind, metadata: listMeta, items: [] })).finish()
    rawLength = head.length
    let encoded = 0
    for (let i = 0; i < items.length; i++) {
      let length = known.get(items[i]!)
      if (length === undefined) {
        // A writer's length is known before it is finished into bytes: nothing is copied here.
        length = item.encode(messageOf(items[i]!.json)).len
        known.set(items[i]!, length)
        if (++encoded % ITEMS_PER_TURN === 0) await nextTurn()
      }
      lengths[i] = length
      rawLength += varintSize(itemTag) + varintSize(length) + length
    }
  } catch (err) {
    if (err instanceof ConversionError) return undefined
    throw err
  }
  const opening = openingBytes(types, apiVersion, kind, head, rawLength)
  function * chunks (): Generator<Buffer> {
    let w = protobuf.Writer.create()
    yield opening
    for (let i = 0; i < items.length; i++) {
      w.uint32(itemTag).uint32(lengths[i]!)
      item.encode(messageOf(items[i]!.json), w)
      if (w.len >= chunkBytes) {
        yield asBuffer(w.finish())
        w = protobuf.Writer.create()
      }
    }
    if (w.len > 0) yield asBuffer(w.finish())
  }
  return { length: opening.length + rawLength - head.length, chunks }
}

/** The answer's bytes before its items: the envelope's prefix and head (`raw` of `rawLength` bytes), and the list's head. */
function openingBytes (types: ListTypes, apiVersion: string, kind: string, head: Uint8Array, rawLength: number): Buffer {
  const envelopeHead = types.unknown.encode({ typeMeta: { apiVersion, kind } })
    .uint32(lengthDelimited(types.unknown.fields.raw!.id)).uint32(rawLength).finish()
  return Buffer.concat([types.prefix, envelopeHead, head])
}

/** A shared page's list: its items' kept encoding, in slices of `chunkBytes`, after the list's own head. */
async function sharedParts (types: ListTypes, apiVersion: string, kind: string, listMeta: AnyObject, item: protobuf.Type, itemTag: number,
  items: ReadonlyArray<{ json: string }>, chunkBytes: number): Promise<ListParts | undefined> {
  let head: Uint8Array
  let bytes: Buffer
  try {
    head = types.list.encode(toMessage(types.list, { apiVersion, kind, metadata: listMeta, items: [] })).finish()
    bytes = await encodedItems(item, itemTag, items)
  } catch (err) {
    if (err instanceof ConversionError) return undefined
    throw err
  }
  const opening = openingBytes(types, apiVersion, kind, head, head.length + bytes.length)
  function * chunks (): Generator<Buffer> {
    yield opening
    for (let at = 0; at < bytes.length; at += chunkBytes) yield bytes.subarray(at, at + chunkBytes)
  }
  return { length: opening.length + bytes.length, chunks }
}
