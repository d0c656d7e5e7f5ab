// Pod (core v1): containers sharing volumes on one node, with the fields the storage kinds and
// the admission plugins of later issues read.
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type FieldError } from './define.js'
import { AGE_COLUMN, Int32, Int64, objectSchema, StringMap, Timestamp } from './meta.js'
import {
  AtomicList, Condition, EMBEDDED_LOCAL_OBJECT_REFERENCE, LocalObjectReference, MapList, ResourceList, ResourceRequirements, Toleration, validateRequirements, validateResourceList, validateTolerations
} from './core-types.js'
import { validateVolumes } from './volumes.js'
import { VolumeList } from './volume-sources.js'
import { Affinity, AppArmorProfile, ContainerStatus, Lifecycle, PodDNSConfig, PodResourceClaim, PodResourceClaimStatus, Probe, TopologySpreadConstraint, WindowsSecurityContextOptions } from './pod-types.js'
import { podStreamSubresources } from './pod-streams.js'
import { podSpecWarnings, warnOnWrite } from './deprecation-warnings.js'
import { dnsLabelProblems, dnsSubdomainProblems, invalidEach, isDnsLabel } from './validation.js'
import { inlined, keepZero, message, wireOnly } from './protobuf.js'

const opt = Type.Optional
const S = Type.Object
const closed = { additionalProperties: false }

