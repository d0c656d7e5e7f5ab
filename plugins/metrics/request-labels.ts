// The request metrics' label values, from the request info parsed once per request, as the
// reference server reports them (its metrics endpoint filter's verb, scope and dry-run rules).
import type { RequestInfo } from '../request-info.js'
import { MEDIA_TYPES } from '../../resources/naming.js'

export const COMPONENT = 'apiserver'

const RESOURCE_VERBS: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION'
}

/** Methods a non-resource request reports as themselves; anything else is `other`. */
const PLAIN_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'CONNECT'])

/** Upper case; a server-side apply (a PATCH of an apply document) is APPLY. */
export function reportedVerb (info: RequestInfo, method: string, contentType: string | undefined): string {
  if (!info.isResourceRequest) return PLAIN_METHODS.has(method) ? method : 'other'
  const verb = RESOURCE_VERBS[info.verb]
  if (verb === undefined) return 'other'
  if (verb === 'PATCH' && contentType !== undefined && contentType.startsWith(MEDIA_TYPES.applyPatch)) return 'APPLY'
  return verb
}

/** resource (one object, or a create), namespace, cluster, or '' for non-resource paths. */
export function scopeOf (info: RequestInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource'
  if (info.namespace !== '') return 'namespace'
  if (info.isResourceRequest) return 'cluster'
  return ''
}

/** The dryRun values, deduplicated and sorted; `invalid` for a value the server refuses. */
export function dryRunOf (url: string): string {
  const q = url.indexOf('?')
  // Nearly every request has none; only those that do pay for parsing the query.
  if (q === -1 || !url.includes('dryRun', q)) return ''
  const values = new URLSearchParams(url.slice(q + 1)).getAll('dryRun')
  if (values.length === 0) return ''
  if (values.some(v => v !== 'All')) return 'invalid'
  return 'All'
}

/** Whether a request changes state (for the inflight gauge's request_kind). */
export function isMutating (info: RequestInfo, method: string): boolean {
  if (info.isResourceRequest) return !(info.verb === 'get' || info.verb === 'list' || info.verb === 'watch')
  return !(method === 'GET' || method === 'HEAD' || method === 'OPTIONS')
}
