// /openapi/v2 (JSON and gnostic protobuf) and /openapi/v3 (index plus one document per group
// version), generated once the kinds are registered and cached with content-hash ETags.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { notAcceptable, pathNotFound } from '../../resources/status.js'
import { MEDIA_TYPES, SERVER_NAME } from '../../resources/naming.js'
import { versionInfo } from '../version.js'
import { buildV2, buildV3, contentHash, v2Document, type Document } from './documents.js'
import { encodeV2 } from './protobuf.js'

/** What kubectl 1.27 and 1.28 ask for. */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf'
/** What the answer is labelled, as upstream does: '@' is no token character, Go's mime parser refuses it. */
export const OPENAPI_V2_PROTOBUF_DOTTED = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'

type Wanted = 'json' | 'protobuf'

/** The first acceptable of JSON and (where served) the gnostic protobuf, in the client's order. */
function wanted (accept: string | undefined, protobuf: boolean): Wanted {
  if (accept === undefined || accept.trim() === '') return 'json'
  const ranges = accept.split(',').map((raw, i) => {
    const [type, ...params] = raw.split(';').map(s => s.trim().toLowerCase())
    const qp = params.find(p => p.startsWith('q='))
    return { type: type ?? '', q: qp === undefined ? 1 : Number(qp.slice(2)), i }
  }).filter(r => r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i)
  for (const r of ranges) {
    if (protobuf && (r.type === OPENAPI_V2_PROTOBUF || r.type === OPENAPI_V2_PROTOBUF_DOTTED)) return 'protobuf'
    if (r.type === MEDIA_TYPES.json || r.type === 'application/*' || r.type === '*/*') return 'json'
  }
  throw notAcceptable(protobuf ? [MEDIA_TYPES.json, OPENAPI_V2_PROTOBUF] : [MEDIA_TYPES.json])
}

const quote = (hash: string): string => `"${hash}"`

/** Answers 304 when the client already holds this version of the document. */
function notModified (request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  void reply.header('etag', etag).header('vary', 'Accept')
  const held = request.headers['if-none-match']
  if (held === undefined) return false
  return held.split(',').map(s => s.trim().replace(/^W\//, '')).includes(etag)
}

export default fp(async function openapi (fastify: FastifyInstance) {
  const title = SERVER_NAME
  let v3: Map<string, Document> | undefined
  let v2: { json: Document, protobuf: Buffer, protobufHash: string } | undefined
  const resources = () => fastify.resources.served()

  // The documents are built on first use, and again once the served kinds changed (a
  // CustomResourceDefinition came or went).
  let builtAt = -1
  const current = (): void => {
    if (builtAt === fastify.resources.generation) return
    builtAt = fastify.resources.generation
    v3 = undefined
    v2 = undefined
  }
  const v3Docs = (): Map<string, Document> => {
    current()
    return (v3 ??= buildV3(resources(), title, versionInfo.gitVersion))
  }
  const v2Docs = () => {
    current()
    if (v2 === undefined) {
      const doc = buildV2(resources(), title, versionInfo.gitVersion)
      const protobuf = Buffer.from(encodeV2(doc))
      v2 = { json: v2Document(doc), protobuf, protobufHash: contentHash(protobuf.toString('base64')) }
    }
    return v2
  }

  fastify.get('/openapi/v2', async (request, reply) => {
    const as = wanted(request.headers.accept, true)
    const docs = v2Docs()
    if (as === 'protobuf') {
      if (notModified(request, reply, quote(docs.protobufHash))) return reply.code(304).send()
      return reply.code(200).type(OPENAPI_V2_PROTOBUF_DOTTED).send(docs.protobuf)
    }
    if (notModified(request, reply, quote(docs.json.hash))) return reply.code(304).send()
    return reply.code(200).type(MEDIA_TYPES.json).send(docs.json.json)
  })

  fastify.get('/openapi/v3', async (request, reply) => {
    wanted(request.headers.accept, false)
    const paths: Record<string, { serverRelativeURL: string }> = {}
    for (const [gv, doc] of v3Docs()) paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${doc.hash}` }
    return reply.code(200).type(MEDIA_TYPES.json).send(JSON.stringify({ paths }))
  })

  fastify.get('/openapi/v3/*', async (request, reply) => {
    wanted(request.headers.accept, false)
    const gv = (request.params as { '*': string })['*'].replace(/\/+$/, '')
    const doc = v3Docs().get(gv)
    if (doc === undefined) throw pathNotFound()
    const asked = (request.query as Record<string, string | undefined>).hash
    if (asked !== undefined && asked !== '') {
      // A stale hash is sent to the current document, as upstream does; a matching one is immutable.
      if (asked !== doc.hash) return reply.code(301).header('location', `/openapi/v3/${gv}?hash=${doc.hash}`).send()
      void reply.header('cache-control', 'public, immutable').header('expires', new Date(Date.now() + 365 * 86400_000).toUTCString())
    }
    if (notModified(request, reply, quote(doc.hash))) return reply.code(304).send()
    return reply.code(200).type(MEDIA_TYPES.json).send(doc.json)
  })
}, { name: 'openapi', dependencies: ['rest'] })
