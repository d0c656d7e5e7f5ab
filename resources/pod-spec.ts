// The pod spec: containers, volumes and scheduling, shared by Pods and every kind that holds a
// pod template (workloads). Its defaults and validation take the path the spec sits at, so a
// template's errors name `spec.template.spec.…` as the reference's do.
import { Type } from '@sinclair/typebox'
import type { FieldError } from './define.js'
import { Int32, Int64, StringMap } from './meta.js'
import {
  AtomicList, EMBEDDED_LOCAL_OBJECT_REFERENCE, LocalObjectReference, MapList, ResourceList, ResourceRequirements, Toleration, validateRequirements, validateResourceList, validateTolerations
} from './core-types.js'
import { validateVolumes } from './volumes.js'
import { VolumeList } from './volume-sources.js'
import { Affinity, AppArmorProfile, Lifecycle, PodDNSConfig, PodResourceClaim, Probe, TopologySpreadConstraint, WindowsSecurityContextOptions } from './pod-types.js'
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

export const PodSpec = S({
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
  enableServiceLinks: opt(Type.Boolean()),
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


type Spec = Record<string, any>

export const RESTART_POLICIES = ['Always', 'OnFailure', 'Never']
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never']
const PROTOCOLS = ['TCP', 'UDP', 'SCTP']

/** imagePullPolicy Always for `:latest` or untagged images, else IfNotPresent. */
function pullPolicyFor (image: string | undefined): string {
  if (image === undefined) return 'IfNotPresent'
  const ref = image.split('@')[0]!
  const tag = /:([^/:]+)$/.exec(ref)?.[1]
  return image.includes('@') || (tag !== undefined && tag !== 'latest') ? 'IfNotPresent' : 'Always'
}

/**
 * The defaults of every pod spec a schema cannot express (a Pod's or a template's): pull policy
 * from the image, the service account alias, empty directories. What only a Pod gets is in pods.ts.
 */
export function defaultPodSpec (spec: Spec | undefined): void {
  if (spec === undefined) return
  spec.securityContext ??= {}
  if (spec.serviceAccountName === undefined && spec.serviceAccount !== undefined) spec.serviceAccountName = spec.serviceAccount
  if (spec.serviceAccountName !== undefined) spec.serviceAccount = spec.serviceAccountName
  // A volume that names no source is an empty directory.
  for (const v of spec.volumes ?? []) if (Object.keys(v).length === 1 && 'name' in v) v.emptyDir = {}
  for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? []), ...(spec.ephemeralContainers ?? [])]) {
    c.imagePullPolicy ??= pullPolicyFor(c.image)
  }
}

function validateContainers (list: Spec[] | undefined, field: string, volumes: Set<string>, names: Set<string>, required: boolean): FieldError[] {
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
    ;(c.volumeMounts ?? []).forEach((m: Spec, j: number) => {
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
    ;(c.env ?? []).forEach((e: Spec, j: number) => {
      const ef = `${f}.env[${j}]`
      if (!e.name) errors.push({ type: 'Required', field: `${ef}.name` })
      envNames.add(e.name)
      const from = e.valueFrom === undefined ? [] : Object.keys(e.valueFrom).filter(k => e.valueFrom[k] != null)
      if (from.length > 1) errors.push({ type: 'Invalid', field: `${ef}.valueFrom`, value: '', detail: 'may not have more than one field specified at a time' })
      if (from.length > 0 && e.value) errors.push({ type: 'Invalid', field: `${ef}.valueFrom`, value: '', detail: 'may not be specified when `value` is not empty' })
    })
    ;(c.ports ?? []).forEach((p: Spec, j: number) => {
      const pf = `${f}.ports[${j}]`
      if (!(p.containerPort >= 1 && p.containerPort <= 65535)) errors.push({ type: 'Invalid', field: `${pf}.containerPort`, value: p.containerPort, detail: 'must be between 1 and 65535, inclusive' })
      if (p.protocol !== undefined && !PROTOCOLS.includes(p.protocol)) errors.push({ type: 'NotSupported', field: `${pf}.protocol`, value: p.protocol, supported: PROTOCOLS })
    })
    errors.push(...validateRequirements(c.resources, `${f}.resources`))
  })
  return errors
}

/**
 * What an ephemeral container may hold (the reference's allowedEphemeralContainerFields): a
 * debugging aid, never part of the pod's service, so no ports, resources, probes or lifecycle.
 */
