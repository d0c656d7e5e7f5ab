// The restricted level's checks, on top of baseline's: only the listed volume types, no
// privilege escalation, non-root users, a RuntimeDefault or Localhost seccomp profile, and all
// capabilities dropped but NET_BIND_SERVICE. Some replace a baseline check from their version on.
import {
  containerNames, containersOf, exceptWindows, joinQuote, pluralize, securityContext, sortedSet,
  type AnyObject, type Check, type CheckPod
} from './check.js'
import { CHECK_IDS, explicitSeccompViolation, validSeccompType } from './checks-baseline.js'

const allowPrivilegeEscalation: CheckPod = ({ spec }) => {
  const bad = containersOf(spec).filter(c => securityContext(c)?.allowPrivilegeEscalation !== false).map(c => String(c.name ?? ''))
  if (bad.length === 0) return undefined
  return { reason: 'allowPrivilegeEscalation != false', detail: `${containerNames(bad)} must set securityContext.allowPrivilegeEscalation=false` }
}

const capabilitiesRestricted: CheckPod = ({ spec }) => {
  const missingDropAll: string[] = []
  const addingForbidden: string[] = []
  const forbidden: string[] = []
  for (const c of containersOf(spec)) {
    const name = String(c.name ?? '')
    const caps = securityContext(c)?.capabilities
    if (caps == null) {
      missingDropAll.push(name)
      continue
    }
    if (!((caps.drop ?? []) as unknown[]).includes('ALL')) missingDropAll.push(name)
    const extra = ((caps.add ?? []) as unknown[]).map(String).filter(cap => cap !== 'NET_BIND_SERVICE')
    if (extra.length > 0) {
      addingForbidden.push(name)
      forbidden.push(...extra)
    }
  }
  const details: string[] = []
  if (missingDropAll.length > 0) details.push(`${containerNames(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`)
  if (addingForbidden.length > 0) details.push(`${containerNames(addingForbidden)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`)
  return details.length === 0 ? undefined : { reason: 'unrestricted capabilities', detail: details.join('; ') }
}

const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret']
/** The restricted sources in the order the reference library names the first one a volume has. */
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume',
  'cinder', 'cephfs', 'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk',
  'portworxVolume', 'scaleIO', 'storageos'
]

const restrictedVolumes: CheckPod = ({ spec }) => {
  const badVolumes: string[] = []
  const badTypes: string[] = []
  for (const v of (spec.volumes ?? []) as AnyObject[]) {
    if (v == null || ALLOWED_VOLUME_SOURCES.some(s => v[s] != null)) continue
    badVolumes.push(String(v.name ?? ''))
    badTypes.push(RESTRICTED_VOLUME_SOURCES.find(s => v[s] != null) ?? 'unknown')
  }
  if (badVolumes.length === 0) return undefined
  const types = sortedSet(badTypes)
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', badVolumes.length)} ${joinQuote(badVolumes)} ${pluralize('uses', 'use', badVolumes.length)} ` +
      `${pluralize('restricted volume type', 'restricted volume types', types.length)} ${joinQuote(types)}`
  }
}

const runAsNonRoot: CheckPod = ({ spec }) => {
  const podValue = securityContext(spec)?.runAsNonRoot
  const podBad = podValue === false
  const podNonRoot = podValue === true
  const explicitlyBad: string[] = []
  const implicitlyBad: string[] = []
  for (const c of containersOf(spec)) {
    const value = securityContext(c)?.runAsNonRoot
    if (value != null) {
      if (value === false) explicitlyBad.push(String(c.name ?? ''))
    } else if (!podNonRoot) {
      implicitlyBad.push(String(c.name ?? ''))
    }
  }
  const who = [...(podBad ? ['pod'] : []), ...(explicitlyBad.length > 0 ? [containerNames(explicitlyBad)] : [])]
  if (who.length > 0) return { reason: 'runAsNonRoot != true', detail: `${who.join(' and ')} must not set securityContext.runAsNonRoot=false` }
  if (implicitlyBad.length > 0) return { reason: 'runAsNonRoot != true', detail: `pod or ${containerNames(implicitlyBad)} must set securityContext.runAsNonRoot=true` }
  return undefined
}

const runAsUser: CheckPod = ({ spec }) => {
  const isRoot = (sc: AnyObject | undefined): boolean => sc?.runAsUser === 0
  const bad = containersOf(spec).filter(c => isRoot(securityContext(c))).map(c => String(c.name ?? ''))
  const who = [...(isRoot(securityContext(spec)) ? ['pod'] : []), ...(bad.length > 0 ? [containerNames(bad)] : [])]
  return who.length === 0 ? undefined : { reason: 'runAsUser=0', detail: `${who.join(' and ')} must not set runAsUser=0` }
}

const seccompProfileRestricted: CheckPod = ({ spec }) => {
  const explicit = explicitSeccompViolation(spec)
  if (explicit !== undefined) return explicit
  const podSet = validSeccompType(securityContext(spec)?.seccompProfile?.type)
  if (podSet) return undefined
  const unset = containersOf(spec).filter(c => securityContext(c)?.seccompProfile == null).map(c => String(c.name ?? ''))
  if (unset.length === 0) return undefined
  return { reason: 'seccompProfile', detail: `pod or ${containerNames(unset)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` }
}

export const RESTRICTED_CHECKS: readonly Check[] = [
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [{ minimumVersion: 8, checkPod: allowPrivilegeEscalation }, { minimumVersion: 25, checkPod: exceptWindows(allowPrivilegeEscalation) }]
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: 22, checkPod: capabilitiesRestricted, overrides: [CHECK_IDS.capabilitiesBaseline] },
      { minimumVersion: 25, checkPod: exceptWindows(capabilitiesRestricted), overrides: [CHECK_IDS.capabilitiesBaseline] }
    ]
  },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimumVersion: 0, checkPod: restrictedVolumes, overrides: [CHECK_IDS.hostPathVolumes] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimumVersion: 0, checkPod: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimumVersion: 23, checkPod: runAsUser }] },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: 19, checkPod: seccompProfileRestricted, overrides: [CHECK_IDS.seccompBaseline] },
      { minimumVersion: 25, checkPod: exceptWindows(seccompProfileRestricted), overrides: [CHECK_IDS.seccompBaseline] }
    ]
  }
]
