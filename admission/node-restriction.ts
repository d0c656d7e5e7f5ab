// NodeRestriction (off by default): a node agent (user `system:node:<name>` in group
// `system:nodes`) may write only its own Node (not its taints, and only its own labels), only
// mirror pods bound to itself, the status of its own pods, its own Lease in the node-lease
// namespace and its own CSINode, only the status of claims, and tokens only for pods bound to
// it. What it may read is the Node authorizer's business; this plugin judges what it writes.
import { isDeepStrictEqual } from 'node:util'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden, notFound } from '../resources/status.js'
import { GROUPS, MIRROR_POD_ANNOTATION, NAMESPACES, NODE_LABEL_DOMAINS, NODES } from '../resources/naming.js'
import { podReferences } from '../resources/pod-references.js'
import type { AnyObject } from '../resources/define.js'
import type { AdmissionAttributes } from '../resources/admission.js'

type Labels = Record<string, string>

/** The node a user acts for: undefined for other users, '' for a node user without a name. */
function nodeIdentity (user: { username: string, groups: string[] }): string | undefined {
  if (!user.username.startsWith(NODES.userPrefix) || !user.groups.includes(NODES.group)) return undefined
  return user.username.slice(NODES.userPrefix.length)
}

const gr = (a: AdmissionAttributes) => ({ group: a.resource.group, resource: a.resource.plural })
const refuse = (a: AdmissionAttributes, why: string): Error => forbidden(gr(a), a.name !== '' ? a.name : a.object?.metadata?.name ?? '', why)

const labelNamespace = (key: string): string => key.includes('/') ? key.slice(0, key.indexOf('/')) : ''
const within = (namespace: string, domain: string): boolean => namespace === domain || namespace.endsWith(`.${domain}`)

/** Label keys added, removed or changed between two label maps. */
function modifiedLabels (now: Labels, before: Labels): string[] {
  const keys = new Set([...Object.keys(now), ...Object.keys(before)])
  return [...keys].filter(k => now[k] !== before[k]).sort()
}

/** The labels a node may not set: the node-restriction namespace, and vendor labels off the agent's list. */
function forbiddenLabels (keys: string[]): string[] {
  return keys.filter(key => {
    const ns = labelNamespace(key)
    return NODE_LABEL_DOMAINS.some(d => within(ns, d.restrictedNamespace) ||
      (within(ns, d.domain) && !d.allowed.includes(key) && !d.agentNamespaces.some(agent => within(ns, agent))))
  })
}

function admitNode (node: string, a: AdmissionAttributes): void {
  const requested = a.operation === 'CREATE' ? a.object?.metadata?.name ?? a.name : a.name
  if (requested !== node) throw refuse(a, `node ${JSON.stringify(node)} is not allowed to modify node ${JSON.stringify(requested)}`)
  if (a.operation === 'DELETE') throw refuse(a, `node ${JSON.stringify(node)} is not allowed to delete its own Node object`)
  const obj: AnyObject = a.object ?? {}
  if (a.operation === 'CREATE') {
    if (obj.spec?.configSource != null) throw refuse(a, `node ${JSON.stringify(node)} is not allowed to create pods with a non-nil configSource`)
    const bad = forbiddenLabels(modifiedLabels(obj.metadata?.labels ?? {}, {}))
    if (bad.length > 0) throw refuse(a, `node ${JSON.stringify(node)} is not allowed to set the following labels: ${bad.join(', ')}`)
    return
  }
  const old: AnyObject = a.oldObject ?? {}
  if (obj.spec?.configSource != null && !isDeepStrictEqual(obj.spec.configSource, old.spec?.configSource)) {
    throw refuse(a, `node ${JSON.stringify(node)} is not allowed to update configSource to a new non-nil configSource`)
  }
  if (!isDeepStrictEqual(obj.spec?.taints ?? [], old.spec?.taints ?? [])) throw refuse(a, `node ${JSON.stringify(node)} is not allowed to modify taints`)
  // Owner references would let the garbage collector delete the node on its behalf.
  if (!isDeepStrictEqual(obj.metadata?.ownerReferences ?? [], old.metadata?.ownerReferences ?? [])) throw refuse(a, `node ${JSON.stringify(node)} is not allowed to modify ownerReferences`)
  const bad = forbiddenLabels(modifiedLabels(obj.metadata?.labels ?? {}, old.metadata?.labels ?? {}))
  if (bad.length > 0) throw refuse(a, `is not allowed to modify labels: ${bad.join(', ')}`)
}

