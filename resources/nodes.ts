// Node (core v1, cluster scope): a machine pods run on; its agent reports status.
import { Type } from '@sinclair/typebox'
import { defineResource, type AnyObject, type SubresourceDefinition } from './define.js'
import { nodeProxySubresource } from './proxy-locations.js'
import { AGE_COLUMN, Int32, objectSchema } from './meta.js'
import { LABELS } from './naming.js'
import { AtomicList, Condition, MapList, ObjectReference, ResourceList, Taint, validateResourceList, validateTaints } from './core-types.js'
import { dnsSubdomainProblems } from './validation.js'
import { JSON_ONLY, keepZero, message } from './protobuf.js'
import { warnOnWrite } from './deprecation-warnings.js'

const opt = Type.Optional
const S = Type.Object
const closed = { additionalProperties: false }

const ConfigMapNodeConfigSource = S({ namespace: Type.String(), name: Type.String(), uid: opt(Type.String()), resourceVersion: opt(Type.String()), kubeletConfigKey: Type.String() }, { ...closed, ...message('ConfigMapNodeConfigSource', { namespace: 1, name: 2, uid: 3, resourceVersion: 4, kubeletConfigKey: 5 }) })
const NodeConfigSource = S({ configMap: opt(ConfigMapNodeConfigSource) }, { ...closed, ...message('NodeConfigSource', { configMap: 2 }) })

const schema = objectSchema('v1', 'Node', {
  spec: opt(S({
    podCIDR: opt(Type.String()),
    podCIDRs: opt(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' })),
    providerID: opt(Type.String()),
    unschedulable: opt(Type.Boolean()),
    taints: opt(AtomicList(Taint)),
    configSource: opt(NodeConfigSource),
    externalID: opt(Type.String())
  }, { ...closed, ...message('NodeSpec', { podCIDR: 1, externalID: 2, providerID: 3, unschedulable: 4, taints: 5, configSource: 6, podCIDRs: 7 }) })),
  status: opt(S({
    capacity: opt(ResourceList()),
    allocatable: opt(ResourceList()),
    phase: opt(Type.String()),
    conditions: opt(MapList(Condition(message('NodeCondition', {
      type: 1,
      status: 2,
      lastHeartbeatTime: 3,
      lastProbeTime: JSON_ONLY,
      lastTransitionTime: 4,
      reason: 5,
      message: 6
    }), { lastHeartbeatTime: opt(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])) }), ['type'])),
    addresses: opt(MapList(S({ type: Type.String(), address: Type.String() }, { ...closed, ...message('NodeAddress', { type: 1, address: 2 }) }), ['type'])),
    daemonEndpoints: opt(S({ kubeletEndpoint: opt(S({ Port: Int32() }, { ...closed, ...message('DaemonEndpoint', { Port: keepZero(1) }) })) }, { ...closed, ...message('NodeDaemonEndpoints', { kubeletEndpoint: 1 }) })),
    nodeInfo: opt(S({
      machineID: Type.String(),
      systemUUID: Type.String(),
      bootID: Type.String(),
      kernelVersion: Type.String(),
      osImage: Type.String(),
      containerRuntimeVersion: Type.String(),
      kubeletVersion: Type.String(),
      kubeProxyVersion: opt(Type.String()),
      operatingSystem: Type.String(),
      architecture: Type.String(),
      swap: opt(S({ capacity: opt(Type.Integer({ format: 'int64' })) }, { ...closed, ...message('NodeSwapStatus', { capacity: keepZero(1) }) }))
    }, { ...closed, ...message('NodeSystemInfo', {
      machineID: keepZero(1),
      systemUUID: keepZero(2),
      bootID: keepZero(3),
      kernelVersion: keepZero(4),
      osImage: keepZero(5),
      containerRuntimeVersion: keepZero(6),
      kubeletVersion: keepZero(7),
      kubeProxyVersion: keepZero(8),
      operatingSystem: keepZero(9),
      architecture: keepZero(10),
      swap: 11
    }) })),
    images: opt(AtomicList(S({ names: opt(AtomicList(Type.String())), sizeBytes: opt(Type.Integer({ format: 'int64' })) }, { ...closed, ...message('ContainerImage', { names: 1, sizeBytes: 2 }) }))),
    volumesInUse: opt(AtomicList(Type.String())),
    volumesAttached: opt(AtomicList(S({ name: Type.String(), devicePath: Type.String() }, { ...closed, ...message('AttachedVolume', { name: 1, devicePath: 2 }) }))),
    config: opt(S({ assigned: opt(NodeConfigSource), active: opt(NodeConfigSource), lastKnownGood: opt(NodeConfigSource), error: opt(Type.String()) }, { ...closed, ...message('NodeConfigStatus', { assigned: 1, active: 2, lastKnownGood: 3, error: 4 }) })),
    runtimeHandlers: opt(AtomicList(S({ name: opt(Type.String()), features: opt(S({ recursiveReadOnlyMounts: opt(Type.Boolean()), userNamespaces: opt(Type.Boolean()) }, { ...closed, ...message('NodeRuntimeHandlerFeatures', { recursiveReadOnlyMounts: keepZero(1), userNamespaces: keepZero(2) }) })) }, { ...closed, ...message('NodeRuntimeHandler', { name: 1, features: 2 }) }))),
    features: opt(S({ supplementalGroupsPolicy: opt(Type.Boolean()) }, { ...closed, ...message('NodeFeatures', { supplementalGroupsPolicy: keepZero(1) }) }))
  }, { ...closed, ...message('NodeStatus', {
    capacity: 1,
    allocatable: 2,
    phase: 3,
    conditions: 4,
    addresses: 5,
    daemonEndpoints: 6,
    nodeInfo: 7,
    images: 8,
    volumesInUse: 9,
    volumesAttached: 10,
    config: 11,
    runtimeHandlers: 12,
    features: 13
  }) }))
}, 'Node is a worker node.', { spec: 2, status: 3 })