const EPHEMERAL_FORBIDDEN_FIELDS = ['ports', 'resources', 'resizePolicy', 'restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle']
/** Of those, the ones the reference holds by pointer: set whenever present, even empty. */
const POINTER_FIELDS = new Set(['restartPolicy', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'])
const EPHEMERAL_FORBIDDEN = 'cannot be set for an Ephemeral Container'

/** A field holds something other than its zero value (the reference compares each field to its zero). */
function isSet (v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return false
  if (Array.isArray(v)) return v.length > 0
  if (typeof v === 'object') return Object.values(v as Spec).some(isSet)
  return true
}

/**
 * The reference's validateEphemeralContainers: the checks every container has, names unique
 * across all of the pod's containers, a target among the regular or init containers, only the
 * allowed fields, and no subPath mounts (bind mounts that outlive the container).
 */
function validateEphemeralContainers (spec: Spec, field: string, volumes: Set<string>, names: Set<string>): FieldError[] {
  const list: Spec[] = spec.ephemeralContainers ?? []
  if (list.length === 0) return []
  const targets = new Set([...(spec.containers ?? []), ...(spec.initContainers ?? [])].map((c: Spec) => c.name))
  const errors = validateContainers(list, field, volumes, names, false)
  list.forEach((c, i) => {
    const f = `${field}[${i}]`
    if (typeof c.targetContainerName === 'string' && c.targetContainerName !== '' && !targets.has(c.targetContainerName)) {
      errors.push({ type: 'NotFound', field: `${f}.targetContainerName`, value: c.targetContainerName })
    }
    for (const k of EPHEMERAL_FORBIDDEN_FIELDS) if (POINTER_FIELDS.has(k) ? c[k] != null : isSet(c[k])) errors.push({ type: 'Forbidden', field: `${f}.${k}`, detail: EPHEMERAL_FORBIDDEN })
    ;(c.volumeMounts ?? []).forEach((m: Spec, j: number) => {
      if (isSet(m.subPath)) errors.push({ type: 'Forbidden', field: `${f}.volumeMounts[${j}].subPath`, detail: EPHEMERAL_FORBIDDEN })
      if (isSet(m.subPathExpr)) errors.push({ type: 'Forbidden', field: `${f}.volumeMounts[${j}].subPathExpr`, detail: EPHEMERAL_FORBIDDEN })
    })
  })
  return errors
}

/** The problems of a pod spec at `at` (`spec` for a Pod, `spec.template.spec` for a workload's template). */
export function validatePodSpec (spec: Spec | undefined, at = 'spec'): FieldError[] {
  if (spec === undefined) return [{ type: 'Required', field: at }]
  const { errors, names: volumes } = validateVolumes(spec.volumes, `${at}.volumes`)
  const containerNames = new Set<string>()
  errors.push(...validateContainers(spec.containers, `${at}.containers`, volumes, containerNames, true))
  errors.push(...validateContainers(spec.initContainers, `${at}.initContainers`, volumes, containerNames, false))
  errors.push(...validateEphemeralContainers(spec, `${at}.ephemeralContainers`, volumes, containerNames))
  if (!RESTART_POLICIES.includes(spec.restartPolicy)) errors.push({ type: 'NotSupported', field: `${at}.restartPolicy`, value: spec.restartPolicy, supported: RESTART_POLICIES })
  if (!DNS_POLICIES.includes(spec.dnsPolicy)) errors.push({ type: 'NotSupported', field: `${at}.dnsPolicy`, value: spec.dnsPolicy, supported: DNS_POLICIES })
  if (spec.serviceAccountName) errors.push(...invalidEach(`${at}.serviceAccountName`, spec.serviceAccountName, dnsSubdomainProblems(spec.serviceAccountName)))
  if (spec.nodeName) errors.push(...invalidEach(`${at}.nodeName`, spec.nodeName, dnsSubdomainProblems(spec.nodeName)))
  if (spec.priorityClassName) errors.push(...invalidEach(`${at}.priorityClassName`, spec.priorityClassName, dnsSubdomainProblems(spec.priorityClassName)))
  if (typeof spec.runtimeClassName === 'string') errors.push(...invalidEach(`${at}.runtimeClassName`, spec.runtimeClassName, dnsSubdomainProblems(spec.runtimeClassName)))
  if (spec.hostname && !isDnsLabel(spec.hostname)) errors.push(...invalidEach(`${at}.hostname`, spec.hostname, dnsLabelProblems(spec.hostname)))
  if (typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds <= 0) errors.push({ type: 'Invalid', field: `${at}.activeDeadlineSeconds`, value: spec.activeDeadlineSeconds, detail: 'must be greater than or equal to 1' })
  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0) errors.push({ type: 'Invalid', field: `${at}.terminationGracePeriodSeconds`, value: spec.terminationGracePeriodSeconds, detail: 'must be greater than or equal to 0' })
  errors.push(...validateTolerations(spec.tolerations, `${at}.tolerations`))
  errors.push(...validateResourceList(spec.overhead, `${at}.overhead`))
  return errors
}
