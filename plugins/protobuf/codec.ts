// The protobuf wire format of the reference server: a 4-byte magic prefix, then a runtime.Unknown
// whose typeMeta names the kind and whose raw holds the kind's message. Watch streams are frames
// of a 4-byte big-endian length and a bare WatchEvent whose object is such an envelope.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import { PROTOBUF_ENVELOPE_MAGIC } from '../../resources/naming.js'
import type { AnyObject } from '../../resources/define.js'
import { RESOURCES } from '../../resources/index.js'
import { ConversionError, fromMessage, toMessage } from './convert.js'
import { groupPrefix, kindForms, protoPackage, SchemaMessageBuilder } from './schema-messages.js'
import { listParts, type ListParts } from './list-stream.js'

/** The magic bytes before every enveloped message. */
export const ENVELOPE_PREFIX = Buffer.from(PROTOBUF_ENVELOPE_MAGIC)

const PROTO_DIR = fileURLToPath(new URL('./proto/', import.meta.url))
const PROTO_FILES = ['runtime.proto', 'meta.proto', 'authentication.proto', 'storage.proto', 'policy.proto', 'policy-v1beta1.proto']

/** Kinds of meta/v1 that every group version carries (upstream's AddToGroupVersion). */
const META_KINDS = new Set(['Status', 'DeleteOptions', 'WatchEvent'])

/** A body the codec cannot read; rendered as 400 by the caller. */
export class EnvelopeError extends Error {}

export interface TypeMeta { apiVersion: string, kind: string }

const splitApiVersion = (apiVersion: string): { group: string, version: string } => {
  const i = apiVersion.lastIndexOf('/')
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) }
}

/** Whether two apiVersions name the same group and version, counting a group and its upstream twin as one. */
export function sameApiVersion (a: string, b: string): boolean {
  const x = splitApiVersion(a)
  const y = splitApiVersion(b)
  return x.version === y.version && (x.group === y.group || (groupPrefix(x.group) !== undefined && groupPrefix(x.group) === groupPrefix(y.group)))
}

/**
 * The hand-written messages (the envelope, meta's and runtime's types, kinds no schema describes),
 * not yet resolved: they name messages the schemas describe, built afterwards.
 */
export function loadProtoFiles (): protobuf.Root {
  const root = new protobuf.Root()
  for (const file of PROTO_FILES) protobuf.parse(readFileSync(PROTO_DIR + file, 'utf8'), root, { keepCase: true })
  return root
}

/** The built messages: the hand-written ones and every kind's, resolved. */
interface Messages { root: protobuf.Root, unknown: protobuf.Type, watchEvent: protobuf.Type }

function buildMessages (): Messages {
  const root = loadProtoFiles()
  new SchemaMessageBuilder(root).addKinds(kindForms(RESOURCES))
  root.resolveAll()
  return { root, unknown: root.lookupType('runtime.Unknown'), watchEvent: root.lookupType('meta.v1.WatchEvent') }
}

export class ProtobufCodec {
  /**
   * Built at the first use, not when the server starts: building takes about a tenth of a second
   * of the one thread, which a start at scale spends filling the caches (`warm` builds it once the
   * server is up).
   */
  private built: Messages | undefined

  private constructor () {}

  /** The codec; its messages are built when first needed (or by `warm`). */
  static async load (): Promise<ProtobufCodec> {
    return new ProtobufCodec()
  }

  private get messagesBuilt (): Messages {
    this.built ??= buildMessages()
    return this.built
  }

  private get unknown (): protobuf.Type { return this.messagesBuilt.unknown }
  private get watchEvent (): protobuf.Type { return this.messagesBuilt.watchEvent }

  /** Builds the messages now, if no request has yet. */
  warm (): void {
    void this.messagesBuilt
  }

  /** Every request asks for its kind's message; protobufjs's lookup walks the namespace tree. */
  private readonly messages = new Map<string, protobuf.Type | undefined>()

  /** The message type of a kind, if this server has one. */
  messageOf (apiVersion: string, kind: string): protobuf.Type | undefined {
    const key = `${apiVersion}\u0000${kind}`
    if (this.messages.has(key)) return this.messages.get(key)
    const type = this.lookupMessage(apiVersion, kind)
    // Bodies name arbitrary kinds: misses are remembered only up to a bound.
    if (type !== undefined || this.messages.size < 4096) this.messages.set(key, type)
    return type
  }

  private lookupMessage (apiVersion: string, kind: string): protobuf.Type | undefined {
    const { group, version } = splitApiVersion(apiVersion)
    if (!/^[A-Za-z0-9]+$/.test(version) || !/^[A-Za-z0-9]+$/.test(kind)) return undefined
    const pkg = protoPackage(group)
    const name = META_KINDS.has(kind) ? `meta.v1.${kind}` : pkg === undefined ? undefined : `${pkg}.${version}.${kind}`
    if (name === undefined) return undefined
    const found = this.messagesBuilt.root.lookup(name)
    return found instanceof protobuf.Type ? found : undefined
  }

  /** Whether objects of this kind, and their lists when it is `listed`, can be answered in protobuf. */
  supports (apiVersion: string, kind: string, listed = true): boolean {
    return this.messageOf(apiVersion, kind) !== undefined && (!listed || this.messageOf(apiVersion, `${kind}List`) !== undefined)
  }