// ConfigMap's and Secret's key selectors: alike, each a message of its own.
const keySelector = (name: string) => S({ name: opt(Type.String()), key: Type.String(), optional: opt(Type.Boolean()) }, { ...closed, 'x-kubernetes-map-type': 'atomic', ...message(name, { key: 2, optional: keepZero(3) }, EMBEDDED_LOCAL_OBJECT_REFERENCE) })
const EnvVar = S({
  name: Type.String(),
  value: opt(Type.String()),
  valueFrom: opt(S({
    fieldRef: opt(S({ apiVersion: opt(Type.String()), fieldPath: Type.String() }, { ...closed, ...message('ObjectFieldSelector', { apiVersion: 1, fieldPath: 2 }) })),
    resourceFieldRef: opt(S({ containerName: opt(Type.String()), resource: Type.String(), divisor: opt(Type.String({ format: 'quantity' })) }, { ...closed, ...message('ResourceFieldSelector', { containerName: 1, resource: 2, divisor: 3 }) })),
    configMapKeyRef: opt(keySelector('ConfigMapKeySelector')),
    secretKeyRef: opt(keySelector('SecretKeySelector'))
  }, { ...closed, ...message('EnvVarSource', { fieldRef: 1, resourceFieldRef: 2, configMapKeyRef: 3, secretKeyRef: 4 }) }))
}, { ...closed, ...message('EnvVar', { name: 1, value: 2, valueFrom: 3 }) })
const EnvFromSource = S({
  prefix: opt(Type.String()),
  configMapRef: opt(S({ name: opt(Type.String()), optional: opt(Type.Boolean()) }, { ...closed, ...message('ConfigMapEnvSource', { optional: keepZero(2) }, EMBEDDED_LOCAL_OBJECT_REFERENCE) })),
  secretRef: opt(S({ name: opt(Type.String()), optional: opt(Type.Boolean()) }, { ...closed, ...message('SecretEnvSource', { optional: keepZero(2) }, EMBEDDED_LOCAL_OBJECT_REFERENCE) }))
}, { ...closed, ...message('EnvFromSource', { prefix: 1, configMapRef: 2, secretRef: 3 }) })
const VolumeMount = S({
  name: Type.String(),
  mountPath: Type.String(),
  readOnly: opt(Type.Boolean()),
  recursiveReadOnly: opt(Type.String()),
  subPath: opt(Type.String()),
  subPathExpr: opt(Type.String()),
  mountPropagation: opt(Type.String())
}, { ...closed, ...message('VolumeMount', { name: 1, readOnly: 2, mountPath: 3, subPath: 4, mountPropagation: keepZero(5), subPathExpr: 6, recursiveReadOnly: keepZero(7) }) })
const ContainerPort = S({
  name: opt(Type.String()),
  containerPort: Int32(),
  hostPort: opt(Int32()),
  hostIP: opt(Type.String()),
  protocol: opt(Type.String({ default: 'TCP' }))
}, { ...closed, ...message('ContainerPort', { name: 1, hostPort: 2, containerPort: keepZero(3), protocol: 4, hostIP: 5 }) })
const Capabilities = S({ add: opt(AtomicList(Type.String())), drop: opt(AtomicList(Type.String())) }, { ...closed, ...message('Capabilities', { add: 1, drop: 2 }) })
const SeccompProfile = S({ type: Type.String(), localhostProfile: opt(Type.String()) }, { ...closed, ...message('SeccompProfile', { type: 1, localhostProfile: keepZero(2) }) })
const SELinuxOptions = S({ user: opt(Type.String()), role: opt(Type.String()), type: opt(Type.String()), level: opt(Type.String()) }, { ...closed, ...message('SELinuxOptions', { user: 1, role: 2, type: 3, level: 4 }) })
const SecurityContext = S({
  capabilities: opt(Capabilities),
  privileged: opt(Type.Boolean()),
  seLinuxOptions: opt(SELinuxOptions),
  windowsOptions: opt(WindowsSecurityContextOptions),
  runAsUser: opt(Int64()),
  runAsGroup: opt(Int64()),
  runAsNonRoot: opt(Type.Boolean()),
  readOnlyRootFilesystem: opt(Type.Boolean()),
  allowPrivilegeEscalation: opt(Type.Boolean()),
  procMount: opt(Type.String()),
  seccompProfile: opt(SeccompProfile),
  appArmorProfile: opt(AppArmorProfile)
}, { ...closed, ...message('SecurityContext', {
  capabilities: 1,
  privileged: keepZero(2),
  seLinuxOptions: 3,
  runAsUser: keepZero(4),
  runAsNonRoot: keepZero(5),
  readOnlyRootFilesystem: keepZero(6),
  allowPrivilegeEscalation: keepZero(7),
  runAsGroup: keepZero(8),
  procMount: keepZero(9),
  windowsOptions: 10,
  seccompProfile: 11,
  appArmorProfile: 12
}) })
const PodSecurityContext = S({
  seLinuxOptions: opt(SELinuxOptions),
  windowsOptions: opt(WindowsSecurityContextOptions),
  runAsUser: opt(Int64()),
  runAsGroup: opt(Int64()),
  runAsNonRoot: opt(Type.Boolean()),
  supplementalGroups: opt(AtomicList(Int64())),
  supplementalGroupsPolicy: opt(Type.String()),
  fsGroup: opt(Int64()),
  fsGroupChangePolicy: opt(Type.String()),
  sysctls: opt(AtomicList(S({ name: Type.String(), value: Type.String() }, { ...closed, ...message('Sysctl', { name: 1, value: 2 }) }))),
  seccompProfile: opt(SeccompProfile),
  appArmorProfile: opt(AppArmorProfile),
  seLinuxChangePolicy: opt(Type.String())
}, { ...closed, ...message('PodSecurityContext', {
  seLinuxOptions: 1,
  runAsUser: keepZero(2),
  runAsNonRoot: keepZero(3),
  supplementalGroups: 4,
  fsGroup: keepZero(5),
  runAsGroup: keepZero(6),
  sysctls: 7,
  windowsOptions: 8,
  fsGroupChangePolicy: keepZero(9),
  seccompProfile: 10,
  appArmorProfile: 11,
  supplementalGroupsPolicy: keepZero(12),
  seLinuxChangePolicy: keepZero(13)
}) })

/** The protobuf fields of a container, and of an ephemeral container's embedded common part. */
const CONTAINER_FIELD_NUMBERS = {
  name: 1,
  image: 2,
  command: 3,
  args: 4,
  workingDir: 5,
  ports: 6,
  env: 7,
  resources: 8,
  volumeMounts: 9,
  livenessProbe: 10,
  readinessProbe: 11,
  lifecycle: 12,
  terminationMessagePath: 13,
  imagePullPolicy: 14,
  securityContext: 15,
  stdin: 16,
  stdinOnce: 17,
  tty: 18,
  envFrom: 19,
  terminationMessagePolicy: 20,
  volumeDevices: 21,
  startupProbe: 22,
  resizePolicy: 23,
  restartPolicy: keepZero(24)
}

