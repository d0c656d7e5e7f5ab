// Pod sub-structures beyond volumes: probes, lifecycle hooks, affinity, DNS, topology spread,
// resource claims and container statuses, as the core v1 API has them.
import { Type, type TProperties } from '@sinclair/typebox'
import { Int32, Int64, Timestamp } from './meta.js'
import { AtomicList, LabelSelector, MapList, NodeSelector, NodeSelectorTerm, ResourceList, ResourceRequirements } from './core-types.js'
import { inlined, keepZero, message } from './protobuf.js'

const opt = Type.Optional
const S = (props: TProperties, extra: object = {}) => Type.Object(props, { additionalProperties: false, ...extra })
const str = () => Type.String()

export const IntOrString = () => Type.Union([Type.Integer(), Type.String()], { 'x-kubernetes-int-or-string': true })

export const WindowsSecurityContextOptions = S({ gmsaCredentialSpecName: opt(str()), gmsaCredentialSpec: opt(str()), runAsUserName: opt(str()), hostProcess: opt(Type.Boolean()) }, message('WindowsSecurityContextOptions', {
  gmsaCredentialSpecName: keepZero(1),
  gmsaCredentialSpec: keepZero(2),
  runAsUserName: keepZero(3),
  hostProcess: keepZero(4)
}))
export const AppArmorProfile = S({ type: str(), localhostProfile: opt(str()) }, message('AppArmorProfile', { type: 1, localhostProfile: keepZero(2) }))

const ExecAction = S({ command: opt(AtomicList(str())) }, message('ExecAction', { command: 1 }))
const HTTPGetAction = S({
  path: opt(Type.String({ default: '/' })),
  port: IntOrString(),
  host: opt(str()),
  scheme: opt(Type.String({ default: 'HTTP' })),
  httpHeaders: opt(AtomicList(S({ name: str(), value: str() }, message('HTTPHeader', { name: keepZero(1), value: keepZero(2) }))))
}, message('HTTPGetAction', { path: 1, port: 2, host: 3, scheme: 4, httpHeaders: 5 }))
const TCPSocketAction = S({ port: IntOrString(), host: opt(str()) }, message('TCPSocketAction', { port: 1, host: 2 }))
const GRPCAction = S({ port: Int32(), service: opt(str()) }, message('GRPCAction', { port: keepZero(1), service: keepZero(2) }))

export const Probe = S({
  exec: opt(ExecAction),
  httpGet: opt(HTTPGetAction),
  tcpSocket: opt(TCPSocketAction),
  grpc: opt(GRPCAction),
  initialDelaySeconds: opt(Int32()),
  timeoutSeconds: opt(Int32({ default: 1 })),
  periodSeconds: opt(Int32({ default: 10 })),
  successThreshold: opt(Int32({ default: 1 })),
  failureThreshold: opt(Int32({ default: 3 })),
  terminationGracePeriodSeconds: opt(Int64())
}, message('Probe', {
  initialDelaySeconds: 2,
  timeoutSeconds: 3,
  periodSeconds: 4,
  successThreshold: 5,
  failureThreshold: 6,
  terminationGracePeriodSeconds: keepZero(7)
}, { handler: inlined(1, 'ProbeHandler', { exec: 1, httpGet: 2, tcpSocket: 3, grpc: 4 }) }))

const LifecycleHandler = S({ exec: opt(ExecAction), httpGet: opt(HTTPGetAction), tcpSocket: opt(TCPSocketAction), sleep: opt(S({ seconds: Int64() }, message('SleepAction', { seconds: keepZero(1) }))) }, message('LifecycleHandler', { exec: 1, httpGet: 2, tcpSocket: 3, sleep: 4 }))
export const Lifecycle = S({ postStart: opt(LifecycleHandler), preStop: opt(LifecycleHandler), stopSignal: opt(str()) }, message('Lifecycle', { postStart: 1, preStop: 2, stopSignal: keepZero(3) }))

const PreferredSchedulingTerm = S({ weight: Int32(), preference: NodeSelectorTerm }, message('PreferredSchedulingTerm', { weight: keepZero(1), preference: 2 }))
const PodAffinityTerm = S({
  labelSelector: opt(LabelSelector),
  namespaces: opt(AtomicList(str())),
  topologyKey: str(),
  namespaceSelector: opt(LabelSelector),
  matchLabelKeys: opt(AtomicList(str())),
  mismatchLabelKeys: opt(AtomicList(str()))
}, message('PodAffinityTerm', { labelSelector: 1, namespaces: 2, topologyKey: 3, namespaceSelector: 4, matchLabelKeys: 5, mismatchLabelKeys: 6 }))
const WeightedPodAffinityTerm = S({ weight: Int32(), podAffinityTerm: PodAffinityTerm }, message('WeightedPodAffinityTerm', { weight: keepZero(1), podAffinityTerm: 2 }))
const podAffinity = (name: string) => S({
  requiredDuringSchedulingIgnoredDuringExecution: opt(AtomicList(PodAffinityTerm)),
  preferredDuringSchedulingIgnoredDuringExecution: opt(AtomicList(WeightedPodAffinityTerm))
}, message(name, { requiredDuringSchedulingIgnoredDuringExecution: 1, preferredDuringSchedulingIgnoredDuringExecution: 2 }))
export const Affinity = S({
  nodeAffinity: opt(S({
    requiredDuringSchedulingIgnoredDuringExecution: opt(NodeSelector),
    preferredDuringSchedulingIgnoredDuringExecution: opt(AtomicList(PreferredSchedulingTerm))
  }, message('NodeAffinity', { requiredDuringSchedulingIgnoredDuringExecution: 1, preferredDuringSchedulingIgnoredDuringExecution: 2 }))),
  podAffinity: opt(podAffinity('PodAffinity')),
  podAntiAffinity: opt(podAffinity('PodAntiAffinity'))
}, message('Affinity', { nodeAffinity: 1, podAffinity: 2, podAntiAffinity: 3 }))

