// Discovery documents built from the registered kinds: /api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>.
// /api and /apis answer an aggregated-discovery Accept header with an APIGroupDiscoveryList
// (aggregated-discovery.ts) when the client asks for it before plain JSON.
import { createHash } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { pathNotFound } from '../resources/status.js'
import type { Resource } from '../resources/define.js'
import { canonicalGroup, DISCOVERED_ALIASES, GROUP_ALIASES } from '../resources/naming.js'
import { sendDocument } from './rest/encode.js'
import { negotiate } from './rest/negotiation.js'
import { wantsPretty } from './rest/options.js'
import { aggregatedMediaType, discoveryList, wantedDiscovery } from './aggregated-discovery.js'
import { viewKind } from '../resources/resource-forms.js'
import { byVersionPriority } from '../resources/api-versions.js'

/**
 * What clients compare to see that a resource's stored form changed (the reference server's
 * StorageVersionHash): the first 8 bytes of the SHA-256 of the storage version's
 * group/version/kind, in base64. Every served version of a kind is stored in its main version.
 */
export function storageVersionHash (stored: Pick<Resource, 'group' | 'version' | 'kind'>): string {
  return createHash('sha256').update(`${stored.group}/${stored.version}/${stored.kind}`).digest().subarray(0, 8).toString('base64')
}

type StoredAs = (r: Resource) => Pick<Resource, 'group' | 'version' | 'kind'> | undefined

function apiResources (resources: Resource[], storedAs: StoredAs | undefined) {
  const out: Record<string, unknown>[] = []
  for (const r of resources) {
    const entry: Record<string, unknown> = {
      name: r.plural, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: [...r.verbs].sort()
    }
    const stored = r.virtual === undefined ? storedAs?.(r) : undefined
    if (stored !== undefined) entry.storageVersionHash = storageVersionHash(stored)
    if (r.shortNames !== undefined) entry.shortNames = r.shortNames
    if (r.categories !== undefined) entry.categories = r.categories
    out.push(entry)
    for (const [sub, def] of Object.entries(r.subresources)) {
      const entry: Record<string, unknown> = { name: `${r.plural}/${sub}`, singularName: '', namespaced: r.namespaced, kind: def.connect !== undefined && def.connect.carries !== 'read' ? def.connect.optionsKind : r.kind, verbs: [...(def.verbs ?? ['get', 'update', 'patch'])].sort() }
      // A subresource of another kind names it (a Scale, a TokenRequest, an Eviction): kubectl
      // drain finds the eviction's group version here.
      const other = def.view !== undefined ? viewKind(def.view) : def.requestKind !== undefined ? viewKind(def.requestKind) : undefined
      if (other !== undefined) Object.assign(entry, other.group === '' ? { kind: other.kind } : other)
      out.push(entry)
    }
  }
  return out
}

/**
 * The kinds of the groups some clients look up by their upstream names, announced again under
 * those names, ahead of ours: kubectl resolves a plain plural to the first group that serves it,
 * and `kubectl certificate approve` takes only objects of the upstream group. Short names stay
 * with our group.
 */
function withAliases (resources: Resource[], everyGroup: boolean): Resource[] {
  const under = (aliases: readonly string[]): Resource[] => aliases.flatMap(alias => resources
    .filter(r => r.group === canonicalGroup(alias))
    .map(r => ({ ...r, group: alias, apiVersion: `${alias}/${r.version}`, shortNames: undefined, categories: undefined })))
  // Under --discovery-upstream-groups the other upstream names follow ours, so a plain plural
  // still resolves to our group.
  const rest = everyGroup ? under(Object.keys(GROUP_ALIASES).filter(alias => !DISCOVERED_ALIASES.includes(alias))) : []
  return [...under(DISCOVERED_ALIASES), ...resources, ...rest]
}

export interface DiscoveryOptions {
  /** --discovery-upstream-groups */
  upstreamGroups?: boolean
}

export default fp<DiscoveryOptions>(async function discovery (fastify: FastifyInstance, opts: DiscoveryOptions) {
  const resources = (): Resource[] => withAliases(fastify.resources.served(), opts.upstreamGroups === true)
  const groups = (): Map<string, string[]> => {
    const m = new Map<string, string[]>()
    for (const r of resources()) {
      if (r.group === '') continue
      const versions = m.get(r.group) ?? []
      if (!versions.includes(r.version)) versions.push(r.version)
      m.set(r.group, versions)
    }
    for (const versions of m.values()) versions.sort(byVersionPriority)
    return m
  }
  // StorageVersionHash: the form a served resource is stored in, found by the group that stores it.
  const storedAs = (): StoredAs | undefined => !fastify.featureGates.enabled('StorageVersionHash')
    ? undefined
    : (r) => fastify.resources.find({ group: canonicalGroup(r.group), resource: r.plural })?.resource
  const groupDoc = (name: string, versions: string[]) => ({
    name,
    versions: versions.map(v => ({ groupVersion: `${name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] }
  })
  const send = (request: FastifyRequest, reply: FastifyReply, doc: unknown) =>
    sendDocument(reply, 200, doc, { repr: negotiate(request.headers.accept, false), pretty: wantsPretty(request.query as Record<string, string>), includeObject: 'None' })

  const aggregated = (request: FastifyRequest, reply: FastifyReply, core: boolean): FastifyReply | undefined => {
    const v = wantedDiscovery(request.headers.accept)
    if (v === undefined) return undefined
    return reply.code(200).header('content-type', aggregatedMediaType(v)).header('vary', 'Accept').send(Buffer.from(JSON.stringify(discoveryList(resources(), core, v))))
  }

  fastify.get('/api', async (request, reply) => aggregated(request, reply, true) ?? send(request, reply, {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `${request.hostname}` }]
  }))
  fastify.get('/api/v1', async (request, reply) => send(request, reply, {
    kind: 'APIResourceList', groupVersion: 'v1', resources: apiResources(resources().filter(r => r.group === ''), storedAs())
  }))
  fastify.get('/apis', async (request, reply) => aggregated(request, reply, false) ?? send(request, reply, {
    kind: 'APIGroupList', apiVersion: 'v1', groups: [...groups()].map(([name, versions]) => groupDoc(name, versions))
  }))
  fastify.get('/apis/:group', async (request, reply) => {
    const { group } = request.params as { group: string }
    const versions = groups().get(group)
    if (versions === undefined) throw pathNotFound()
    return send(request, reply, { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(group, versions) })
  })
  fastify.get('/apis/:group/:version', async (request, reply) => {
    const { group, version } = request.params as { group: string, version: string }
    const list = resources().filter(r => r.group === group && r.version === version)
    if (list.length === 0) throw pathNotFound()
    return send(request, reply, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${version}`, resources: apiResources(list, storedAs()) })
  })
}, { name: 'discovery', dependencies: ['rest'] })