const containerFields = {
  name: Type.String(),
  image: opt(Type.String()),
  command: opt(AtomicList(Type.String())),
  args: opt(AtomicList(Type.String())),
  workingDir: opt(Type.String()),
  ports: opt(MapList(ContainerPort, ['containerPort', 'protocol'])),
  envFrom: opt(AtomicList(EnvFromSource)),
  env: opt(MapList(EnvVar, ['name'])),
  resources: opt(ResourceRequirements),
  resizePolicy: opt(AtomicList(S({ resourceName: Type.String(), restartPolicy: Type.String() }, { ...closed, ...message('ContainerResizePolicy', { resourceName: 1, restartPolicy: 2 }) }))),
  restartPolicy: opt(Type.String()),
  volumeMounts: opt(MapList(VolumeMount, ['mountPath'])),
  volumeDevices: opt(MapList(S({ name: Type.String(), devicePath: Type.String() }, { ...closed, ...message('VolumeDevice', { name: 1, devicePath: 2 }) }), ['devicePath'])),
  livenessProbe: opt(Probe),
  readinessProbe: opt(Probe),
  startupProbe: opt(Probe),
  lifecycle: opt(Lifecycle),
  terminationMessagePath: opt(Type.String({ default: '/dev/termination-log' })),
  terminationMessagePolicy: opt(Type.String({ default: 'File' })),
  imagePullPolicy: opt(Type.String()),
  securityContext: opt(SecurityContext),
  stdin: opt(Type.Boolean()),
  stdinOnce: opt(Type.Boolean()),
  tty: opt(Type.Boolean())
}
const Container = S(containerFields, { ...closed, ...message('Container', CONTAINER_FIELD_NUMBERS) })
const EphemeralContainer = S({ ...containerFields, targetContainerName: opt(Type.String()) }, { ...closed, ...message('EphemeralContainer', { targetContainerName: 2 }, { ephemeralContainerCommon: inlined(1, 'EphemeralContainerCommon', CONTAINER_FIELD_NUMBERS) }) })

const PodSpec = S({
  volumes: opt(VolumeList()),
  initContainers: opt(MapList(Container, ['name'])),
  containers: MapList(Container, ['name']),
  ephemeralContainers: opt(MapList(EphemeralContainer, ['name'])),
  restartPolicy: opt(Type.String({ default: 'Always' })),
  terminationGracePeriodSeconds: opt(Int64({ default: 30 })),
  activeDeadlineSeconds: opt(Int64()),
  dnsPolicy: opt(Type.String({ default: 'ClusterFirst' })),
  nodeSelector: opt(StringMap({ 'x-kubernetes-map-type': 'atomic' })),
  serviceAccountName: opt(Type.String()),
  serviceAccount: opt(Type.String()),
  automountServiceAccountToken: opt(Type.Boolean()),
  nodeName: opt(Type.String()),
  hostNetwork: opt(Type.Boolean()),
  hostPID: opt(Type.Boolean()),
  hostIPC: opt(Type.Boolean()),
  shareProcessNamespace: opt(Type.Boolean()),
  securityContext: opt(PodSecurityContext),
  imagePullSecrets: opt(MapList(LocalObjectReference, ['name'])),
  hostname: opt(Type.String()),
  subdomain: opt(Type.String()),
  affinity: opt(Affinity),
  schedulerName: opt(Type.String({ default: 'default-scheduler' })),
  tolerations: opt(AtomicList(Toleration)),
  hostAliases: opt(MapList(S({ ip: Type.String(), hostnames: opt(AtomicList(Type.String())) }, { ...closed, ...message('HostAlias', { ip: 1, hostnames: 2 }) }), ['ip'])),
  priorityClassName: opt(Type.String()),
  priority: opt(Int32()),
  dnsConfig: opt(PodDNSConfig),
  readinessGates: opt(AtomicList(S({ conditionType: Type.String() }, { ...closed, ...message('PodReadinessGate', { conditionType: 1 }) }))),
  runtimeClassName: opt(Type.String()),
  enableServiceLinks: opt(Type.Boolean({ default: true })),
  preemptionPolicy: opt(Type.String()),
  overhead: opt(ResourceList()),
  topologySpreadConstraints: opt(MapList(TopologySpreadConstraint, ['topologyKey', 'whenUnsatisfiable'])),
  setHostnameAsFQDN: opt(Type.Boolean()),
  os: opt(S({ name: Type.String() }, { ...closed, ...message('PodOS', { name: 1 }) })),
  hostUsers: opt(Type.Boolean()),
  schedulingGates: opt(MapList(S({ name: Type.String() }, { ...closed, ...message('PodSchedulingGate', { name: 1 }) }), ['name'])),
  resourceClaims: opt(MapList(PodResourceClaim, ['name']))
}, { ...closed, ...message('PodSpec', {
  volumes: 1,
  containers: 2,
  restartPolicy: 3,
  terminationGracePeriodSeconds: keepZero(4),
  activeDeadlineSeconds: keepZero(5),
  dnsPolicy: 6,
  nodeSelector: 7,
  serviceAccountName: 8,
  serviceAccount: 9,
  nodeName: 10,
  hostNetwork: 11,
  hostPID: 12,
  hostIPC: 13,
  securityContext: 14,
  imagePullSecrets: 15,
  hostname: 16,
  subdomain: 17,
  affinity: 18,
  schedulerName: 19,
  initContainers: 20,
  automountServiceAccountToken: keepZero(21),
  tolerations: 22,
  hostAliases: 23,
  priorityClassName: 24,
  priority: keepZero(25),
  dnsConfig: 26,
  shareProcessNamespace: keepZero(27),
  readinessGates: 28,
  runtimeClassName: keepZero(29),
  enableServiceLinks: keepZero(30),
  preemptionPolicy: keepZero(31),
  overhead: 32,
  topologySpreadConstraints: 33,
  ephemeralContainers: 34,
  setHostnameAsFQDN: keepZero(35),
  os: 36,
  hostUsers: keepZero(37),
  schedulingGates: 38,
  resourceClaims: 39
}, undefined, { resources: wireOnly(40, ResourceRequirements) }) })

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

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never']
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never']
const PROTOCOLS = ['TCP', 'UDP', 'SCTP']
const UPDATE_FORBIDDEN = 'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)'