/** A node creates only mirror pods of its own, owned by its Node and naming no other object. */
async function admitPodCreate (node: string, a: AdmissionAttributes): Promise<void> {
  const pod: AnyObject = a.object ?? {}
  const q = JSON.stringify(node)
  if (pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] === undefined) {
    throw refuse(a, `pod does not have ${JSON.stringify(MIRROR_POD_ANNOTATION)} annotation, node ${q} can only create mirror pods`)
  }
  if ((pod.spec?.nodeName ?? '') !== node) throw refuse(a, `node ${q} can only create pods with spec.nodeName set to itself`)
  const owners: AnyObject[] = pod.metadata?.ownerReferences ?? []
  if (owners.length > 1) throw refuse(a, `node ${q} can only create pods with a single owner reference set to itself`)
  const owner = owners[0]
  if (owner === undefined || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) {
    throw refuse(a, `node ${q} can only create pods with an owner reference set to itself`)
  }
  if (owner.controller !== true) throw refuse(a, `node ${q} can only create pods with a controller owner reference set to itself`)
  if (owner.blockOwnerDeletion === true) throw refuse(a, `node ${q} must not set blockOwnerDeletion on an owner reference`)
  const stored = await a.lookup({ group: '', resource: 'nodes' }, '', node)
  if (stored === undefined) throw notFound({ group: '', resource: 'nodes' }, node)
  if (owner.uid !== stored.metadata?.uid) throw refuse(a, `node ${node} UID mismatch: expected ${String(owner.uid)} got ${String(stored.metadata?.uid)}`)
  if ((pod.spec?.serviceAccountName ?? '') !== '') throw refuse(a, `node ${q} can not create pods that reference a service account`)
  const refs = podReferences(pod)
  if (refs.secrets.length > 0) throw refuse(a, `node ${q} can not create pods that reference secrets`)
  if (refs.configmaps.length > 0) throw refuse(a, `node ${q} can not create pods that reference configmaps`)
  for (const vol of (pod.spec?.volumes ?? []) as AnyObject[]) {
    if (((vol.projected?.sources ?? []) as AnyObject[]).some(s => s.clusterTrustBundle != null)) throw refuse(a, `node ${q} can not create pods that reference clustertrustbundles`)
  }
  if (((pod.spec?.volumes ?? []) as AnyObject[]).some(v => v.persistentVolumeClaim != null)) throw refuse(a, `node ${q} can not create pods that reference persistentvolumeclaims`)
}

async function admitPod (node: string, a: AdmissionAttributes): Promise<void> {
  const q = JSON.stringify(node)
  switch (a.subresource) {
    case '':
      if (a.operation === 'CREATE') return await admitPodCreate(node, a)
      if (a.operation === 'DELETE') {
        if ((a.oldObject?.spec?.nodeName ?? '') !== node) throw refuse(a, `node ${q} can only delete pods with spec.nodeName set to itself`)
        return
      }
      throw refuse(a, `unexpected operation ${JSON.stringify(a.operation)}, node ${q} can only create and delete mirror pods`)
    case 'status': {
      if (a.operation !== 'UPDATE') throw refuse(a, `unexpected operation ${JSON.stringify(a.operation)}`)
      const old: AnyObject = a.oldObject ?? {}
      const pod: AnyObject = a.object ?? {}
      if ((old.spec?.nodeName ?? '') !== node) throw refuse(a, `node ${q} can only update pod status for pods with spec.nodeName set to itself`)
      if (!isDeepStrictEqual(old.metadata?.labels ?? {}, pod.metadata?.labels ?? {})) throw refuse(a, `node ${q} cannot update labels through pod status`)
      const claims = (p: AnyObject) => ((p.status?.resourceClaimStatuses ?? []) as AnyObject[]).map(c => [c.name, c.resourceClaimName ?? null])
      if (!isDeepStrictEqual(claims(old), claims(pod))) throw refuse(a, `node ${q} cannot update resource claim statues`)
      return
    }
    case 'eviction': {
      if (a.operation !== 'CREATE') throw refuse(a, `unexpected operation ${a.operation}`)
      const pod = await a.lookup({ group: '', resource: 'pods' }, a.namespace, a.name)
      if (pod === undefined) throw notFound({ group: '', resource: 'pods' }, a.name)
      if ((pod.spec?.nodeName ?? '') !== node) throw refuse(a, `node ${node} can only evict pods with spec.nodeName set to itself`)
      return
    }
    default:
      throw refuse(a, `unexpected pod subresource ${JSON.stringify(a.subresource)}, only 'status' and 'eviction' are allowed`)
  }
}

