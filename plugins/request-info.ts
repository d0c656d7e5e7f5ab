// What a request is about, parsed from its path and method alone (k8s RequestInfoFactory),
// before routing: authentication and authorization need it for every request.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { GROUP_ALIASES } from '../resources/naming.js'

export interface RequestInfo {
  isResourceRequest: boolean
  path: string
  /** k8s verb: get list watch create update patch delete deletecollection, or the lower-case method for non-resource paths. */
  verb: string
  apiPrefix: string
  apiGroup: string
  apiVersion: string
  namespace: string
  resource: string
  subresource: string
  name: string
  parts: string[]
  /** The name a `metadata.name=` field selector pins a list or watch to ('' when none). */
  fieldSelectorName: string
  /** The API group as written in the path, when it is an upstream alias of `apiGroup`. */
  pathGroup: string
}

const FIELD = 'metadata.name'

/**
 * The value of a `metadata.name=x` (or `==`) requirement in a field selector. Trimmed by
 * hand: a lazy group before trailing space backtracked over every space inside the value,
 * quadratic in a 1 MiB query.
 */
function pinnedName (selector: string | null): string {
  for (const part of (selector ?? '').split(',')) {
    const term = part.trim()
    if (!term.startsWith(FIELD)) continue
    let rest = term.slice(FIELD.length).trimStart()
    if (rest[0] !== '=') continue
    rest = rest.slice(rest[1] === '=' ? 2 : 1)
    // The value is one line: a line break inside it pins nothing.
    if (/[\n\r\u2028\u2029]/.test(rest.trim())) continue
    return rest.trim()
  }
  return ''
}

const truthy = (v: string | undefined): boolean => v !== undefined && v !== '' && v !== 'false' && v !== '0'

/** A path segment as the client meant it; one that is not valid percent-encoding stays as sent. */
function decodeSegment (segment: string): string {
  if (!segment.includes('%')) return segment
  try { return decodeURIComponent(segment) } catch { return segment }
}

/** The path's segments without the slashes at either end. */
function segmentsOf (path: string): string[] {
  let from = 0
  let to = path.length
  while (from < to && path.charCodeAt(from) === 47) from++
  while (to > from && path.charCodeAt(to - 1) === 47) to--
  return path.slice(from, to).split('/').map(decodeSegment)
}

export function parseRequestInfo (method: string, url: string): RequestInfo {
  const qIndex = url.indexOf('?')
  const path = qIndex === -1 ? url : url.slice(0, qIndex)
  // Parsed only for the collection GETs that need it: most requests never look.
  const query = (): URLSearchParams => new URLSearchParams(qIndex === -1 ? '' : url.slice(qIndex + 1))
  const info: RequestInfo = {
    isResourceRequest: false, path, verb: method.toLowerCase(), apiPrefix: '', apiGroup: '', apiVersion: '',
    namespace: '', resource: '', subresource: '', name: '', parts: [], fieldSelectorName: '', pathGroup: ''
  }
  const segments = segmentsOf(path)
  if (segments[0] !== 'api' && segments[0] !== 'apis') return info
  info.apiPrefix = segments[0]
  let rest = segments.slice(1)
  if (info.apiPrefix === 'apis') {
    if (rest.length < 2) return info
    info.apiGroup = rest[0]!
    const alias = GROUP_ALIASES[info.apiGroup]
    if (alias !== undefined) {
      info.pathGroup = info.apiGroup
      info.apiGroup = alias
    }
    rest = rest.slice(1)
  } else if (rest.length < 1) return info
  info.apiVersion = rest[0]!
  rest = rest.slice(1)
  if (rest.length === 0 || rest[0] === '') return info
  info.isResourceRequest = true

  switch (method) {
    case 'POST': info.verb = 'create'; break
    case 'GET': case 'HEAD': info.verb = 'get'; break
    case 'PUT': info.verb = 'update'; break
    case 'PATCH': info.verb = 'patch'; break
    case 'DELETE': info.verb = 'delete'; break
    default: info.verb = ''
  }
  // /namespaces and /namespaces/{name}[/finalize|/status] address namespace objects themselves;
  // anything else under /namespaces/{name}/ is a kind inside that namespace (the namespace kind
  // included, which then has no such path).
  let namespaceItself = rest[0] === 'namespaces'
  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = rest[1]!
    if (rest.length > 2 && rest[2] !== 'finalize' && rest[2] !== 'status') {
      rest = rest.slice(2)
      namespaceItself = false
    }
  }
  info.parts = rest
  if (rest.length >= 3) info.subresource = rest[2]!
  if (rest.length >= 2) info.name = rest[1]!
  if (rest.length >= 1) info.resource = rest[0]!
  // The namespace object's own path names it in the namespace position.
  if (namespaceItself) info.namespace = ''

  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection'
  if (info.name === '' && info.verb === 'get') {
    const params = query()
    info.verb = truthy(params.get('watch') ?? undefined) ? 'watch' : 'list'
    info.fieldSelectorName = pinnedName(params.get('fieldSelector'))
  }
  return info
}

declare module 'fastify' {
  interface FastifyRequest { requestInfo: RequestInfo }
}

export default fp(async function requestInfo (fastify: FastifyInstance) {
  fastify.decorateRequest('requestInfo', null as unknown as RequestInfo)
  fastify.addHook('onRequest', async (request: FastifyRequest) => {
    request.requestInfo = parseRequestInfo(request.method, request.url)
  })
}, { name: 'request-info' })