/** imagePullPolicy Always for `:latest` or untagged images, else IfNotPresent. */
function pullPolicyFor (image: string | undefined): string {
  if (image === undefined) return 'IfNotPresent'
  const ref = image.split('@')[0]!
  const tag = /:([^/:]+)$/.exec(ref)?.[1]
  return image.includes('@') || (tag !== undefined && tag !== 'latest') ? 'IfNotPresent' : 'Always'
}

function defaultPod (pod: Pod): void {
  const spec = pod.spec
  if (spec === undefined) return
  spec.securityContext ??= {}
  if (spec.serviceAccountName === undefined && spec.serviceAccount !== undefined) spec.serviceAccountName = spec.serviceAccount
  if (spec.serviceAccountName !== undefined) spec.serviceAccount = spec.serviceAccountName
  // A volume that names no source is an empty directory.
  for (const v of spec.volumes ?? []) if (Object.keys(v).length === 1 && 'name' in v) v.emptyDir = {}
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    c.imagePullPolicy ??= pullPolicyFor(c.image)
    // Requests default to limits where only limits are given.
    if (c.resources?.limits !== undefined) {
      c.resources.requests ??= {}
      for (const [k, v] of Object.entries(c.resources.limits)) c.resources.requests[k] ??= v
    }
  }
}

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

function validateContainers (list: Pod[] | undefined, field: string, volumes: Set<string>, names: Set<string>, required: boolean): FieldError[] {
  const errors: FieldError[] = []
  if (required && (list ?? []).length === 0) errors.push({ type: 'Required', field: field })
  ;(list ?? []).forEach((c, i) => {
    const f = `${field}[${i}]`
    if (!c.name) errors.push({ type: 'Required', field: `${f}.name` })
    else {
      errors.push(...invalidEach(`${f}.name`, c.name, dnsLabelProblems(c.name)))
      if (names.has(c.name)) errors.push({ type: 'Duplicate', field: `${f}.name`, value: c.name })
      names.add(c.name)
    }
    if (!c.image) errors.push({ type: 'Required', field: `${f}.image` })
    if (c.imagePullPolicy !== undefined && !PULL_POLICIES.includes(c.imagePullPolicy)) errors.push({ type: 'NotSupported', field: `${f}.imagePullPolicy`, value: c.imagePullPolicy, supported: PULL_POLICIES })
    const mountPaths = new Set<string>()
    ;(c.volumeMounts ?? []).forEach((m: Pod, j: number) => {
      const mf = `${f}.volumeMounts[${j}]`
      if (!m.name) errors.push({ type: 'Required', field: `${mf}.name` })
      else if (!volumes.has(m.name)) errors.push({ type: 'NotFound', field: `${mf}.name`, value: m.name })
      if (!m.mountPath) errors.push({ type: 'Required', field: `${mf}.mountPath` })
      else if (mountPaths.has(m.mountPath)) errors.push({ type: 'Invalid', field: `${mf}.mountPath`, value: m.mountPath, detail: 'must be unique' })
      mountPaths.add(m.mountPath)
      if (m.subPath && (m.subPath.startsWith('/') || m.subPath.split('/').includes('..'))) {
        errors.push({ type: 'Invalid', field: `${mf}.subPath`, value: m.subPath, detail: m.subPath.startsWith('/') ? 'must be a relative path' : "must not contain '..'" })
      }
    })
    const envNames = new Set<string>()
    ;(c.env ?? []).forEach((e: Pod, j: number) => {
      const ef = `${f}.env[${j}]`
      if (!e.name) errors.push({ type: 'Required', field: `${ef}.name` })
      envNames.add(e.name)
      const from = e.valueFrom === undefined ? [] : Object.keys(e.valueFrom).filter(k => e.valueFrom[k] != null)
      if (from.length > 1) errors.push({ type: 'Invalid', field: `${ef}.valueFrom`, value: '', detail: 'may not have more than one field specified at a time' })
      if (from.length > 0 && e.value) errors.push({ type: 'Invalid', field: `${ef}.valueFrom`, value: '', detail: 'may not be specified when `value` is not empty' })
    })
    ;(c.ports ?? []).forEach((p: Pod, j: number) => {
      const pf = `${f}.ports[${j}]`
      if (!(p.containerPort >= 1 && p.containerPort <= 65535)) errors.push({ type: 'Invalid', field: `${pf}.containerPort`, value: p.containerPort, detail: 'must be between 1 and 65535, inclusive' })
      if (p.protocol !== undefined && !PROTOCOLS.includes(p.protocol)) errors.push({ type: 'NotSupported', field: `${pf}.protocol`, value: p.protocol, supported: PROTOCOLS })
    })
    errors.push(...validateRequirements(c.resources, `${f}.resources`))
  })
  return errors
}

