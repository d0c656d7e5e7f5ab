// Pod (core v1): containers sharing volumes on one node, with the fields the storage kinds and
// the admission plugins of later issues read.
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type FieldError } from './define.js'
import { AGE_COLUMN, Int64, objectSchema, Timestamp } from './meta.js'
import { AtomicList, Condition, MapList } from './core-types.js'
import { ContainerStatus, PodResourceClaimStatus } from './pod-types.js'
import { defaultPodSpec, PodSpec, validatePodSpec } from './pod-spec.js'
import { podStreamSubresources } from './pod-streams.js'
import { bindingSubresource } from './pod-binding.js'
import { ephemeralContainersOnCreate, ephemeralContainersSubresource } from './pod-ephemeral-containers.js'
import { podSpecWarnings, warnOnWrite } from './deprecation-warnings.js'
import { message, wireOnly } from './protobuf.js'

const opt = Type.Optional
const S = Type.Object
const closed = { additionalProperties: false }

const podIP = (name: string) => S({ ip: Type.String() }, { ...closed, ...message(name, { ip: 1 }) })

const schema = objectSchema('v1', 'Pod', {
  spec: opt(PodSpec),
  status: opt(S({
    phase: opt(Type.String()),
    conditions: opt(MapList(Condition(message('PodCondition', { type: 1, status: 2, lastProbeTime: 3, lastTransitionTime: 4, reason: 5, message: 6 }, undefined, { observedGeneration: wireOnly(7, Int64()) })), ['type'])),
    message: opt(Type.String()),
    reason: opt(Type.String()),
    nominatedNodeName: opt(Type.String()),
    hostIP: opt(Type.String()),
    hostIPs: opt(MapList(podIP('HostIP'), ['ip'])),
    podIP: opt(Type.String()),
    podIPs: opt(MapList(podIP('PodIP'), ['ip'])),
    startTime: opt(Type.Union([Timestamp(), Type.Null()])),
    initContainerStatuses: opt(AtomicList(ContainerStatus)),
    containerStatuses: opt(AtomicList(ContainerStatus)),
    ephemeralContainerStatuses: opt(AtomicList(ContainerStatus)),
    qosClass: opt(Type.String()),
    resize: opt(Type.String()),
    resourceClaimStatuses: opt(MapList(PodResourceClaimStatus, ['name']))
  }, { ...closed, ...message('PodStatus', {
    phase: 1,
    conditions: 2,
    message: 3,
    reason: 4,
    hostIP: 5,
    podIP: 6,
    startTime: 7,
    containerStatuses: 8,
    qosClass: 9,
    initContainerStatuses: 10,
    nominatedNodeName: 11,
    podIPs: 12,
    ephemeralContainerStatuses: 13,
    resize: 14,
    resourceClaimStatuses: 15,
    hostIPs: 16
  }, undefined, { observedGeneration: wireOnly(17, Int64()) }) }))
}, 'Pod is a collection of containers that can run on a host.', { spec: 2, status: 3 })

type Pod = Record<string, any>

/**
 * What the reference's SetDefaults_Pod adds to a Pod's spec and not to a template's: service
 * links on, and requests equal to the limits where only limits are given.
 */
function defaultPod (pod: Pod): void {
  const spec = pod.spec
  defaultPodSpec(spec)
  if (spec === undefined) return
  spec.enableServiceLinks ??= true
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    if (c.resources?.limits !== undefined) {
      c.resources.requests ??= {}
      for (const [k, v] of Object.entries(c.resources.limits)) c.resources.requests[k] ??= v
    }
  }
}

const UPDATE_FORBIDDEN = 'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)'

/** QoS class: Guaranteed when every container has equal cpu and memory limits and requests, BestEffort when none has any. */
export function qosClass (pod: Pod): string {
  const containers: Pod[] = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]
  let any = false
  let guaranteed = true
  for (const c of containers) {
    const req = c.resources?.requests ?? {}
    const lim = c.resources?.limits ?? {}
    for (const r of ['cpu', 'memory']) {
      if (req[r] !== undefined || lim[r] !== undefined) any = true
      if (lim[r] === undefined || (req[r] !== undefined && req[r] !== lim[r])) guaranteed = false
    }
  }
  if (!any) return 'BestEffort'
  return guaranteed ? 'Guaranteed' : 'Burstable'
}

/** The spec with the fields a running pod may change blanked out. */
function frozenPart (spec: Pod | undefined): Pod {
  const s = structuredClone(spec ?? {})
  for (const c of [...(s.containers ?? []), ...(s.initContainers ?? [])]) delete c.image
  delete s.activeDeadlineSeconds
  delete s.tolerations
  delete s.terminationGracePeriodSeconds
  return s
}