  /**
   * The envelope of a JSON object carrying its own apiVersion and kind. A field the message lacks
   * throws ConversionError, unless `lenient` (then the field is left out).
   */
  encode (obj: AnyObject, lenient = false): Buffer {
    const apiVersion = String(obj.apiVersion ?? '')
    const kind = String(obj.kind ?? '')
    const type = this.messageOf(apiVersion, kind)
    if (type === undefined) throw new EnvelopeError(`no protobuf message for ${apiVersion}, Kind=${kind}`)
    const raw = type.encode(toMessage(type, obj, '', lenient)).finish()
    const unknown = this.unknown.encode({ typeMeta: { apiVersion, kind }, raw }).finish()
    return Buffer.concat([ENVELOPE_PREFIX, unknown])
  }

  /** The envelope of `obj`, or undefined when its message cannot hold all of it (the caller answers JSON). */
  tryEncode (obj: AnyObject): Buffer | undefined {
    try {
      return this.encode(obj)
    } catch (err) {
      if (err instanceof ConversionError || err instanceof EnvelopeError) return undefined
      throw err
    }
  }

  /**
   * A list's envelope in chunks, encoded as they are read (see list-stream.ts); undefined when the
   * kind has no list message or an item's message cannot hold it (then the list is answered in JSON).
   */
  async listInChunks (apiVersion: string, listKind: string, listMeta: AnyObject, items: ReadonlyArray<{ json: string }>, chunkBytes: number,
    shared = false): Promise<ListParts | undefined> {
    const list = this.messageOf(apiVersion, listKind)
    if (list === undefined) return undefined
    return await listParts({ list, unknown: this.unknown, prefix: ENVELOPE_PREFIX }, apiVersion, listKind, listMeta, items, chunkBytes, shared)
  }

  /** The typeMeta and raw message of an envelope; a missing prefix or an undecodable body throws. */
  open (body: Uint8Array): { typeMeta: TypeMeta, raw: Uint8Array, contentEncoding: string, contentType: string } {
    if (body.length < ENVELOPE_PREFIX.length || !ENVELOPE_PREFIX.equals(body.subarray(0, ENVELOPE_PREFIX.length))) {
      throw new EnvelopeError('the body does not start with the protobuf envelope prefix')
    }
    let u: AnyObject
    try {
      u = this.unknown.decode(body.subarray(ENVELOPE_PREFIX.length)) as AnyObject
    } catch (err) {
      throw new EnvelopeError(`the protobuf envelope could not be decoded: ${(err as Error).message}`)
    }
    return {
      typeMeta: { apiVersion: u.typeMeta?.apiVersion ?? '', kind: u.typeMeta?.kind ?? '' },
      raw: u.raw ?? new Uint8Array(),
      contentEncoding: u.contentEncoding ?? '',
      contentType: u.contentType ?? ''
    }
  }

  /**
   * The JSON object of an envelope. An empty typeMeta takes `fallback`'s; the object's apiVersion
   * and kind come first, as in a JSON body.
   */
  decode (body: Uint8Array, fallback?: TypeMeta): AnyObject {
    const env = this.open(body)
    if (env.contentEncoding !== '') throw new EnvelopeError(`unsupported content encoding ${JSON.stringify(env.contentEncoding)}`)
    const apiVersion = env.typeMeta.apiVersion || fallback?.apiVersion || ''
    const kind = env.typeMeta.kind || fallback?.kind || ''
    const type = this.messageOf(apiVersion, kind)
    if (type === undefined) throw new EnvelopeError(`no kind "${kind}" is registered for version "${apiVersion}"`)
    try {
      const { apiVersion: _a, kind: _k, ...rest } = fromMessage(type, type.decode(env.raw)) as AnyObject
      return { apiVersion, kind, ...rest }
    } catch (err) {
      throw new EnvelopeError(`the ${kind} could not be decoded: ${(err as Error).message}`)
    }
  }

  /**
   * One frame of a protobuf watch stream. A stream cannot change its media type midway, so a
   * field the message lacks is left out here (the kinds served have complete messages).
   */
  watchFrame (type: string, obj: AnyObject): Buffer {
    const event = this.watchEvent.encode({ type, object: { raw: this.encode(obj, true) } }).finish()
    const frame = Buffer.allocUnsafe(4 + event.length)
    frame.writeUInt32BE(event.length, 0)
    frame.set(event, 4)
    return frame
  }

  /** The events of a protobuf watch stream body, each object decoded to JSON. */
  readWatchFrames (body: Uint8Array): Array<{ type: string, object: AnyObject }> {
    const events: Array<{ type: string, object: AnyObject }> = []
    const buf = Buffer.from(body.buffer, body.byteOffset, body.length)
    for (let at = 0; at + 4 <= buf.length;) {
      const length = buf.readUInt32BE(at)
      if (at + 4 + length > buf.length) throw new EnvelopeError('a watch frame is cut short')
      const e = this.watchEvent.decode(buf.subarray(at + 4, at + 4 + length)) as AnyObject
      events.push({ type: e.type, object: this.decode(e.object?.raw ?? new Uint8Array()) })
      at += 4 + length
    }
    return events
  }
}

export { ConversionError }
