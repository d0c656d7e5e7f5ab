// The generic REST plugin: one handler per verb for every registered kind, dispatched from the
// request info; kinds add themselves through `fastify.resources.add`.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { parse as parseYaml } from 'yaml'
import { ApiError, badRequest, invalid, methodNotSupported, pathNotFound, strictDecodingError, unsupportedMediaType } from '../../resources/status.js'
import { keyPrefix, type AnyObject, type ConvertedVersion, type Resource, type Verb, type VersionLifecycle } from '../../resources/define.js'
import { GROUPS, MEDIA_TYPES } from '../../resources/naming.js'
import { GenericStore, type Caller } from './store.js'
import { negotiate } from './negotiation.js'
import { includeObjectOf, parseDeleteOptions, parseListOptions, parseWriteOptions, wantsPretty, type FieldValidation, type ListOptions } from './options.js'
import { checkAgainstSchema } from '../../machinery/schema-check.js'
import { sendDocument, sendList, sendObject, type EncodeOptions } from './encode.js'
import { MAX_BUFFERED_BYTES, serveWatch, type WatchSettings } from './watch.js'
import { applyPatch, PATCH_TYPES } from '../../machinery/patch.js'
import { serverSideApply } from './apply-request.js'
import { defaultManager } from '../../machinery/managed-fields.js'
import { duplicateFields } from './duplicate-fields.js'
import { jsonTooDeep, valueTooDeep } from './bounded-decode.js'
import { warningHeaders } from './warnings.js'
import { connectOptions, unreachableStream } from './connect.js'
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPES } from '../protobuf/index.js'
import { featureGates, type FeatureGates } from '../../resources/feature-gates.js'
import { createPools, type PoolDefinition, type StoragePools } from '../../storage/value-pools.js'
import type { ResourceRegistry } from './resource-registry.js'

export const BODY_LIMIT = 3 * 1024 * 1024

declare module 'fastify' {
  interface FastifyInstance {
    /** Ends every open watch stream cleanly (graceful shutdown). */
    endWatches (): void
    /** The value pools kinds claim from (a Service's addresses and ports). */
    pools: StoragePools
  }
}

type Query = Record<string, string | string[] | undefined>

/** A kind served in another group version: the conversion, and the served kind as discovery lists it. */
export interface ConvertedServing { conversion: ConvertedVersion, served: Resource }

const BODY_TYPES = [MEDIA_TYPES.json, MEDIA_TYPES.yaml, ...PROTOBUF_MEDIA_TYPES]

function mediaType (request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase()
}

/**
 * Parses a JSON or YAML request body into a value; malformed bodies are 400, and so are bodies
 * nested past MAX_NESTING_DEPTH (`tooDeep` words that error as the caller's decoder would).
 */
function decodeBody (request: FastifyRequest, allowed: string[], tooDeep: () => ApiError): unknown {
  const type = mediaType(request)
  const body = request.body as Buffer | undefined
  if (!allowed.includes(type)) throw unsupportedMediaType(type, allowed)
  if (body === undefined || body.length === 0) throw badRequest('the request body is empty')
  const text = body.toString('utf8')
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

const looksLikeJson = (text: string): boolean => /^\s*\{/.test(text)

/** The reference server's words for an object body its decoder refused (transformDecodeError). */
const undecodableObject = (kind: string, body: Buffer | undefined, why: string): ApiError => {
  const bytes = body ?? Buffer.alloc(0)
  const head = bytes.subarray(0, 30)
  const summary = bytes.length === 0 ? '<empty>' : bytes[0] === 0x7b ? head.toString('utf8') + (bytes.length > 30 ? ' ...' : '') : head.toString('hex') + (bytes.length > 30 ? ' ...' : '')
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): ${why} (${summary})`)
}

const DEPTH_ERROR = 'exceeded max depth'

function decodeRequestObject (request: FastifyRequest, kind: string): AnyObject {
  if (PROTOBUF_MEDIA_TYPES.includes(mediaType(request))) {
    const { apiGroup, apiVersion } = request.requestInfo
    const expected = { apiVersion: apiGroup === '' ? apiVersion : `${apiGroup}/${apiVersion}`, kind }
    return decodeProtobufObject(request.server.protobuf, request.body as Buffer | undefined, expected, kind === 'DeleteOptions' ? [`${GROUPS.meta}/v1`] : [])
  }
  const value = decodeBody(request, BODY_TYPES, () => undecodableObject(kind, request.body as Buffer | undefined, `couldn't get version/kind; json parse error: ${DEPTH_ERROR}`))
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest(`the object provided is unrecognized (must be of type ${kind})`)
  }
  return value as AnyObject
}

