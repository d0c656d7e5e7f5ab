// Node mode: a node agent (user system:node:<name> in group system:nodes) reads its own Node and
// CSINode, and only the Secrets, ConfigMaps, PersistentVolumeClaims, PersistentVolumes and
// VolumeAttachments that the pods bound to it need; other resources follow the static
// system:node rules; any other user gets no opinion.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Attributes, Verdict } from '../../resources/authorization.js'
import { GROUPS, sameGroup } from '../../resources/naming.js'
import { ruleAllows } from '../rbac/rules.js'
import { DEFAULT_CLUSTER_ROLES } from '../rbac/bootstrap-policy.js'
import { NodeGraph } from './node-graph.js'

const NODE_USER_PREFIX = 'system:node:'
export const NODES_GROUP = 'system:nodes'
const READ = new Set(['get', 'list', 'watch'])
const CSINODE_VERBS = new Set(['get', 'create', 'update', 'patch', 'delete'])

/** The node a user acts for, or undefined when it is not a node agent. */
export function nodeNameOf (user: { username: string, groups: string[] }): string | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined
  const name = user.username.slice(NODE_USER_PREFIX.length)
  return name === '' ? undefined : name
}

const NODE_RULES = DEFAULT_CLUSTER_ROLES.find(r => r.name === 'system:node')!.rules!

export default fp(async function nodeAuthorizer (fastify: FastifyInstance) {
  const graph = new NodeGraph(fastify)
  fastify.addHook('onReady', async () => { await graph.start() })
  fastify.addHook('onClose', async () => { graph.stop() })

  const noOpinion = (reason: string): Verdict => ({ decision: 'NoOpinion', reason })

  /** Allowed when the graph links the node to the object, looking once more after catching up. */
  async function related (node: string, kind: 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'persistentvolumes' | 'volumeattachments', a: Attributes): Promise<Verdict> {
    if (a.name === '') return noOpinion('No Object name found')
    if (graph.related(node, kind, a.namespace, a.name)) return { decision: 'Allow' }
    await graph.catchUp()
    if (graph.related(node, kind, a.namespace, a.name)) return { decision: 'Allow' }
    return noOpinion(`no relationship found between node '${node}' and this object`)
  }

  async function authorize (a: Attributes): Promise<Verdict> {
    const node = nodeNameOf(a.user)
    if (node === undefined) return noOpinion('')
    if (!a.isResourceRequest) return NODE_RULES.some(r => ruleAllows(r, a)) ? { decision: 'Allow' } : noOpinion('')
    const core = a.apiGroup === ''
    const storage = sameGroup(a.apiGroup, GROUPS.storage)
    if (core && (a.resource === 'secrets' || a.resource === 'configmaps')) {
      if (!READ.has(a.verb)) return noOpinion('can only read resources of this type')
      if (a.subresource !== '') return noOpinion('cannot read subresource')
      if (a.namespace === '') return noOpinion('can only read namespaced object of this type')
      return await related(node, a.resource, a)
    }
    if (core && a.resource === 'persistentvolumeclaims' && a.subresource === 'status') {
      // A node agent updates the status of the claims its pods use (volume expansion).
      if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type')
      return await related(node, 'persistentvolumeclaims', a)
    }
    if (core && (a.resource === 'persistentvolumeclaims' || a.resource === 'persistentvolumes')) {
      if (a.verb !== 'get') return noOpinion('can only get individual resources of this type')
      if (a.subresource !== '') return noOpinion('cannot get subresource')
      return await related(node, a.resource, a)
    }
    if (storage && a.resource === 'volumeattachments') {
      if (a.verb !== 'get') return noOpinion('can only get individual resources of this type')
      return await related(node, 'volumeattachments', a)
    }
    if (storage && a.resource === 'csinodes') {
      if (!CSINODE_VERBS.has(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode')
      if (a.subresource !== '') return noOpinion('cannot authorize CSINode subresources')
      if (a.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node')
      return { decision: 'Allow' }
    }
    if (core && a.resource === 'nodes' && a.verb !== 'create') {
      // A node reads and writes its own Node object (lists and watches pinned to it by name).
      if (a.name !== node) return noOpinion(`can only access node '${node}'`)
    }
    return NODE_RULES.some(r => ruleAllows(r, a)) ? { decision: 'Allow' } : noOpinion('')
  }

  fastify.authz.add('Node', authorize, (user) => nodeNameOf(user) === undefined
    ? { resourceRules: [], nonResourceRules: [], incomplete: false }
    : { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' })
}, { name: 'authz:node', dependencies: ['authz'] })
