// Group versions as data: the release each served version came in, and the versions the
// reference server has removed for the kinds served here (with what replaces them), so that
// --runtime-config can tell a removed version from a misspelt one.
import { GROUPS, IMAGE_POLICY, group } from './naming.js'

export type ApiLevel = 'alpha' | 'beta' | 'ga'

/** alpha (`v1alpha1`), beta (`v2beta3`) or GA (`v1`), from the version's name. */
export function levelOf (version: string): ApiLevel {
  if (/^v\d+alpha\d+$/.test(version)) return 'alpha'
  if (/^v\d+beta\d+$/.test(version)) return 'beta'
  return 'ga'
}

// Kubernetes version priority (the reference's version.CompareKubeAwareVersionStrings): GA
// before beta before alpha, higher numbers first within each, and names that are no Kubernetes
// version after all of them, alphabetically. Discovery lists a group's versions in this order.
const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/

/** Positive when `a` has the higher priority, negative when `b` has, 0 when they are the same. */
export function compareKubeVersions (a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a)
  const mb = KUBE_VERSION.exec(b)
  if (ma === null && mb === null) return a < b ? 1 : a > b ? -1 : 0
  if (ma === null) return -1
  if (mb === null) return 1
  const stability = (m: RegExpExecArray): number => m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0
  return stability(ma) - stability(mb) || Number(ma[1]) - Number(mb[1]) || Number(ma[3] ?? 0) - Number(mb[3] ?? 0)
}

/** Versions highest priority first: the order discovery lists them in, the first preferred. */
export const byVersionPriority = (a: string, b: string): number => compareKubeVersions(b, a)

export interface RemovedVersion {
  group: string
  version: string
  /** The resources that went with it; every resource of the group version when absent. */
  resources?: string[]
  removed: string
  replacement: string
}

/**
 * The spec's "APIs removed" table, for the groups this server serves; a removed version a kind
 * still carries in its definition (`olderVersions`, CSIStorageCapacity v1beta1) is not here.
 */
export const REMOVED_VERSIONS: readonly RemovedVersion[] = [
  { group: GROUPS.storage, version: 'v1beta1', resources: ['storageclasses', 'volumeattachments', 'csidrivers', 'csinodes'], removed: '1.22', replacement: `${GROUPS.storage}/v1` },
  { group: GROUPS.rbac, version: 'v1beta1', removed: '1.22', replacement: `${GROUPS.rbac}/v1` },
  { group: GROUPS.authentication, version: 'v1beta1', removed: '1.22', replacement: `${GROUPS.authentication}/v1` },
  { group: GROUPS.authorization, version: 'v1beta1', removed: '1.22', replacement: `${GROUPS.authorization}/v1` },
  { group: GROUPS.certificates, version: 'v1beta1', removed: '1.22', replacement: `${GROUPS.certificates}/v1` },
  { group: GROUPS.admissionregistration, version: 'v1beta1', removed: '1.22', replacement: `${GROUPS.admissionregistration}/v1` },
  { group: group('events'), version: 'v1beta1', removed: '1.25', replacement: `${group('events')}/v1` },
  { group: GROUPS.networking, version: 'v1beta1', resources: ['ingresses', 'ingressclasses'], removed: '1.22', replacement: `${GROUPS.networking}/v1` },
  { group: GROUPS.node, version: 'v1beta1', removed: '1.25', replacement: `${GROUPS.node}/v1` },
  { group: 'extensions', version: 'v1beta1', resources: ['deployments', 'daemonsets', 'replicasets'], removed: '1.16', replacement: 'apps/v1' },
  { group: 'extensions', version: 'v1beta1', resources: ['networkpolicies'], removed: '1.16', replacement: `${GROUPS.networking}/v1` },
  { group: 'extensions', version: 'v1beta1', resources: ['ingresses'], removed: '1.22', replacement: `${GROUPS.networking}/v1` },
  { group: 'apps', version: 'v1beta1', removed: '1.16', replacement: 'apps/v1' },
  { group: 'apps', version: 'v1beta2', removed: '1.16', replacement: 'apps/v1' },
  { group: 'batch', version: 'v1beta1', removed: '1.25', replacement: 'batch/v1' },
  { group: 'autoscaling', version: 'v2beta1', removed: '1.25', replacement: 'autoscaling/v2' },
  { group: 'autoscaling', version: 'v2beta2', removed: '1.26', replacement: 'autoscaling/v2' }
]

export function removedVersion (group: string, version: string, resource?: string): RemovedVersion | undefined {
  // A whole group version is removed only when every resource of it went; a key naming one
  // resource is removed when that resource went.
  return REMOVED_VERSIONS.find(r => r.group === group && r.version === version &&
    (r.resources === undefined || (resource !== undefined && r.resources.includes(resource))))
}

/**
 * Group versions the reference server knows as types only, serving no resource: --runtime-config
 * may turn them on (ImagePolicyWebhook's ImageReview), which serves nothing more.
 */
export const TYPE_ONLY_GROUP_VERSIONS: readonly string[] = [...IMAGE_POLICY.runtimeConfigKeys]
