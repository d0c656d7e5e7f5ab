// Request bodies, kept as bytes by the plugin's content type parser and decoded here by the
// handler, which knows which media types fit: JSON, YAML or protobuf, bounded in depth, and
// scanned for repeated keys as fieldValidation asks.
import type { FastifyRequest } from 'fastify'
import { parse as parseYaml } from 'yaml'
import { ApiError, badRequest, strictDecodingError, unsupportedMediaType } from '../../resources/status.js'
import type { AnyObject } from '../../resources/define.js'
import { GROUPS, MEDIA_TYPES } from '../../resources/naming.js'
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPES } from '../protobuf/index.js'
import { jsonTooDeep, valueTooDeep } from './bounded-decode.js'
import { duplicateFields } from './duplicate-fields.js'
import type { FieldValidation } from './options.js'
import type { Caller } from './store.js'

const BODY_TYPES = [MEDIA_TYPES.json, MEDIA_TYPES.yaml, ...PROTOBUF_MEDIA_TYPES]

/** The reference decoder's words for a body nested past MAX_NESTING_DEPTH. */
export const DEPTH_ERROR = 'exceeded max depth'

/** The request's media type, without parameters. */
export function mediaType (request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
}

const looksLikeJson = (text: string): boolean => /^\s*\{/.test(text)

// A write's body is decoded, then scanned for repeated keys at once (checkDuplicates): the text
// of the body last decoded is kept for that scan, which lets it go, rather than decoded again (a
// copy of the body per write). Keyed by the body itself, so another request's scan only misses.
let lastBody: Buffer | undefined
let lastText = ''

function textOf (body: Buffer): string {
  if (body === lastBody) return lastText
  return body.toString('utf8')
}

/**
 * Parses a JSON or YAML request body into a value; malformed bodies are 400, and so are bodies
 * nested past MAX_NESTING_DEPTH (`tooDeep` words that error as the caller's decoder would).
 */
export function decodeBody (request: FastifyRequest, allowed: string[], tooDeep: () => ApiError): unknown {
  // No Content-Type at all reads as the first serializer, JSON, as the reference's decoder does
  // (Patroni posts without one).
  const sent = mediaType(request)
  const type = sent === '' && allowed.includes(MEDIA_TYPES.json) ? MEDIA_TYPES.json : sent
  const body = request.body as Buffer | undefined
  if (!allowed.includes(type)) throw unsupportedMediaType(type, allowed)
  if (body === undefined || body.length === 0) throw badRequest('the request body is empty')
  const text = body.toString('utf8')
  lastBody = body
  lastText = text
  // Apply bodies are mostly JSON (kubectl, client libraries), which JSON.parse reads a
  // hundred times faster than the YAML parser; anything else is read as YAML.
  const yaml = type === MEDIA_TYPES.yaml || (type === MEDIA_TYPES.applyPatch && !looksLikeJson(text))
  if (!yaml && jsonTooDeep(body)) throw tooDeep()
  let value: unknown
  try {
    value = yaml ? parseYaml(text, { uniqueKeys: true }) : JSON.parse(text)
  } catch (err) {
    // The YAML parser recurses through flow collections ({a: {a: ...}}): deep enough, it runs
    // out of stack before the depth check below could see the value, and says so in
    // JavaScript's words (RESOURCE_EXHAUSTION); that is this bound's error.
    if (err instanceof RangeError || (err as { code?: string }).code === 'RESOURCE_EXHAUSTION') throw tooDeep()
    throw badRequest(`the request body could not be decoded: ${(err as Error).message.split('\n')[0]}`)
  }
  if (yaml && valueTooDeep(value)) throw tooDeep()
  return value
}

/** The reference server's words for an object body its decoder refused (transformDecodeError). */
const undecodableObject = (kind: string, body: Buffer | undefined, why: string): ApiError => {
  const bytes = body ?? Buffer.alloc(0)
  const head = bytes.subarray(0, 30)
  const summary = bytes.length === 0 ? '<empty>' : bytes[0] === 0x7b ? head.toString('utf8') + (bytes.length > 30 ? ' ...' : '') : head.toString('hex') + (bytes.length > 30 ? ' ...' : '')
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): ${why} (${summary})`)
}

/**
 * An object body of `kind` (of the path's group version unless `apiVersion` says another) in any
 * of the body media types; protobuf's type meta is checked as it is read.
 */
export function decodeRequestObject (request: FastifyRequest, kind: string, apiVersion?: string, alsoAccepted: readonly string[] = []): AnyObject {
  if (PROTOBUF_MEDIA_TYPES.includes(mediaType(request))) {
    const { apiGroup, apiVersion: pathVersion } = request.requestInfo
    const expected = { apiVersion: apiVersion ?? (apiGroup === '' ? pathVersion : `${apiGroup}/${pathVersion}`), kind }
    return decodeProtobufObject(request.server.protobuf, request.body as Buffer | undefined, expected, kind === 'DeleteOptions' ? [`${GROUPS.meta}/v1`] : [...alsoAccepted], apiVersion !== undefined)
  }
  const value = decodeBody(request, BODY_TYPES, () => undecodableObject(kind, request.body as Buffer | undefined, `couldn't get version/kind; json parse error: ${DEPTH_ERROR}`))
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`the object provided is unrecognized (must be of type ${kind})`)
  }
  return value as AnyObject
}

/**
 * Repeated keys in a JSON body: warned under Warn; under Strict handed to the store, which
 * refuses them with the unknown fields it finds (`patch`: the body is a patch), or refused
 * here when no object check follows (server-side apply).
 */
export function checkDuplicates (request: FastifyRequest, fv: FieldValidation, c: Caller, patch: boolean, checkedByStore = true): void {
  if (fv === 'Strict') c.strict = { duplicates: [], patch }
  const type = mediaType(request)
  if (fv === 'Ignore' || !(type.endsWith('json') || type === MEDIA_TYPES.applyPatch)) return
  const body = request.body as Buffer | undefined
  if (body === undefined || body.length === 0) return
  const text = textOf(body)
  lastBody = undefined
  lastText = ''
  if (type === MEDIA_TYPES.applyPatch && !looksLikeJson(text)) return
  const dups = duplicateFields(text)
  if (dups.length === 0) return
  if (fv === 'Strict') {
    if (!checkedByStore) throw strictDecodingError(dups, [])
    c.strict!.duplicates = dups
  } else for (const f of dups) c.warnings.push(`duplicate field "${f}"`)
}
