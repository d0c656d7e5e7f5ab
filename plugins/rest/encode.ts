// Writes answers in the negotiated representation; JSON objects go out as the stored bytes.
import type { FastifyReply } from 'fastify'
import { stringify as toYaml } from 'yaml'
import type { AnyObject, Resource } from '../../resources/define.js'
import { MEDIA_TYPES } from '../../resources/naming.js'
import type { Representation } from './negotiation.js'
import { partialObjectMetadata, table, type IncludeObject } from './table.js'

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

/** A list, concatenating the items' stored JSON without parsing it. */
export function sendList (reply: FastifyReply, r: Resource, items: Array<{ json: string }>, listMeta: AnyObject, o: EncodeOptions): FastifyReply {
  if (o.repr.as === 'Table') {
    const objs = items.map(i => JSON.parse(i.json) as AnyObject)
    return sendText(reply, 200, JSON.stringify(table(r, objs, listMeta, o.includeObject, o.repr.apiVersion)), { ...o, repr: { as: 'json' } })
  }
  if (o.repr.as === 'PartialObjectMetadata') {
    const body = { kind: 'PartialObjectMetadataList', apiVersion: o.repr.apiVersion, metadata: listMeta, items: items.map(i => partialObjectMetadata(JSON.parse(i.json), o.repr.as === 'PartialObjectMetadata' ? o.repr.apiVersion : '')) }
    return sendText(reply, 200, JSON.stringify(body), o)
  }
  let json = `{"kind":${JSON.stringify(r.listKind)},"apiVersion":${JSON.stringify(r.apiVersion)},"metadata":${JSON.stringify(listMeta)},"items":[`
  for (let i = 0; i < items.length; i++) json += (i === 0 ? '' : ',') + items[i]!.json
  json += ']}'
  return sendText(reply, 200, json, o)
}

/** A plain document (Status, discovery), honouring pretty and YAML. */
export const sendDocument = (reply: FastifyReply, code: number, doc: unknown, o: EncodeOptions): FastifyReply =>
  sendText(reply, code, JSON.stringify(doc), o)
