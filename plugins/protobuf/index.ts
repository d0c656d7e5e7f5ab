// The protobuf plugin: builds the message types once at start (from the schemas and the
// hand-written .proto files), decorates `fastify.protobuf` with the codec, and answers error
// Statuses in protobuf to clients that ask for it first.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { badRequest, unsupportedMediaType } from '../../resources/status.js'
import { MEDIA_TYPES } from '../../resources/naming.js'
import type { AnyObject } from '../../resources/define.js'
import { negotiate } from '../rest/negotiation.js'
import { EnvelopeError, ProtobufCodec, sameApiVersion, type TypeMeta } from './codec.js'

declare module 'fastify' {
  interface FastifyInstance { protobuf: ProtobufCodec }
}

/** Past the start's last steps (its post-start hooks, the first readiness probes). */
const WARM_AFTER_LISTEN_MS = 1000

export const PROTOBUF_MEDIA_TYPES: readonly string[] = [MEDIA_TYPES.protobuf, MEDIA_TYPES.upstreamProtobuf]

/**
 * The JSON object of a protobuf request body. Its typeMeta must name `expected` (or one of
 * `alsoAccepted`, for DeleteOptions that name meta's group version); an empty one means `expected`.
 * A kind that is not of the URL's group (a subresource's, as TokenRequest on serviceaccounts/token)
 * is read in the group its typeMeta names.
 */
/**
 * `keepApiVersion`: the object keeps the group spelling its envelope names (a subresource's request
 * kind, answered in the spelling the client used) rather than reading as the URL's group.
 */
export function decodeProtobufObject (codec: ProtobufCodec, body: Buffer | undefined, expected: TypeMeta, alsoAccepted: string[] = [], keepApiVersion = false): AnyObject {
  if (body === undefined || body.length === 0) throw badRequest('the request body is empty')
  let typeMeta: TypeMeta
  try {
    typeMeta = codec.open(body).typeMeta
  } catch (err) {
    throw badRequest((err as Error).message)
  }
  const apiVersion = typeMeta.apiVersion || expected.apiVersion
  const kind = typeMeta.kind || expected.kind
  const ofUrlGroup = codec.messageOf(expected.apiVersion, expected.kind) !== undefined
  const ofBodyGroup = codec.messageOf(apiVersion, expected.kind) !== undefined
  // Kinds without a message (custom and aggregated kinds, kinds not yet described) take JSON and YAML only.
  if (!ofUrlGroup && !ofBodyGroup) throw unsupportedMediaType(MEDIA_TYPES.upstreamProtobuf, [MEDIA_TYPES.json, MEDIA_TYPES.yaml])
  const versionFits = sameApiVersion(apiVersion, expected.apiVersion) || alsoAccepted.some(v => sameApiVersion(apiVersion, v)) || (!ofUrlGroup && ofBodyGroup)
  if (!versionFits) {
    throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expected.apiVersion})`)
  }
  if (kind !== expected.kind) {
    throw badRequest(`${kind} in version "${apiVersion}" cannot be handled as a ${expected.kind}: the kind of the object does not match`)
  }
  try {
    const obj = codec.decode(body, { apiVersion, kind })
    // A twin group name in the body reads as the group of the URL, as the JSON path sees it.
    if (!keepApiVersion && sameApiVersion(apiVersion, expected.apiVersion)) obj.apiVersion = expected.apiVersion
    return obj
  } catch (err) {
    if (err instanceof EnvelopeError) throw badRequest(err.message)
    throw err
  }
}

/** The protobuf media type the request asks for before anything else, if it does. */
function protobufAsked (request: FastifyRequest): string | undefined {
  try {
    const repr = negotiate(request.headers.accept, false, true)
    return repr.as === 'protobuf' ? repr.mediaType : undefined
  } catch {
    return undefined
  }
}

export default fp(async function protobuf (fastify: FastifyInstance) {
  const codec = await ProtobufCodec.load()
  fastify.decorate('protobuf', codec)
  // The messages are built at their first use; a server left alone builds them soon after it
  // listens, so a client's first protobuf request does not wait for them.
  fastify.addHook('onListen', async () => { setTimeout(() => { codec.warm() }, WARM_AFTER_LISTEN_MS).unref() })

  // Errors are rendered as JSON app-wide; a client that asked for protobuf reads them as a Status message.
  fastify.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode < 400 || typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith(MEDIA_TYPES.json)) return payload
    const mediaType = protobufAsked(request)
    if (mediaType === undefined) return payload
    let status: AnyObject
    try {
      status = JSON.parse(payload) as AnyObject
    } catch {
      return payload
    }
    if (status?.kind !== 'Status') return payload
    const body = fastify.protobuf.tryEncode(status)
    if (body === undefined) return payload
    void reply.type(mediaType)
    return body
  })
}, { name: 'protobuf', dependencies: ['errors'] })
