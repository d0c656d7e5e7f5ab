// The operations of every kind, as the generic REST handler serves them: one entry per endpoint
// and verb, each marked with x-kubernetes-action and x-kubernetes-group-version-kind.
import type { Resource, Verb } from '../../resources/define.js'
import { GROUP_SUFFIX, MEDIA_TYPES, UPSTREAM_GROUP_SUFFIX } from '../../resources/naming.js'
import { PATCH_TYPES } from '../../machinery/patch.js'
import { defineKind, gvk, SHARED_NAMES, type JsonSchema, type SchemaBuilder } from './schemas.js'

type ParamType = 'string' | 'integer' | 'boolean'
interface Param { name: string, in: 'query' | 'path', type: ParamType, description: string, required?: boolean }

const q = (name: string, type: ParamType, description: string): Param => ({ name, in: 'query', type, description })
const PRETTY = q('pretty', 'string', "If 'true', then the output is pretty printed.")
const DRY_RUN = q('dryRun', 'string', 'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed')
const FIELD_MANAGER = q('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.')
const FIELD_VALIDATION = q('fieldValidation', 'string', 'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Valid values are: - Ignore, - Warn (the default), - Strict: fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present.')
const FORCE = q('force', 'boolean', 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.')
const LIST_PARAMS: Param[] = [
  q('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
  q('continue', 'string', 'The continue option should be set when retrieving more results from the server.'),
  q('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  q('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  q('limit', 'integer', 'limit is a maximum number of responses to return for a list call.'),
  q('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
  q('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
  q('sendInitialEvents', 'boolean', 'sendInitialEvents=true may be set together with watch=true to stream the current objects first.'),
  q('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
  q('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.')
]
const DELETE_PARAMS: Param[] = [
  DRY_RUN,
  q('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted.'),
  q('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy.'),
  q('propagationPolicy', 'string', "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.")
]
const NAME: Param = { name: 'name', in: 'path', type: 'string', description: 'name of the resource', required: true }
const NAMESPACE: Param = { name: 'namespace', in: 'path', type: 'string', description: 'object name and auth scope, such as for teams and projects', required: true }

const OBJECT_MEDIA = [MEDIA_TYPES.json, MEDIA_TYPES.yaml]
const WATCH_MEDIA = [MEDIA_TYPES.json, 'application/json;stream=watch']

const camel = (s: string): string => s.split(/[.\-/]/).filter(Boolean).map(p => p[0]!.toUpperCase() + p.slice(1)).join('')

/** `core_v1`, `storage_v1`: the tag and operationId stem of a group version. */
function groupStem (r: Resource): string {
  const g = r.group === '' ? 'core' : r.group.replace(`.${GROUP_SUFFIX}`, '').replace(`.${UPSTREAM_GROUP_SUFFIX}`, '')
  return camel(g) + camel(r.version)
}

interface Op {
  verb: Verb
  action: string
  idPrefix: string
  params: Param[]
  body?: { schema: string, media: string[] }
  response: { schema: string, codes: string[], media: string[] }
  namespaced: boolean
  sub?: string
}

export type Paths = Record<string, Record<string, JsonSchema>>

/** Adds every endpoint of `r` to `paths`, in the builder's flavor. */
export function addResourcePaths (b: SchemaBuilder, paths: Paths, r: Resource): void {
  const { object, list } = defineKind(b, r)
  const base = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`
  const scoped = r.namespaced ? `${base}/namespaces/{namespace}/${r.plural}` : `${base}/${r.plural}`
  const scopedWatch = r.namespaced ? `${base}/watch/namespaces/{namespace}/${r.plural}` : `${base}/watch/${r.plural}`
  const has = (v: Verb): boolean => r.verbs.includes(v)
  // A kind without Go types (a custom resource) takes no strategic merge patch: kubectl reads this to choose.
  const patchMedia = Object.keys(PATCH_TYPES).filter(t => r.strategicMerge !== false || PATCH_TYPES[t] !== 'strategic')
  const write = [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION]
  const ns = r.namespaced ? [NAMESPACE] : []

  const add = (path: string, method: string, op: Op): void => {
    paths[path] ??= {}
    paths[path]![method] = operation(b, r, op)
  }
  const listOp: Op = { verb: 'list', action: 'list', idPrefix: 'list', params: [...ns, PRETTY, ...LIST_PARAMS], response: { schema: list, codes: ['200'], media: [...OBJECT_MEDIA, ...WATCH_MEDIA.slice(1)] }, namespaced: r.namespaced }

  if (has('list')) add(scoped, 'get', listOp)
  if (has('create')) add(scoped, 'post', { verb: 'create', action: 'post', idPrefix: 'create', params: [...ns, PRETTY, ...write], body: { schema: object, media: OBJECT_MEDIA }, response: { schema: object, codes: ['200', '201', '202'], media: OBJECT_MEDIA }, namespaced: r.namespaced })
  if (has('deletecollection')) add(scoped, 'delete', { verb: 'deletecollection', action: 'deletecollection', idPrefix: 'deleteCollection', params: [...ns, PRETTY, ...DELETE_PARAMS, ...LIST_PARAMS.filter(p => p.name !== 'watch' && p.name !== 'allowWatchBookmarks')], body: { schema: SHARED_NAMES.deleteOptions, media: OBJECT_MEDIA }, response: { schema: SHARED_NAMES.status, codes: ['200'], media: OBJECT_MEDIA }, namespaced: r.namespaced })
  const item = `${scoped}/{name}`
  const itemParams = [NAME, ...ns, PRETTY]
  if (has('get')) add(item, 'get', { verb: 'get', action: 'get', idPrefix: 'read', params: itemParams, response: { schema: object, codes: ['200'], media: OBJECT_MEDIA }, namespaced: r.namespaced })
  if (has('update')) add(item, 'put', { verb: 'update', action: 'put', idPrefix: 'replace', params: [...itemParams, ...write], body: { schema: object, media: OBJECT_MEDIA }, response: { schema: object, codes: ['200', '201'], media: OBJECT_MEDIA }, namespaced: r.namespaced })
  if (has('patch')) add(item, 'patch', { verb: 'patch', action: 'patch', idPrefix: 'patch', params: [...itemParams, ...write, FORCE], body: { schema: SHARED_NAMES.patch, media: patchMedia }, response: { schema: object, codes: ['200', '201'], media: OBJECT_MEDIA }, namespaced: r.namespaced })
  if (has('delete')) {
    const answer = r.deleteReturns === 'Object' ? object : SHARED_NAMES.status
    add(item, 'delete', { verb: 'delete', action: 'delete', idPrefix: 'delete', params: [...itemParams, ...DELETE_PARAMS], body: { schema: SHARED_NAMES.deleteOptions, media: OBJECT_MEDIA }, response: { schema: answer, codes: ['200', '202'], media: OBJECT_MEDIA }, namespaced: r.namespaced })
  }
  for (const [sub, def] of Object.entries(r.subresources)) {
    // A CONNECT subresource answers with a stream, not an object: it is not documented as one.
    if (def.connect !== undefined) continue
    const verbs = def.verbs ?? ['get', 'update', 'patch']
    const path = `${item}/${sub}`
    const common = { namespaced: r.namespaced, sub }
    if (verbs.includes('get')) add(path, 'get', { ...common, verb: 'get', action: 'get', idPrefix: 'read', params: itemParams, response: { schema: object, codes: ['200'], media: OBJECT_MEDIA } })
    if (verbs.includes('update')) add(path, 'put', { ...common, verb: 'update', action: 'put', idPrefix: 'replace', params: [...itemParams, ...write], body: { schema: object, media: OBJECT_MEDIA }, response: { schema: object, codes: ['200', '201'], media: OBJECT_MEDIA } })
    if (verbs.includes('patch')) add(path, 'patch', { ...common, verb: 'patch', action: 'patch', idPrefix: 'patch', params: [...itemParams, ...write, FORCE], body: { schema: SHARED_NAMES.patch, media: patchMedia }, response: { schema: object, codes: ['200', '201'], media: OBJECT_MEDIA } })
  }
  if (has('watch')) {
    const watchParams = [...ns, PRETTY, ...LIST_PARAMS]
    add(scopedWatch, 'get', { verb: 'watch', action: 'watchlist', idPrefix: 'watch', params: watchParams, response: { schema: SHARED_NAMES.watchEvent, codes: ['200'], media: WATCH_MEDIA }, namespaced: r.namespaced, sub: 'List' })
    add(`${scopedWatch}/{name}`, 'get', { verb: 'watch', action: 'watch', idPrefix: 'watch', params: [NAME, ...watchParams], response: { schema: SHARED_NAMES.watchEvent, codes: ['200'], media: WATCH_MEDIA }, namespaced: r.namespaced })
  }
  if (r.namespaced && has('list')) add(`${base}/${r.plural}`, 'get', { ...listOp, params: [PRETTY, ...LIST_PARAMS], namespaced: false, sub: 'ForAllNamespaces' })
  if (r.namespaced && has('watch')) {
    add(`${base}/watch/${r.plural}`, 'get', { verb: 'watch', action: 'watchlist', idPrefix: 'watch', params: [PRETTY, ...LIST_PARAMS], response: { schema: SHARED_NAMES.watchEvent, codes: ['200'], media: WATCH_MEDIA }, namespaced: false, sub: 'ListForAllNamespaces' })
  }
}

function parameter (b: SchemaBuilder, p: Param): JsonSchema {
  const base: JsonSchema = { name: p.name, in: p.in, description: p.description }
  if (p.required === true) base.required = true
  if (p.in === 'query') base.uniqueItems = true
  return b.flavor === 'v3' ? { ...base, schema: { type: p.type } } : { ...base, type: p.type }
}

function operation (b: SchemaBuilder, r: Resource, op: Op): JsonSchema {
  const stem = groupStem(r)
  const suffix = op.sub === undefined ? '' : camel(op.sub)
  const scope = op.namespaced ? 'Namespaced' : ''
  const out: JsonSchema = {
    tags: [stem.replace(/(V\d.*)$/, '_$1').toLowerCase()],
    description: `${op.verb} ${op.sub === undefined ? '' : `${op.sub} of `}${r.kind} objects`,
    operationId: `${op.idPrefix}${stem}${scope}${r.kind}${suffix}`
  }
  const params = op.params.map(p => parameter(b, p))
  const responses: JsonSchema = {}
  for (const code of op.response.codes) {
    const description = code === '201' ? 'Created' : code === '202' ? 'Accepted' : 'OK'
    responses[code] = b.flavor === 'v3'
      ? { description, content: Object.fromEntries(op.response.media.map(m => [m, { schema: b.refTo(op.response.schema) }])) }
      : { description, schema: b.refTo(op.response.schema) }
  }
  responses['401'] = { description: 'Unauthorized' }
  if (b.flavor === 'v3') {
    out.parameters = params
    if (op.body !== undefined) {
      out.requestBody = { required: op.verb !== 'delete' && op.verb !== 'deletecollection', content: Object.fromEntries(op.body.media.map(m => [m, { schema: b.refTo(op.body!.schema) }])) }
    }
  } else {
    out.consumes = op.body?.media ?? ['*/*']
    out.produces = op.response.media
    out.schemes = ['https']
    out.parameters = op.body === undefined ? params : [...params, { name: 'body', in: 'body', required: op.verb !== 'delete' && op.verb !== 'deletecollection', schema: b.refTo(op.body.schema) }]
  }
  out.responses = responses
  out['x-kubernetes-action'] = op.action
  out['x-kubernetes-group-version-kind'] = gvk(r, r.kind)[0]
  return out
}