type Node = Record<string, any>

/** The node agent creates its Node with status; only later writes go through /status. */
const nodeStatus: SubresourceDefinition<AnyObject> = { merge: (incoming, existing) => ({ ...existing, status: incoming.status }), keepOnCreate: true }

function readyText (n: Node): string {
  const ready = ((n.status?.conditions ?? []) as Node[]).find(c => c.type === 'Ready')
  const text = ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown'
  return n.spec?.unschedulable === true ? `${text},SchedulingDisabled` : text
}

function roles (n: Node): string {
  const out: string[] = []
  for (const [k, v] of Object.entries((n.metadata?.labels ?? {}) as Record<string, string>)) {
    if (k.startsWith(LABELS.nodeRolePrefix) && k.length > LABELS.nodeRolePrefix.length) out.push(k.slice(LABELS.nodeRolePrefix.length))
    else if (k === LABELS.nodeRole && v !== '') out.push(v)
  }
  return out.length === 0 ? '<none>' : out.sort().join(',')
}

const address = (n: Node, type: string): string => ((n.status?.addresses ?? []) as Node[]).find(a => a.type === type)?.address ?? '<none>'

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  singular: 'node',
  shortNames: ['no'],
  scope: 'Cluster',
  schema,
  generation: false,
  subresources: { status: nodeStatus, proxy: nodeProxySubresource },
  strategy: {
    ...warnOnWrite((n: Node) => [
      ...(n.spec?.configSource != null ? ['spec.configSource: the feature is removed'] : []),
      ...((n.spec?.externalID ?? '') !== '' ? ['spec.externalID: this field is deprecated, and is unused by Kubernetes'] : [])
    ]),
    prepareForCreate (n) {
      if (n.status?.capacity !== undefined && n.status.allocatable === undefined) n.status.allocatable = { ...n.status.capacity }
    },
    validate (n) {
      const errors = validateTaints(n.spec?.taints, 'spec.taints')
      errors.push(...validateResourceList(n.status?.capacity, 'status.capacity'), ...validateResourceList(n.status?.allocatable, 'status.allocatable'))
      ;((n.status?.addresses ?? []) as Node[]).forEach((a, i) => { if (!a.address) errors.push({ type: 'Required', field: `status.addresses[${i}].address` }) })
      return errors
    },
    validateUpdate (n, old) {
      // podCIDRs may be set once.
      const before = old.spec?.podCIDRs ?? []
      if (before.length > 0 && JSON.stringify(n.spec?.podCIDRs ?? []) !== JSON.stringify(before)) {
        return [{ type: 'Forbidden', field: 'spec.podCIDRs', detail: 'node updates may not change podCIDR except from "" to valid' }]
      }
      if (old.spec?.providerID && n.spec?.providerID !== old.spec.providerID) {
        return [{ type: 'Forbidden', field: 'spec.providerID', detail: 'node updates may not change providerID except from "" to valid' }]
      }
      return []
    }
  },
  nameRule: (name) => dnsSubdomainProblems(name).map(detail => ({ type: 'Invalid' as const, detail })),
  columns: [
    { name: 'Status', type: 'string', description: 'The readiness of the node', value: readyText },
    { name: 'Roles', type: 'string', description: 'The roles of the node', value: roles },
    AGE_COLUMN,
    { name: 'Version', type: 'string', description: 'The version of the node agent', value: (n: Node) => n.status?.nodeInfo?.kubeletVersion ?? '' },
    { name: 'Internal-IP', type: 'string', priority: 1, description: 'The internal address', value: (n: Node) => address(n, 'InternalIP') },
    { name: 'External-IP', type: 'string', priority: 1, description: 'The external address', value: (n: Node) => address(n, 'ExternalIP') },
    { name: 'OS-Image', type: 'string', priority: 1, description: 'The operating system image', value: (n: Node) => n.status?.nodeInfo?.osImage ?? '<unknown>' },
    { name: 'Kernel-Version', type: 'string', priority: 1, description: 'The kernel version', value: (n: Node) => n.status?.nodeInfo?.kernelVersion ?? '<unknown>' },
    { name: 'Container-Runtime', type: 'string', priority: 1, description: 'The container runtime version', value: (n: Node) => n.status?.nodeInfo?.containerRuntimeVersion ?? '<unknown>' }
  ],
  fieldSelectors: { 'spec.unschedulable': (n: Node) => String(n.spec?.unschedulable ?? false) },
  example: {
    metadata: { name: 'node-1', labels: { 'topology.example.com/zone': 'a' } },
    spec: { podCIDR: '10.244.1.0/24' },
    status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, allocatable: { cpu: '4', memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }] }
  }
})
