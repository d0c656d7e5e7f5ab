// The baseline level's checks: no known privilege escalation through host namespaces, host
// paths and ports, privileged containers, added capabilities, or loosened AppArmor, SELinux,
// /proc mount, seccomp and sysctl settings. Reasons and details are the reference library's.
import { POD_SECURITY } from '../../resources/naming.js'
import {
  containerNames, containersOf, goQuote, joinQuote, pluralize, securityContext, sortedSet,
  type AnyObject, type Check, type CheckPod, type Violation
} from './check.js'

/** Names of the containers the predicate picks. */
const containersWhere = (spec: AnyObject, bad: (c: AnyObject) => boolean): string[] =>
  containersOf(spec).filter(bad).map(c => String(c.name ?? ''))

/** `pod and containers "a", "b"`: who set a forbidden value. */
function setters (podBad: boolean, badContainers: readonly string[]): string[] {
  const out: string[] = []
  if (podBad) out.push('pod')
  if (badContainers.length > 0) out.push(containerNames(badContainers))
  return out
}

const windowsHostProcess: CheckPod = ({ spec }) => {
  const isHostProcess = (sc: AnyObject | undefined): boolean => sc?.windowsOptions?.hostProcess === true
  const who = setters(isHostProcess(securityContext(spec)), containersWhere(spec, c => isHostProcess(securityContext(c))))
  if (who.length === 0) return undefined
  return { reason: 'hostProcess', detail: `${who.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` }
}

const hostNamespaces: CheckPod = ({ spec }) => {
  const shared = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter(f => spec[f] === true).map(f => `${f}=true`)
  return shared.length === 0 ? undefined : { reason: 'host namespaces', detail: shared.join(', ') }
}

const privileged: CheckPod = ({ spec }) => {
  const bad = containersWhere(spec, c => securityContext(c)?.privileged === true)
  if (bad.length === 0) return undefined
  return { reason: 'privileged', detail: `${containerNames(bad)} must not set securityContext.privileged=true` }
}

const DEFAULT_CAPABILITIES = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE',
  'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT'
])

const capabilitiesBaseline: CheckPod = ({ spec }) => {
  const added: string[] = []
  const bad = containersWhere(spec, c => {
    const extra = ((securityContext(c)?.capabilities?.add ?? []) as unknown[]).map(String).filter(cap => !DEFAULT_CAPABILITIES.has(cap))
    added.push(...extra)
    return extra.length > 0
  })
  if (bad.length === 0) return undefined
  return { reason: 'non-default capabilities', detail: `${containerNames(bad)} must not include ${joinQuote(sortedSet(added))} in securityContext.capabilities.add` }
}