function validateSpec (spec: Pod | undefined): FieldError[] {
  if (spec === undefined) return [{ type: 'Required', field: 'spec' }]
  const { errors, names: volumes } = validateVolumes(spec.volumes, 'spec.volumes')
  const containerNames = new Set<string>()
  errors.push(...validateContainers(spec.containers, 'spec.containers', volumes, containerNames, true))
  errors.push(...validateContainers(spec.initContainers, 'spec.initContainers', volumes, containerNames, false))
  if (!RESTART_POLICIES.includes(spec.restartPolicy)) errors.push({ type: 'NotSupported', field: 'spec.restartPolicy', value: spec.restartPolicy, supported: RESTART_POLICIES })
  if (!DNS_POLICIES.includes(spec.dnsPolicy)) errors.push({ type: 'NotSupported', field: 'spec.dnsPolicy', value: spec.dnsPolicy, supported: DNS_POLICIES })
  if (spec.serviceAccountName) errors.push(...invalidEach('spec.serviceAccountName', spec.serviceAccountName, dnsSubdomainProblems(spec.serviceAccountName)))
  if (spec.nodeName) errors.push(...invalidEach('spec.nodeName', spec.nodeName, dnsSubdomainProblems(spec.nodeName)))
  if (spec.priorityClassName) errors.push(...invalidEach('spec.priorityClassName', spec.priorityClassName, dnsSubdomainProblems(spec.priorityClassName)))
  if (typeof spec.runtimeClassName === 'string') errors.push(...invalidEach('spec.runtimeClassName', spec.runtimeClassName, dnsSubdomainProblems(spec.runtimeClassName)))
  if (spec.hostname && !isDnsLabel(spec.hostname)) errors.push(...invalidEach('spec.hostname', spec.hostname, dnsLabelProblems(spec.hostname)))
  if (typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds <= 0) errors.push({ type: 'Invalid', field: 'spec.activeDeadlineSeconds', value: spec.activeDeadlineSeconds, detail: 'must be greater than or equal to 1' })
  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) errors.push({ type: 'Invalid', field: 'spec.terminationGracePeriodSeconds', value: spec.terminationGracePeriodSeconds, detail: 'must be greater than or equal to 0' })
  errors.push(...validateTolerations(spec.tolerations, 'spec.tolerations'))
  errors.push(...validateResourceList(spec.overhead, 'spec.overhead'))
  return errors
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
  subresources: { status: statusSubresource(['deletionTimestamp', 'ownerReferences']), ...podStreamSubresources },
  strategy: {
    prepareForCreate (pod) {
      defaultPod(pod)
      pod.status = { phase: 'Pending', qosClass: qosClass(pod) }
    },
    prepareForUpdate: (pod) => { defaultPod(pod) },
    validate: (pod) => validateSpec(pod.spec),
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
