// From the request info to the verb handler: the endpoint the path names, whether the verb is
// served there, the answer's representation, and the handler from the verb table.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { methodNotSupported, pathNotFound } from '../../resources/status.js'
import type { Resource, Verb } from '../../resources/define.js'
import type { RequestInfo } from '../request-info.js'
import type { EncodeOptions } from './encode.js'
import { serveConnect } from './connect.js'
import { deleteCollection, deleteOne } from './delete-verbs.js'
import { negotiate } from './negotiation.js'
import { includeObjectOf, wantsPretty, type Query } from './options.js'
import { get, list, watch } from './read-verbs.js'
import type { RestCall, RestContext, VerbHandler } from './rest-call.js'
import { aliasOf } from './served-form.js'
import { createVirtual } from './virtual-create.js'
import { getView, patchView, updateView } from './view-verbs.js'
import { create, createOnSubresource, patch, update } from './write-verbs.js'

const VERB_HANDLERS: Readonly<Record<Verb, VerbHandler>> = {
  get,
  list,
  watch,
  create,
  update,
  patch,
  delete: deleteOne,
  deletecollection: deleteCollection
}

const SUBRESOURCE_VERBS: readonly Verb[] = ['get', 'update', 'patch']

/** Whether `verb` is served where the path points: a collection, an object, or an object's subresource. */
function verbAllowed (verb: Verb, info: RequestInfo, r: Resource, subVerbs: readonly Verb[]): boolean {
  const sub = info.subresource
  if (!subVerbs.includes(verb)) return false
  if (verb === 'create' && sub !== '') return info.name !== '' && (r.subresources[sub]!.create !== undefined || r.subresources[sub]!.changeParent !== undefined)
  if (info.name === '') {
    // Across namespaces a namespaced kind can only be listed or watched.
    if (r.namespaced && info.namespace === '') return verb === 'list' || verb === 'watch'
    return verb === 'list' || verb === 'watch' || verb === 'create' || verb === 'deletecollection'
  }
  if (sub !== '' && r.subresources[sub]!.merge === undefined) return false
  return verb === 'get' || verb === 'update' || verb === 'patch' || (verb === 'delete' && sub === '')
}

const VIEW_HANDLERS: Partial<Record<Verb, VerbHandler>> = { get: getView, update: updateView, patch: patchView }

/** The handler for a verb the endpoint serves (a kind stored nowhere only creates). */
function handlerOf (verb: Verb, info: RequestInfo, r: Resource): VerbHandler {
  if (r.virtual !== undefined) return createVirtual
  if (info.subresource !== '' && r.subresources[info.subresource]!.view !== undefined) return VIEW_HANDLERS[verb]!
  if (verb === 'create' && info.subresource !== '') return createOnSubresource
  return VERB_HANDLERS[verb]
}

/** A CONNECT subresource answers no object: its encoding is never negotiated. */
const CONNECT_ENCODING: EncodeOptions = { repr: { as: 'json' }, pretty: false, includeObject: 'Metadata' }

/**
 * The call a REST request makes, its handler chosen; throws 404 for a path no kind serves, 405
 * for a verb it does not serve there, 406 for an answer the client cannot take.
 */
export function restCall (request: FastifyRequest, reply: FastifyReply, context: RestContext): RestCall {
  const info = request.requestInfo
  const registry = context.registry
  const store = registry.lookup(info.apiGroup, info.apiVersion, info.resource)
  if (store === undefined) throw pathNotFound()
  const r = store.resource
  // A kind served in another group's form: requests and answers are in that form (`served`),
  // the store sees the stored one.
  const converted = registry.converted(info.apiGroup, info.apiVersion, info.resource)
  // An older version with table columns of its own (a CRD version's printer columns) shows them.
  const older = converted === undefined && info.apiVersion !== r.version ? registry.olderVersion(info.apiGroup, info.apiVersion, info.resource) : undefined
  const served = converted?.served ?? (older?.columns === undefined ? r : { ...r, columns: older.columns })
  if (info.namespace !== '' && !served.namespaced) throw pathNotFound()
  const sub = info.subresource
  if (sub !== '' && served.subresources[sub] === undefined) throw pathNotFound()
  // Only a proxy subresource has a path past it (`pods/p/proxy/metrics`).
  if (info.parts.length > 3 && served.subresources[sub]?.connect?.carries !== 'proxy') throw pathNotFound()
  const verb = info.verb as Verb
  const query = request.query as Query
  let handler: VerbHandler
  let enc: EncodeOptions
  if (sub !== '' && served.subresources[sub]!.connect !== undefined) {
    const def = served.subresources[sub]!
    if (info.name === '' || !(def.verbs ?? []).includes(verb) || (request.method === 'HEAD' && def.connect!.carries !== 'proxy')) throw methodNotSupported(store.gr, request.method)
    handler = serveConnect
    enc = CONNECT_ENCODING
  } else {
    const subVerbs = sub === '' ? served.verbs : (served.subresources[sub]!.verbs ?? SUBRESOURCE_VERBS)
    if (!verbAllowed(verb, info, r, subVerbs)) throw methodNotSupported(store.gr, verb === ('' as Verb) ? request.method : verb)
    handler = handlerOf(verb, info, r)
    const transforms = verb === 'get' || verb === 'list' || verb === 'watch'
    enc = { repr: negotiate(request.headers.accept, transforms, request.server.protobuf.supports(served.apiVersion, served.kind, served.verbs.includes('list'))), pretty: wantsPretty(query), includeObject: includeObjectOf(query) }
  }
  return {
    request,
    reply,
    info,
    query,
    context,
    store,
    stored: r,
    served,
    converted,
    alias: aliasOf(info, r, served, converted),
    namespace: info.namespace,
    subresource: sub,
    enc,
    handler,
    caller: undefined
  }
}