export interface RestOptions {
  watch?: Partial<WatchSettings>
  /** Whether a kind's group version is served (--runtime-config); a kind not served is still stored. */
  served?: (group: string, version: string, plural: string, removed?: boolean) => boolean
  /** --feature-gates; every gate at its default when absent. */
  features?: FeatureGates
  /** The value pools configured by flags (--service-cluster-ip-range, --service-node-port-range). */
  pools?: readonly PoolDefinition[]
}

export default fp(async function rest (fastify: FastifyInstance, opts: RestOptions) {
  const stores: GenericStore[] = []
  const served: Resource[] = []
  const olderVersions = new Map<string, VersionLifecycle>()
  const convertedVersions = new Map<string, ConvertedServing>()
  const byPath = new Map<string, GenericStore>()
  const byGroupResource = new Map<string, GenericStore>()
  const watchSettings: WatchSettings = {
    bookmarkIntervalMs: opts.watch?.bookmarkIntervalMs ?? 10_000,
    maxBufferedBytes: opts.watch?.maxBufferedBytes ?? MAX_BUFFERED_BYTES,
    open: new Set()
  }
  // Shutdown ends the open watch streams as a client expects a watch to end: its last chunk
  // written, so it re-watches elsewhere (plugins/shutdown.ts decides when).
  fastify.decorate('endWatches', () => { for (const finish of [...watchSettings.open!]) finish() })
  const pools = createPools(fastify.storage, opts.pools ?? [])
  fastify.decorate('pools', pools)

  const registry: ResourceRegistry = {
    add (resource) {
      const cache = fastify.watchCaches.register(keyPrefix(resource), (obj: AnyObject) => store.attrs(obj))
      // Its own subresource table: addSubresource must not reach kinds of other app instances.
      const store: GenericStore = new GenericStore({ ...resource, subresources: { ...resource.subresources } }, fastify.storage, cache, fastify.admission, registry, pools)
      stores.push(store)
      byGroupResource.set(`${resource.plural}.${resource.group}`, store)
      if (opts.served?.(resource.group, resource.version, resource.plural) !== false) {
        served.push(store.resource)
        byPath.set(`${resource.group}/${resource.version}/${resource.plural}`, store)
      }
      // Older versions: the same store, the objects' apiVersion rewritten on the way in and out.
      for (const older of resource.olderVersions ?? []) {
        if (opts.served?.(resource.group, older.version, resource.plural, older.removed !== undefined) === false) continue
        const path = `${resource.group}/${older.version}/${resource.plural}`
        served.push({ ...store.resource, version: older.version, apiVersion: `${resource.group}/${older.version}` })
        byPath.set(path, store)
        olderVersions.set(path, older)
      }
      // Other groups' forms of the kind: the same store, objects converted on the way in and out.
      for (const conversion of resource.servedAs ?? []) {
        if (opts.served?.(conversion.group, conversion.version, resource.plural, conversion.removed !== undefined) === false) continue
        const path = `${conversion.group}/${conversion.version}/${resource.plural}`
        const view: Resource = {
          ...store.resource,
          group: conversion.group,
          version: conversion.version,
          apiVersion: `${conversion.group}/${conversion.version}`,
          kind: conversion.kind,
          listKind: `${conversion.kind}List`,
          schema: conversion.schema,
          columns: conversion.columns,
          fieldSelectors: undefined,
          subresources: {},
          // A deprecated form lists itself, as the deprecation hooks look for.
          olderVersions: conversion.deprecated === undefined ? undefined : [conversion],
          servedAs: undefined
        }
        served.push(view)
        byPath.set(path, store)
        // find() by the served group reaches the store too (discovery's storage version hash).
        byGroupResource.set(`${resource.plural}.${conversion.group}`, store)
        convertedVersions.set(path, { conversion, served: view })
        if (conversion.deprecated !== undefined) olderVersions.set(path, conversion)
      }
      return store
    },
    all: () => stores,
    features: opts.features ?? featureGates(),
    served: () => served,
    olderVersion: (group, version, plural) => olderVersions.get(`${group}/${version}/${plural}`),
    converted: (group, version, plural) => convertedVersions.get(`${group}/${version}/${plural}`),
    lookup: (group, version, plural) => byPath.get(`${group}/${version}/${plural}`),
    find: ({ group, resource: plural }) => byGroupResource.get(`${plural}.${group}`),
    addSubresource ({ group, resource: plural }, name, def) {
      const store = byGroupResource.get(`${plural}.${group}`)
      if (store === undefined) throw new Error(`subresource ${name} of unknown resource ${plural}.${group}`)
      store.resource.subresources[name] = def
    }
  }
  fastify.decorate('resources', registry)

  // Bodies are kept as bytes and decoded by the handler, which knows which media types fit.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => { done(null, body) })

  /** Each write's caller, so a refused write still relays what admission gathered (as the reference server's warning and audit recorders do). */
  const callers = new WeakMap<FastifyRequest, Caller>()
  const caller = (request: FastifyRequest, fieldManager?: string): Caller => {
    const { apiGroup, apiVersion } = request.requestInfo
    const c: Caller = { user: request.user, manager: fieldManager ?? defaultManager(request.headers['user-agent']), warnings: [], requestVersion: apiGroup === '' ? apiVersion : `${apiGroup}/${apiVersion}` }
    callers.set(request, c)
    return c
  }

  /**
   * Repeated keys in a JSON body: warned under Warn; under Strict handed to the store, which
   * refuses them with the unknown fields it finds (`patch`: the body is a patch), or refused
   * here when no object check follows (server-side apply).
   */
  const checkDuplicates = (request: FastifyRequest, fv: FieldValidation, c: Caller, patch: boolean, checkedByStore = true): void => {
    if (fv === 'Strict') c.strict = { duplicates: [], patch }
    const type = mediaType(request)
    if (fv === 'Ignore' || !(type.endsWith('json') || type === MEDIA_TYPES.applyPatch)) return
    const body = request.body as Buffer | undefined
    if (body === undefined || body.length === 0) return
    if (type === MEDIA_TYPES.applyPatch && !looksLikeJson(body.toString('utf8'))) return
    const dups = duplicateFields(body.toString('utf8'))
    if (dups.length === 0) return
    if (fv === 'Strict') {
      if (!checkedByStore) throw strictDecodingError(dups, [])
      c.strict!.duplicates = dups
    } else for (const f of dups) c.warnings.push(`duplicate field "${f}"`)
  }

  /** What a write gathered beside its object: warnings for the client, annotations for the audit log. */
  const relay = (reply: FastifyReply, c: Caller): void => {
    if (c.warnings.length > 0) void reply.header('warning', warningHeaders(c.warnings))
    if (c.auditAnnotations !== undefined) {
      for (const [key, value] of Object.entries(c.auditAnnotations)) reply.server.audit.annotate(reply.request, key, value, reply.server.admission.auditLevel(key))
    }
  }

  async function dispatchRelayingOnError (request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    try {
      return await dispatch(request, reply)
    } catch (err) {
      const c = callers.get(request)
      if (c !== undefined) relay(reply, c)
      throw err
    }
  }

  async function dispatch (request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const info = request.requestInfo
    const query = request.query as Query
    const store = registry.lookup(info.apiGroup, info.apiVersion, info.resource)
    if (store === undefined) throw pathNotFound()
    const r = store.resource
    // A kind served in another group's form: requests and answers are in that form (`served`),
    // the store sees the stored one.
    const converted = registry.converted(info.apiGroup, info.apiVersion, info.resource)
    const served = converted?.served ?? r
    const gr = store.gr
    if (info.namespace !== '' && !served.namespaced) throw pathNotFound()
    if (info.parts.length > 3) throw pathNotFound()
    const sub = info.subresource
    if (sub !== '' && served.subresources[sub] === undefined) throw pathNotFound()
    const verb = info.verb as Verb
    const connect = sub === '' ? undefined : served.subresources[sub]!.connect
    if (connect !== undefined) {
      // GET (WebSocket) or POST (SPDY) on a named object: authorized as get or create.
      if (info.name === '' || (verb !== 'get' && verb !== 'create') || request.method === 'HEAD') throw methodNotSupported(gr, request.method)
      const c = caller(request)
      const location = await store.connect(info.namespace, info.name, sub, connectOptions(connect, query), c)
      relay(reply, c)
      throw unreachableStream(location, request.headers)
    }
    const subVerbs = sub === '' ? served.verbs : (served.subresources[sub]!.verbs ?? ['get', 'update', 'patch'])
    const allowedHere = (): boolean => {
      if (!subVerbs.includes(verb)) return false
      if (verb === 'create' && sub !== '') return info.name !== '' && r.subresources[sub]!.create !== undefined
      if (info.name === '') {
        // Across namespaces a namespaced kind can only be listed or watched.
        if (r.namespaced && info.namespace === '') return verb === 'list' || verb === 'watch'
        return verb === 'list' || verb === 'watch' || verb === 'create' || verb === 'deletecollection'
      }
      if (sub !== '' && r.subresources[sub]!.merge === undefined) return false
      return verb === 'get' || verb === 'update' || verb === 'patch' || (verb === 'delete' && sub === '')
    }
    if (!allowedHere()) throw methodNotSupported(gr, verb === ('' as Verb) ? request.method : verb)
    const transforms = verb === 'get' || verb === 'list' || verb === 'watch'
    const enc: EncodeOptions = { repr: negotiate(request.headers.accept, transforms, fastify.protobuf.supports(served.apiVersion, served.kind)), pretty: wantsPretty(query), includeObject: includeObjectOf(query) }
    const ns = info.namespace
    // A kind reached through an upstream group alias (clients that hard-code upstream paths)
    // takes and answers that group's apiVersion.
    // An older version of the kind answers in that version's apiVersion the same way.
    const alias = info.pathGroup === '' && info.apiVersion === r.version && converted === undefined ? undefined : `${info.pathGroup === '' ? served.group : info.pathGroup}/${info.apiVersion}`
    const objectJson = converted === undefined
      ? (json: string): string => alias === undefined ? json : json.replace(`"apiVersion":${JSON.stringify(r.apiVersion)}`, `"apiVersion":${JSON.stringify(alias)}`)
      : (json: string): string => {
          const { apiVersion: _a, kind: _k, ...fields } = converted.conversion.fromStored(JSON.parse(json) as AnyObject)
          return JSON.stringify({ apiVersion: alias, kind: served.kind, ...fields })
        }
    const decodeObject = (req: FastifyRequest, kind: string): AnyObject => {
      const obj = decodeRequestObject(req, kind)
      if (alias !== undefined && obj.apiVersion === alias) obj.apiVersion = converted === undefined ? r.apiVersion : served.apiVersion
      return obj
    }
    /**
     * An object in the served form, into the stored one: its type meta and fields checked
     * against the served form's schema first (so unknown fields are named as the client wrote them).
     */
    const toStored = (obj: AnyObject, fv: FieldValidation, c: Caller, name: string): AnyObject => {
      if (converted === undefined) return obj
      if (obj.apiVersion !== undefined && obj.apiVersion !== served.apiVersion) {
        throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${alias ?? served.apiVersion})`)
      }
      if (obj.kind !== undefined && obj.kind !== served.kind) throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${served.kind})`)
      const check = checkAgainstSchema(served.schema, obj, fv !== 'Strict')
      if (fv === 'Strict' && (check.unknown.length > 0 || (c.strict?.duplicates.length ?? 0) > 0)) throw strictDecodingError(c.strict?.duplicates ?? [], check.unknown, c.strict?.patch === true ? undefined : { kind: served.kind, version: served.version })
      if (fv === 'Warn') for (const f of check.unknown) c.warnings.push(`unknown field "${f}"`)
      if (check.errors.length > 0) throw invalid({ group: served.group, kind: served.kind }, name, check.errors)
      const { apiVersion: _a, kind: _k, ...fields } = converted.conversion.toStored(obj)
      return { apiVersion: r.apiVersion, kind: r.kind, ...fields }
    }
    /** Field selectors name the served form's fields; the store selects on the stored ones. */
    const listOptions = (o: ListOptions): ListOptions => {
      const labels = converted?.conversion.fieldLabels
      if (converted === undefined || o.fieldSelector === undefined || o.fieldSelector === '') return o
      return { ...o, fieldSelector: translateFieldSelector(o.fieldSelector, labels ?? {}) }
    }

    if (r.virtual !== undefined) {
      const body = decodeObject(request, r.kind)
      const apiVersion = `${info.pathGroup === '' ? r.group : info.pathGroup}/${r.version}`
      if (body.apiVersion !== undefined && body.apiVersion !== apiVersion && body.apiVersion !== r.apiVersion) {
        throw badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`)
      }
      if (body.kind !== undefined && body.kind !== r.kind) throw badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${r.kind})`)
      const o = parseWriteOptions(query, 'CreateOptions')
      const c = caller(request, o.fieldManager)
      const answer = await store.createVirtual(ns, body, o, c, {
        user: request.user,
        namespace: ns,
        authorize: (attrs) => fastify.authz.authorize(attrs),
        rules: (user, namespace) => fastify.authz.rules(user, namespace)
      })
      relay(reply, c)
      const { kind: _kind, apiVersion: _apiVersion, ...fields } = answer
      return sendDocument(reply, 201, { kind: r.kind, apiVersion, ...fields }, enc)
    }

    switch (verb) {
      case 'get': {
        const found = await store.get(ns, info.name, (query.resourceVersion as string | undefined) ?? undefined)
        if (request.method === 'HEAD') return reply.code(200).type(MEDIA_TYPES.json).send()
        return sendObject(reply, 200, served, objectJson(found.json), enc)
      }
      case 'list': {
        const o = listOptions(parseListOptions(query))
        const page = await store.list(ns, o)
        const listMeta: AnyObject = { resourceVersion: String(page.revision) }
        if (page.continue !== undefined) listMeta.continue = page.continue
        if (page.remaining !== undefined) listMeta.remainingItemCount = page.remaining
        if (alias !== undefined) return sendList(reply, { ...served, apiVersion: alias }, page.items.map(i => ({ json: objectJson(i.json) })), listMeta, enc)
        return sendList(reply, r, page.items, listMeta, enc)
      }
      case 'watch': {
        const o = listOptions(parseListOptions(query, false, registry.features.enabled('WatchList')))
        await serveWatch(store, ns, o, enc.repr, request, reply, watchSettings, alias === undefined ? undefined : { apiVersion: alias, rewrite: objectJson })
        return reply
      }
      case 'create': {
        const o = parseWriteOptions(query, 'CreateOptions')
        const c = caller(request, o.fieldManager)
        if (sub !== '') {
          const answer = await store.createOnSubresource(ns, info.name, sub, decodeObject(request, r.kind), o, c)
          relay(reply, c)
          return sendDocument(reply, 201, answer, enc)
        }
        const decoded = decodeObject(request, served.kind)
        const name = (decoded.metadata as AnyObject | undefined)?.name ?? ''
        checkDuplicates(request, o.fieldValidation, c, false)
        const created = await store.create(ns, toStored(decoded, o.fieldValidation, c, name), o, c)
        relay(reply, c)
        return sendObject(reply, 201, served, objectJson(created.json), enc)
      }
      case 'update': {
        const o = parseWriteOptions(query, 'UpdateOptions')
        const c = caller(request, o.fieldManager)
        // Decoded first: the duplicate scan expects a body that parses.
        const decoded = decodeObject(request, served.kind)
        checkDuplicates(request, o.fieldValidation, c, false)
        const body = toStored(decoded, o.fieldValidation, c, info.name)
        const result = await store.update(ns, info.name, () => body, { ...o, subresource: sub, createBody: body }, c)
        relay(reply, c)
        return sendObject(reply, result.created ? 201 : 200, served, objectJson(result.json), enc)
      }
      case 'patch': {
        const type = mediaType(request)
        const patchType = PATCH_TYPES[type]
        if (patchType === undefined) throw unsupportedMediaType(type, Object.keys(PATCH_TYPES))
        const o = parseWriteOptions(query, 'PatchOptions', patchType === 'apply')
        const c = caller(request, o.fieldManager)
        const patch = decodeBody(request, [type], () => badRequest(`error decoding patch: ${DEPTH_ERROR}`))
        checkDuplicates(request, o.fieldValidation, c, true, patchType !== 'apply')
        if (patchType === 'apply') {
          // Through another group's form the applied configuration is converted first: field
          // ownership is recorded in the stored form's names.
          const body = converted === undefined || typeof patch !== 'object' || patch === null || Array.isArray(patch)
            ? patch
            : toStored((patch as AnyObject).apiVersion === alias ? { ...(patch as AnyObject), apiVersion: served.apiVersion } : patch as AnyObject, o.fieldValidation, c, info.name)
          const result = await serverSideApply(store, { namespace: ns, name: info.name, subresource: sub, body, alias: converted === undefined ? alias : undefined, options: o, caller: c })
          relay(reply, c)
          return sendObject(reply, result.created ? 201 : 200, served, objectJson(result.json), enc)
        }
        const result = await store.update(ns, info.name, (stored) => {
          // A patch through another group's form applies to the object in that form.
          const old = converted === undefined ? stored : { ...converted.conversion.fromStored(stored), apiVersion: served.apiVersion, kind: served.kind }
          const patchedForm = applyPatch(patchType, old, patch, served.schema)
          const patched = converted === undefined ? patchedForm : toStored(patchedForm, o.fieldValidation, c, info.name)
          // A patch that names no resourceVersion is unconditional, whatever the stored one is.
          if ((patched.metadata as AnyObject | undefined)?.resourceVersion === old.metadata.resourceVersion && !mentionsResourceVersion(patch)) {
            delete (patched.metadata as AnyObject).resourceVersion
          }
          return patched
        }, { ...o, subresource: sub }, c)
        relay(reply, c)
        return sendObject(reply, 200, served, objectJson(result.json), enc)
      }
      case 'delete': {
        const body = (request.body as Buffer | undefined)?.length ? decodeObject(request, 'DeleteOptions') : undefined
        const o = parseDeleteOptions(query, body)
        const c = caller(request)
        const result = await store.delete(ns, info.name, o, c)
        relay(reply, c)
        // As the reference server: 200 with the object while finalizers hold it; 202 only when
        // the client asked for cascading through the old orphanDependents=false.
        if (r.deleteReturns === 'Object' || !result.deleted) return sendObject(reply, !result.deleted && o.orphanDependents === false ? 202 : 200, served, objectJson(result.json), enc)
        const details: AnyObject = { name: info.name }
        if (r.group !== '') details.group = r.group
        details.kind = r.plural
        details.uid = result.object.metadata?.uid
        return sendDocument(reply, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details }, enc)
      }
      case 'deletecollection': {
        const body = (request.body as Buffer | undefined)?.length ? decodeObject(request, 'DeleteOptions') : undefined
        const o = parseDeleteOptions(query, body)
        const list = listOptions(parseListOptions(query, true))
        const c = caller(request)
        await store.deleteCollection(ns, list, o, c)
        relay(reply, c)
        return sendDocument(reply, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' }, enc)
      }
    }
    throw methodNotSupported(gr, request.method)
  }

  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
  for (const url of ['/api/*', '/apis/*']) {
    fastify.route({ method: [...methods], url, handler: dispatchRelayingOnError, exposeHeadRoute: false })
  }
}, { name: 'rest', dependencies: ['request-info', 'errors', 'storage', 'admission', 'protobuf', 'authz'] })

/** Whether a patch document sets metadata.resourceVersion itself (a precondition). */
function mentionsResourceVersion (patch: unknown): boolean {
  if (Array.isArray(patch)) return patch.some(op => typeof op?.path === 'string' && op.path === '/metadata/resourceVersion')
  const meta = (patch as AnyObject | null)?.metadata
  return typeof meta === 'object' && meta !== null && 'resourceVersion' in meta
}

/**
 * A field selector over a converted form's labels, in the stored form's labels (the reference
 * server's field label conversion): a label the form does not know is refused.
 */
export function translateFieldSelector (selector: string, labels: Readonly<Record<string, string>>): string {
  return selector.split(/(?<!\\),/).map(term => {
    const m = /^\s*([^=!\s]+)\s*(==|!=|=)(.*)$/s.exec(term)
    if (m === null) return term
    const stored = Object.hasOwn(labels, m[1]!) ? labels[m[1]!] : undefined
    if (stored === undefined) throw badRequest(`field label not supported: ${m[1]!}`)
    return `${stored}${m[2]!}${m[3]!}`
  }).join(',')
}