/** A node changes only the status capacity and conditions (and expansion bookkeeping) of a claim. */
function admitClaimStatus (node: string, a: AdmissionAttributes): void {
  if (a.subresource !== 'status') throw refuse(a, 'may only update PVC status')
  if (a.operation !== 'UPDATE') throw refuse(a, `unexpected operation ${JSON.stringify(a.operation)}`)
  const strip = (pvc: AnyObject | undefined): AnyObject => {
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = pvc?.metadata ?? {}
    const { capacity: _c, conditions: _cd, allocatedResources: _ar, allocatedResourceStatuses: _ars, ...status } = pvc?.status ?? {}
    return { ...pvc, metadata, status }
  }
  const before = strip(a.oldObject)
  const after = strip(a.object)
  if (isDeepStrictEqual(before, after)) return
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].flatMap(k => {
    const x = before[k] ?? {}
    const y = after[k] ?? {}
    if (typeof x !== 'object' || typeof y !== 'object') return isDeepStrictEqual(x, y) ? [] : [k]
    return [...new Set([...Object.keys(x), ...Object.keys(y)])].filter(f => !isDeepStrictEqual(x[f], y[f])).map(f => `${k}.${f}`)
  })
  throw refuse(a, `node ${JSON.stringify(node)} is not allowed to update fields other than status.capacity and status.conditions: ${changed.join(', ')}`)
}

/** A node asks for tokens only bound to pods that run on it. */
async function admitTokenRequest (node: string, a: AdmissionAttributes): Promise<void> {
  if (a.operation !== 'CREATE' || a.subresource !== 'token') return
  const ref: AnyObject | undefined = a.object?.spec?.boundObjectRef ?? undefined
  if (ref === undefined || ref === null || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || (ref.name ?? '') === '') throw refuse(a, 'node requested token not bound to a pod')
  if ((ref.uid ?? '') === '') throw refuse(a, 'node requested token with a pod binding without a uid')
  const pod = await a.lookup({ group: '', resource: 'pods' }, a.namespace, ref.name)
  if (pod === undefined) throw notFound({ group: '', resource: 'pods' }, ref.name)
  if (ref.uid !== pod.metadata?.uid) throw refuse(a, `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`)
  if ((pod.spec?.nodeName ?? '') !== node) throw refuse(a, 'node requested token bound to a pod scheduled on a different node')
}

/** Leases and CSINodes: only the node's own, named after it (a create names it in the object). */
function requireOwnName (node: string, a: AdmissionAttributes, kind: string): void {
  const name = a.operation === 'CREATE' ? a.object?.metadata?.name ?? a.name : a.name
  if (name !== node) throw refuse(a, `can only access ${kind} with the same name as the requesting node`)
}

async function admit (node: string, a: AdmissionAttributes): Promise<void> {
  const { group, plural } = a.resource
  if (group === '' && plural === 'pods') return await admitPod(node, a)
  if (group === '' && plural === 'nodes') return admitNode(node, a)
  if (group === '' && plural === 'persistentvolumeclaims') return admitClaimStatus(node, a)
  if (group === '' && plural === 'serviceaccounts') return await admitTokenRequest(node, a)
  if (group === GROUPS.coordination && plural === 'leases') {
    if (a.namespace !== NAMESPACES.nodeLease) throw refuse(a, `can only access leases in the ${JSON.stringify(NAMESPACES.nodeLease)} system namespace`)
    return requireOwnName(node, a, 'node lease')
  }
  if (group === GROUPS.storage && plural === 'csinodes') return requireOwnName(node, a, 'CSINode')
}

export default fp(async function nodeRestriction (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'NodeRestriction',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE' || a.operation === 'DELETE') && nodeIdentity(a.user) !== undefined,
    async mutate (a) {
      const node = nodeIdentity(a.user)!
      if (node === '') throw refuse(a, `could not determine node from user ${JSON.stringify(a.user.username)}`)
      await admit(node, a)
    }
  })
}, { name: 'admission:node-restriction', dependencies: ['admission'] })