const hostPathVolumes: CheckPod = ({ spec }) => {
  const names = ((spec.volumes ?? []) as AnyObject[]).filter(v => v?.hostPath != null).map(v => String(v.name ?? ''))
  if (names.length === 0) return undefined
  return { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}` }
}

const hostPorts: CheckPod = ({ spec }) => {
  const ports: string[] = []
  const bad = containersWhere(spec, c => {
    const used = ((c.ports ?? []) as AnyObject[]).filter(p => typeof p?.hostPort === 'number' && p.hostPort !== 0).map(p => String(p.hostPort))
    ports.push(...used)
    return used.length > 0
  })
  if (bad.length === 0) return undefined
  const distinct = sortedSet(ports)
  return {
    reason: 'hostPort',
    detail: `${containerNames(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', distinct.length)} ${distinct.join(', ')}`
  }
}

const allowedAppArmorType = (type: unknown): boolean => type === 'RuntimeDefault' || type === 'Localhost'
const allowedAppArmorAnnotation = (value: string): boolean => value === '' || value === 'runtime/default' || value.startsWith('localhost/')

const appArmorProfile: CheckPod = ({ metadata, spec }) => {
  const values: string[] = []
  const badProfile = (sc: AnyObject | undefined): boolean => {
    const profile = sc?.appArmorProfile
    if (profile == null || allowedAppArmorType(profile.type)) return false
    values.push(String(profile.type ?? ''))
    return true
  }
  const who = setters(badProfile(securityContext(spec)), containersWhere(spec, c => badProfile(securityContext(c))))
  const annotations = Object.entries((metadata.annotations ?? {}) as Record<string, string>)
    .filter(([k, v]) => k.startsWith(POD_SECURITY.appArmorContainerAnnotationPrefix) && !allowedAppArmorAnnotation(String(v)))
    .map(([k, v]) => `${k}=${goQuote(String(v))}`)
    .sort()
  const badValues = [...sortedSet(values), ...annotations]
  if (annotations.length > 0) who.push(pluralize('annotation', 'annotations', annotations.length))
  if (who.length === 0) return undefined
  return {
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', badValues.length),
    detail: `${who.join(' and ')} must not set AppArmor profile type to ${joinQuote(badValues)}`
  }
}

const SELINUX_TYPES_1_0 = ['', 'container_t', 'container_init_t', 'container_kvm_t']
const SELINUX_TYPES_1_31 = [...SELINUX_TYPES_1_0, 'container_engine_t']

const seLinuxOptions = (allowedTypes: readonly string[]): CheckPod => ({ spec }) => {
  const badTypes: string[] = []
  let setUser = false
  let setRole = false
  const bad = (sc: AnyObject | undefined): boolean => {
    const opts = sc?.seLinuxOptions
    if (opts == null) return false
    let valid = true
    const type = String(opts.type ?? '')
    if (!allowedTypes.includes(type)) { valid = false; badTypes.push(type) }
    if (typeof opts.user === 'string' && opts.user !== '') { valid = false; setUser = true }
    if (typeof opts.role === 'string' && opts.role !== '') { valid = false; setRole = true }
    return !valid
  }
  const who = setters(bad(securityContext(spec)), containersWhere(spec, c => bad(securityContext(c))))
  if (who.length === 0) return undefined
  const what: string[] = []
  const types = sortedSet(badTypes)
  if (types.length > 0) what.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`)
  if (setUser) what.push('user may not be set')
  if (setRole) what.push('role may not be set')
  return { reason: 'seLinuxOptions', detail: `${who.join(' and ')} set forbidden securityContext.seLinuxOptions: ${what.join('; ')}` }
}

const procMount: CheckPod = ({ spec }) => {
  const types: string[] = []
  const bad = containersWhere(spec, c => {
    const mount = securityContext(c)?.procMount
    if (mount == null || mount === 'Default') return false
    types.push(String(mount))
    return true
  })
  if (bad.length === 0) return undefined
  return { reason: 'procMount', detail: `${containerNames(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}` }
}

export const validSeccompType = (type: unknown): boolean => type === 'RuntimeDefault' || type === 'Localhost'
const validSeccompAnnotation = (value: string): boolean => value === 'runtime/default' || value === 'docker/default' || value.startsWith('localhost/')

/** Before 1.19 seccomp was set by annotations. */
const seccompAnnotations: CheckPod = ({ metadata, spec }) => {
  const annotations = (metadata.annotations ?? {}) as Record<string, string>
  const forbidden: string[] = []
  const look = (key: string): void => {
    if (Object.hasOwn(annotations, key) && !validSeccompAnnotation(String(annotations[key]))) forbidden.push(`${key}=${goQuote(String(annotations[key]))}`)
  }
  look(POD_SECURITY.seccompPodAnnotation)
  for (const c of containersOf(spec)) look(`${POD_SECURITY.seccompContainerAnnotationPrefix}${String(c.name ?? '')}`)
  const distinct = sortedSet(forbidden)
  if (distinct.length === 0) return undefined
  return { reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', distinct.length)} ${distinct.join(', ')}` }
}

/**
 * Seccomp profile types set to something other than RuntimeDefault or Localhost, by the pod or
 * its containers (the restricted check adds the containers that set none).
 */
export function explicitSeccompViolation (spec: AnyObject): Violation | undefined {
  const values: string[] = []
  const badProfile = (sc: AnyObject | undefined): boolean => {
    const profile = sc?.seccompProfile
    if (profile == null || validSeccompType(profile.type)) return false
    values.push(String(profile.type ?? ''))
    return true
  }
  const who = setters(badProfile(securityContext(spec)), containersWhere(spec, c => badProfile(securityContext(c))))
  if (who.length === 0) return undefined
  return { reason: 'seccompProfile', detail: `${who.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}` }
}

const seccompProfileFields: CheckPod = ({ spec }) => explicitSeccompViolation(spec)

const SYSCTLS_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start']
const SYSCTLS_1_27 = [...SYSCTLS_1_0, 'net.ipv4.ip_local_reserved_ports']
const SYSCTLS_1_29 = [...SYSCTLS_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes']
const SYSCTLS_1_32 = [...SYSCTLS_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem']

const sysctls = (allowed: readonly string[]): CheckPod => ({ spec }) => {
  const forbidden = ((securityContext(spec)?.sysctls ?? []) as AnyObject[]).map(s => String(s?.name ?? '')).filter(name => !allowed.includes(name))
  return forbidden.length === 0 ? undefined : { reason: 'forbidden sysctls', detail: forbidden.join(', ') }
}

export const CHECK_IDS = {
  capabilitiesBaseline: 'capabilities_baseline',
  hostPathVolumes: 'hostPathVolumes',
  seccompBaseline: 'seccompProfile_baseline'
} as const

const since0 = (checkPod: CheckPod) => [{ minimumVersion: 0, checkPod }]

export const BASELINE_CHECKS: readonly Check[] = [
  { id: 'windowsHostProcess', level: 'baseline', versions: since0(windowsHostProcess) },
  { id: 'hostNamespaces', level: 'baseline', versions: since0(hostNamespaces) },
  { id: 'privileged', level: 'baseline', versions: since0(privileged) },
  { id: CHECK_IDS.capabilitiesBaseline, level: 'baseline', versions: since0(capabilitiesBaseline) },
  { id: CHECK_IDS.hostPathVolumes, level: 'baseline', versions: since0(hostPathVolumes) },
  { id: 'hostPorts', level: 'baseline', versions: since0(hostPorts) },
  { id: 'appArmorProfile', level: 'baseline', versions: since0(appArmorProfile) },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    versions: [{ minimumVersion: 0, checkPod: seLinuxOptions(SELINUX_TYPES_1_0) }, { minimumVersion: 31, checkPod: seLinuxOptions(SELINUX_TYPES_1_31) }]
  },
  { id: 'procMount', level: 'baseline', versions: since0(procMount) },
  {
    id: CHECK_IDS.seccompBaseline,
    level: 'baseline',
    versions: [{ minimumVersion: 0, checkPod: seccompAnnotations }, { minimumVersion: 19, checkPod: seccompProfileFields }]
  },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { minimumVersion: 0, checkPod: sysctls(SYSCTLS_1_0) },
      { minimumVersion: 27, checkPod: sysctls(SYSCTLS_1_27) },
      { minimumVersion: 29, checkPod: sysctls(SYSCTLS_1_29) },
      { minimumVersion: 32, checkPod: sysctls(SYSCTLS_1_32) }
    ]
  }
]
