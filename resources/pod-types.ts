// Pod sub-structures beyond volumes: probes, lifecycle hooks, affinity, DNS, topology spread,
// resource claims and container statuses, as the core v1 API has them.
import { Type, type TProperties } from '@sinclair/typebox'
import { Int32, Int64, Timestamp } from './meta.js'
import { AtomicList, LabelSelector, MapList, NodeSelector, NodeSelectorTerm, ResourceList, ResourceRequirements } from './core-types.js'

const opt = Type.Optional
const S = (props: TProperties, extra: object = {}) => Type.Object(props, { additionalProperties: false, ...extra })
const str = () => Type.String()

export const IntOrString = () => Type.Union([Type.Integer(), Type.String()], { 'x-kubernetes-int-or-string': true })

export const WindowsSecurityContextOptions = S({ gmsaCredentialSpecName: opt(str()), gmsaCredentialSpec: opt(str()), runAsUserName: opt(str()), hostProcess: opt(Type.Boolean()) })
export const AppArmorProfile = S({ type: str(), localhostProfile: opt(str()) })

const ExecAction = S({ command: opt(AtomicList(str())) })
const HTTPGetAction = S({
  path: opt(Type.String({ default: '/' })),
  port: IntOrString(),
  host: opt(str()),
  scheme: opt(Type.String({ default: 'HTTP' })),
  httpHeaders: opt(AtomicList(S({ name: str(), value: str() })))
})
const TCPSocketAction = S({ port: IntOrString(), host: opt(str()) })
const GRPCAction = S({ port: Int32(), service: opt(str()) })

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
})

const LifecycleHandler = S({ exec: opt(ExecAction), httpGet: opt(HTTPGetAction), tcpSocket: opt(TCPSocketAction), sleep: opt(S({ seconds: Int64() })) })
export const Lifecycle = S({ postStart: opt(LifecycleHandler), preStop: opt(LifecycleHandler), stopSignal: opt(str()) })

const PreferredSchedulingTerm = S({ weight: Int32(), preference: NodeSelectorTerm })
const PodAffinityTerm = S({
  labelSelector: opt(LabelSelector),
  namespaces: opt(AtomicList(str())),
  topologyKey: str(),
  namespaceSelector: opt(LabelSelector),
  matchLabelKeys: opt(AtomicList(str())),
  mismatchLabelKeys: opt(AtomicList(str()))
})
const WeightedPodAffinityTerm = S({ weight: Int32(), podAffinityTerm: PodAffinityTerm })
const PodAffinity = S({
  requiredDuringSchedulingIgnoredDuringExecution: opt(AtomicList(PodAffinityTerm)),
  preferredDuringSchedulingIgnoredDuringExecution: opt(AtomicList(WeightedPodAffinityTerm))
})
export const Affinity = S({
  nodeAffinity: opt(S({
    requiredDuringSchedulingIgnoredDuringExecution: opt(NodeSelector),
    preferredDuringSchedulingIgnoredDuringExecution: opt(AtomicList(PreferredSchedulingTerm))
  })),
  podAffinity: opt(PodAffinity),
  podAntiAffinity: opt(PodAffinity)
})

export const PodDNSConfig = S({
  nameservers: opt(AtomicList(str())),
  searches: opt(AtomicList(str())),
  options: opt(AtomicList(S({ name: opt(str()), value: opt(str()) })))
})

export const TopologySpreadConstraint = S({
  maxSkew: Int32(),
  topologyKey: str(),
  whenUnsatisfiable: str(),
  labelSelector: opt(LabelSelector),
  minDomains: opt(Int32()),
  nodeAffinityPolicy: opt(str()),
  nodeTaintsPolicy: opt(str()),
  matchLabelKeys: opt(AtomicList(str()))
})

export const PodResourceClaim = S({ name: str(), resourceClaimName: opt(str()), resourceClaimTemplateName: opt(str()) })
export const PodResourceClaimStatus = S({ name: str(), resourceClaimName: opt(str()) })

const ContainerState = S({
  waiting: opt(S({ reason: opt(str()), message: opt(str()) })),
  running: opt(S({ startedAt: opt(Type.Union([Timestamp(), Type.Null()])) })),
  terminated: opt(S({
    exitCode: Int32(),
    signal: opt(Int32()),
    reason: opt(str()),
    message: opt(str()),
    startedAt: opt(Type.Union([Timestamp(), Type.Null()])),
    finishedAt: opt(Type.Union([Timestamp(), Type.Null()])),
    containerID: opt(str())
  }))
})

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
  volumeMounts: opt(MapList(S({ name: str(), mountPath: str(), readOnly: opt(Type.Boolean()), recursiveReadOnly: opt(str()) }), ['mountPath'])),
  user: opt(S({ linux: opt(S({ uid: Int64(), gid: Int64(), supplementalGroups: opt(AtomicList(Int64())) })) })),
  allocatedResourcesStatus: opt(MapList(S({ name: str(), resources: opt(MapList(S({ resourceID: str(), health: opt(str()) }), ['resourceID'])) }), ['name'])),
  stopSignal: opt(str())
})