export const PodDNSConfig = S({
  nameservers: opt(AtomicList(str())),
  searches: opt(AtomicList(str())),
  options: opt(AtomicList(S({ name: opt(str()), value: opt(str()) }, message('PodDNSConfigOption', { name: 1, value: keepZero(2) }))))
}, message('PodDNSConfig', { nameservers: 1, searches: 2, options: 3 }))

export const TopologySpreadConstraint = S({
  maxSkew: Int32(),
  topologyKey: str(),
  whenUnsatisfiable: str(),
  labelSelector: opt(LabelSelector),
  minDomains: opt(Int32()),
  nodeAffinityPolicy: opt(str()),
  nodeTaintsPolicy: opt(str()),
  matchLabelKeys: opt(AtomicList(str()))
}, message('TopologySpreadConstraint', {
  maxSkew: keepZero(1),
  topologyKey: 2,
  whenUnsatisfiable: 3,
  labelSelector: 4,
  minDomains: keepZero(5),
  nodeAffinityPolicy: keepZero(6),
  nodeTaintsPolicy: keepZero(7),
  matchLabelKeys: 8
}))

export const PodResourceClaim = S({ name: str(), resourceClaimName: opt(str()), resourceClaimTemplateName: opt(str()) }, message('PodResourceClaim', { name: 1, resourceClaimName: keepZero(3), resourceClaimTemplateName: keepZero(4) }))
export const PodResourceClaimStatus = S({ name: str(), resourceClaimName: opt(str()) }, message('PodResourceClaimStatus', { name: 1, resourceClaimName: keepZero(2) }))

const ContainerState = S({
  waiting: opt(S({ reason: opt(str()), message: opt(str()) }, message('ContainerStateWaiting', { reason: 1, message: 2 }))),
  running: opt(S({ startedAt: opt(Type.Union([Timestamp(), Type.Null()])) }, message('ContainerStateRunning', { startedAt: 1 }))),
  terminated: opt(S({
    exitCode: Int32(),
    signal: opt(Int32()),
    reason: opt(str()),
    message: opt(str()),
    startedAt: opt(Type.Union([Timestamp(), Type.Null()])),
    finishedAt: opt(Type.Union([Timestamp(), Type.Null()])),
    containerID: opt(str())
  }, message('ContainerStateTerminated', { exitCode: keepZero(1), signal: 2, reason: 3, message: 4, startedAt: 5, finishedAt: 6, containerID: 7 })))
}, message('ContainerState', { waiting: 1, running: 2, terminated: 3 }))

export const ContainerStatus = S({
  name: str(),
  state: opt(ContainerState),
  lastState: opt(ContainerState),
  ready: Type.Boolean(),
  restartCount: Int32(),
  image: opt(str()),
  imageID: opt(str()),
  containerID: opt(str()),
  started: opt(Type.Boolean()),
  allocatedResources: opt(ResourceList()),
  resources: opt(ResourceRequirements),
  volumeMounts: opt(MapList(S({ name: str(), mountPath: str(), readOnly: opt(Type.Boolean()), recursiveReadOnly: opt(str()) }, message('VolumeMountStatus', { name: 1, mountPath: 2, readOnly: 3, recursiveReadOnly: keepZero(4) })), ['mountPath'])),
  user: opt(S({ linux: opt(S({ uid: Int64(), gid: Int64(), supplementalGroups: opt(AtomicList(Int64())) }, message('LinuxContainerUser', { uid: keepZero(1), gid: keepZero(2), supplementalGroups: 3 }))) }, message('ContainerUser', { linux: 1 }))),
  allocatedResourcesStatus: opt(MapList(S({ name: str(), resources: opt(MapList(S({ resourceID: str(), health: opt(str()) }, message('ResourceHealth', { resourceID: 1, health: 2 })), ['resourceID'])) }, message('ResourceStatus', { name: 1, resources: 2 })), ['name'])),
  stopSignal: opt(str())
}, message('ContainerStatus', {
  name: 1,
  state: 2,
  lastState: 3,
  ready: keepZero(4),
  restartCount: keepZero(5),
  image: keepZero(6),
  imageID: keepZero(7),
  containerID: 8,
  started: keepZero(9),
  allocatedResources: 10,
  resources: 11,
  volumeMounts: 12,
  user: 13,
  allocatedResourcesStatus: 14,
  stopSignal: keepZero(15)
}))

