// Aggregated discovery (apidiscovery.k8s.io v2 and v2beta1): /api and /apis as one
// APIGroupDiscoveryList each, for clients that ask for it first in their Accept header.
import type { Resource } from '../resources/define.js'
import { viewKind } from '../resources/resource-forms.js'
import { byVersionPriority } from '../resources/api-versions.js'
import { MEDIA_TYPES, upstreamGroup } from '../resources/naming.js'

export type DiscoveryVersion = 'v2' | 'v2beta1'

/** Clients hard-code the upstream group of the discovery types. */
const DISCOVERY_GROUP = upstreamGroup('apidiscovery')
const LIST_KIND = 'APIGroupDiscoveryList'

export const aggregatedMediaType = (v: DiscoveryVersion): string =>
  `${MEDIA_TYPES.json};g=${DISCOVERY_GROUP};v=${v};as=${LIST_KIND}`

/**
 * The aggregated version the Accept header prefers, or undefined when a plain document comes
 * first (or nothing aggregated fits).
 */
export function wantedDiscovery (accept: string | undefined): DiscoveryVersion | undefined {
  if (accept === undefined) return undefined
  const ranges = accept.split(',').map((raw, i) => {
    const [type, ...rest] = raw.split(';').map(s => s.trim())
    const params: Record<string, string> = {}
    for (const p of rest) {
      const eq = p.indexOf('=')
      if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim()
    }
    const q = params.q === undefined ? 1 : Number(params.q)
    return { type: (type ?? '').toLowerCase(), params, q: Number.isNaN(q) ? 1 : q, i }
  }).filter(r => r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i)
  for (const r of ranges) {
    const json = r.type === MEDIA_TYPES.json || r.type === 'application/*' || r.type === '*/*'
    if (r.params.as === undefined) {
      if (json) return undefined
      continue
    }
    if (json && r.params.as === LIST_KIND && r.params.g === DISCOVERY_GROUP && (r.params.v === 'v2' || r.params.v === 'v2beta1')) return r.params.v
  }
  return undefined
}

function resourceEntry (r: Resource): Record<string, unknown> {
  const responseKind = { group: r.group, version: r.version, kind: r.kind }
  const entry: Record<string, unknown> = {
    resource: r.plural,
    responseKind,
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: [...r.verbs].sort()
  }
  if (r.shortNames !== undefined) entry.shortNames = r.shortNames
  if (r.categories !== undefined) entry.categories = r.categories
  const subs = Object.entries(r.subresources)
  if (subs.length > 0) {
    entry.subresources = subs.map(([subresource, def]) => ({ subresource, responseKind: def.connect !== undefined && def.connect.carries !== 'read' ? { ...responseKind, group: '', version: 'v1', kind: def.connect.optionsKind } : def.view !== undefined ? viewKind(def.view) : def.requestKind !== undefined ? viewKind(def.requestKind) : responseKind, verbs: [...(def.verbs ?? ['get', 'update', 'patch'])].sort() }))
  }
  return entry
}

/** The core group (`/api`) or every named group (`/apis`) as an APIGroupDiscoveryList. */
export function discoveryList (resources: Resource[], core: boolean, v: DiscoveryVersion): Record<string, unknown> {
  const groups = new Map<string, Map<string, Resource[]>>()
  for (const r of resources) {
    if ((r.group === '') !== core) continue
    const versions = groups.get(r.group) ?? new Map<string, Resource[]>()
    versions.set(r.version, [...(versions.get(r.version) ?? []), r])
    groups.set(r.group, versions)
  }
  return {
    kind: LIST_KIND,
    apiVersion: `${DISCOVERY_GROUP}/${v}`,
    metadata: {},
    items: [...groups].map(([name, versions]) => ({
      metadata: { name, creationTimestamp: null },
      versions: [...versions].sort(([a], [b]) => byVersionPriority(a, b)).map(([version, list]) => ({ version, resources: list.map(resourceEntry), freshness: 'Current' }))
    }))
  }
}