function validateUpdate (pod: Pod, old: Pod): FieldError[] {
  const errors: FieldError[] = []
  if (!isDeepStrictEqual(frozenPart(pod.spec), frozenPart(old.spec))) errors.push({ type: 'Forbidden', field: 'spec', detail: UPDATE_FORBIDDEN })
  // Existing tolerations stay; new ones may be added.
  const now = (pod.spec?.tolerations ?? []).map((t: Pod) => JSON.stringify(t))
  for (const t of old.spec?.tolerations ?? []) {
    if (!now.includes(JSON.stringify(t))) { errors.push({ type: 'Forbidden', field: 'spec.tolerations', detail: 'existing toleration can not be modified except its tolerationSeconds' }); break }
  }
  const oldDeadline = old.spec?.activeDeadlineSeconds
  const newDeadline = pod.spec?.activeDeadlineSeconds
  if (oldDeadline !== undefined && (newDeadline === undefined || newDeadline > oldDeadline)) {
    errors.push({ type: 'Invalid', field: 'spec.activeDeadlineSeconds', value: newDeadline ?? null, detail: 'must be less than or equal to previous value' })
  }
  return errors
}

function readiness (p: Pod): string {
  const statuses: Pod[] = p.status?.containerStatuses ?? []
  const total = (p.spec?.containers ?? []).length
  return `${statuses.filter(s => s.ready === true).length}/${total}`
}

function podStatus (p: Pod): string {
  if (p.metadata?.deletionTimestamp) return 'Terminating'
  for (const s of (p.status?.containerStatuses ?? []) as Pod[]) {
    const waiting = s.state?.waiting?.reason
    if (waiting) return waiting
    const terminated = s.state?.terminated?.reason
    if (terminated) return terminated
  }
  return p.status?.reason ?? p.status?.phase ?? ''
}

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  singular: 'pod',
  shortNames: ['po'],
  categories: ['all'],
  scope: 'Namespaced',
  schema,
  generation: false,
  deleteReturns: 'Object',
  // Old node agents corrupt owner references: pods/status never changes them (as upstream).
  subresources: { status: statusSubresource(['deletionTimestamp', 'ownerReferences']), binding: bindingSubresource, ephemeralcontainers: ephemeralContainersSubresource, ...podStreamSubresources },
  strategy: {
    prepareForCreate (pod) {
      defaultPod(pod)
      pod.status = { phase: 'Pending', qosClass: qosClass(pod) }
    },
    prepareForUpdate: (pod) => { defaultPod(pod) },
    validate: (pod) => validatePodSpec(pod.spec),
    validateCreate: ephemeralContainersOnCreate,
    validateUpdate,
    ...warnOnWrite((pod: Pod) => podSpecWarnings(pod.spec, pod.metadata))
  },
  columns: [
    { name: 'Ready', type: 'string', description: 'The number of ready containers', value: readiness },
    { name: 'Status', type: 'string', description: 'The state of the pod', value: podStatus },
    { name: 'Restarts', type: 'string', description: 'The number of container restarts', value: (p: Pod) => String(((p.status?.containerStatuses ?? []) as Pod[]).reduce((n, s) => n + (s.restartCount ?? 0), 0)) },
    AGE_COLUMN,
    { name: 'IP', type: 'string', priority: 1, description: 'The IP address of the pod', value: (p: Pod) => p.status?.podIP || '<none>' },
    { name: 'Node', type: 'string', priority: 1, description: 'The node the pod runs on', value: (p: Pod) => p.spec?.nodeName || '<none>' },
    { name: 'Nominated Node', type: 'string', priority: 1, description: 'The node nominated by preemption', value: (p: Pod) => p.status?.nominatedNodeName || '<none>' },
    { name: 'Readiness Gates', type: 'string', priority: 1, description: 'The pod readiness gates', value: (p: Pod) => (p.spec?.readinessGates ?? []).length === 0 ? '<none>' : `0/${p.spec.readinessGates.length}` }
  ],
  fieldSelectors: {
    'spec.nodeName': (p: Pod) => p.spec?.nodeName,
    'spec.restartPolicy': (p: Pod) => p.spec?.restartPolicy,
    'spec.schedulerName': (p: Pod) => p.spec?.schedulerName,
    'spec.serviceAccountName': (p: Pod) => p.spec?.serviceAccountName,
    'spec.hostNetwork': (p: Pod) => String(p.spec?.hostNetwork ?? false),
    'status.phase': (p: Pod) => p.status?.phase,
    'status.podIP': (p: Pod) => p.status?.podIP,
    'status.nominatedNodeName': (p: Pod) => p.status?.nominatedNodeName
  },
  example: {
    metadata: { name: 'web' },
    spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }
  }
})
