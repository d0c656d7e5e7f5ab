// The admission family: every built-in plugin, in the order the chain runs them, with the name
// the flags use, whether it is on by default, and its phases. Each is a Fastify plugin that adds
// itself to `fastify.admission`; the chain runs only those the flags turn on.
import type { FastifyPluginAsync } from 'fastify'
import alwaysAdmit from './always-admit.js'
import namespaceAutoProvision from './namespace-autoprovision.js'
import namespaceLifecycle from './namespace-lifecycle.js'
import namespaceExists from './namespace-exists.js'
import limitPodHardAntiAffinityTopology from './limit-pod-hard-anti-affinity-topology.js'
import alwaysPullImages from './always-pull-images.js'
import imagePolicyWebhook from './image-policy-webhook.js'
import limitRanger from './limit-ranger.js'
import resourceQuota from './resource-quota.js'
import rbacEscalation from './rbac-escalation.js'
import serviceAccount from './service-account.js'
import taintNodesByCondition from './taint-nodes-by-condition.js'
import podSecurity from './pod-security/plugin.js'
import priority from './priority.js'
import defaultTolerationSeconds from './default-toleration-seconds.js'
import eventRateLimit from './event-rate-limit.js'
import extendedResourceToleration from './extended-resource-toleration.js'
import defaultStorageClass from './default-storage-class.js'
import persistentVolumeClaimResize from './persistent-volume-claim-resize.js'
import storageObjectInUseProtection from './storage-object-in-use-protection.js'
import ownerReferencesPermissionEnforcement from './owner-references-permission-enforcement.js'
import mutatingAdmissionWebhook from './webhooks/mutating.js'
import validatingAdmissionWebhook from './webhooks/validating.js'
import validatingAdmissionPolicy from './policy/plugin.js'
import mutatingAdmissionPolicy from './policy/mutating-plugin.js'
import certificateApproval from './certificate-approval.js'
import certificateSigning from './certificate-signing.js'
import certificateSubjectRestriction from './certificate-subject-restriction.js'
import defaultIngressClass from './default-ingress-class.js'
import denyServiceExternalIPs from './deny-service-external-ips.js'
import alwaysDeny from './always-deny.js'
import securityContextDeny from './security-context-deny.js'
import podNodeSelector from './pod-node-selector.js'
import podTolerationRestriction from './pod-toleration-restriction.js'
import { denyEscalatingExec, denyExecOnPrivileged } from './deny-exec.js'
import runtimeClass from './runtime-class.js'
import nodeRestriction from './node-restriction.js'
import type { AdmissionOptions } from '../resources/admission.js'

export type AdmissionPhase = 'mutating' | 'validating' | 'both'

export interface AdmissionPluginEntry {
  /** The name the plugin adds itself under, and that --enable/--disable-admission-plugins use. */
  name: string
  plugin: FastifyPluginAsync<AdmissionOptions>
  /**
   * `default`: on unless disabled, as in the reference; `optional`: only when enabled; `always`:
   * a check that is part of a kind's storage in the reference (the flags cannot name it).
   */
  enabled: 'default' | 'optional' | 'always'
  /** The phases it takes part in; the chain refuses a plugin that implements others. */
  phase: AdmissionPhase
  /** The reference's start-up warning for a deprecated plugin, logged when the flags turn it on. */
  deprecated?: string
}

export const deprecationWarning = (name: string): string =>
  `${name} admission controller is deprecated. Please remove this controller from your configuration files and scripts.`
const deprecatedExecPlugin = (name: string): string =>
  `the ${name} admission plugin is deprecated; the PodSecurity admission plugin or a custom admission plugin that limits the creation of pods is recommended instead`

export const ADMISSION_PLUGINS: readonly AdmissionPluginEntry[] = [
  { name: 'AlwaysAdmit', plugin: alwaysAdmit, enabled: 'optional', phase: 'both', deprecated: deprecationWarning('AlwaysAdmit') },
  { name: 'NamespaceAutoProvision', plugin: namespaceAutoProvision, enabled: 'optional', phase: 'mutating' },
  { name: 'NamespaceLifecycle', plugin: namespaceLifecycle, enabled: 'default', phase: 'validating' },
  { name: 'NamespaceExists', plugin: namespaceExists, enabled: 'optional', phase: 'validating' },
  { name: 'RBACEscalation', plugin: rbacEscalation, enabled: 'always', phase: 'validating' },
  { name: 'SecurityContextDeny', plugin: securityContextDeny, enabled: 'optional', phase: 'validating', deprecated: deprecationWarning('SecurityContextDeny') },
  { name: 'LimitPodHardAntiAffinityTopology', plugin: limitPodHardAntiAffinityTopology, enabled: 'optional', phase: 'validating' },
  { name: 'LimitRanger', plugin: limitRanger, enabled: 'default', phase: 'both' },
  { name: 'ServiceAccount', plugin: serviceAccount, enabled: 'default', phase: 'both' },
  { name: 'NodeRestriction', plugin: nodeRestriction, enabled: 'optional', phase: 'both' },
  { name: 'TaintNodesByCondition', plugin: taintNodesByCondition, enabled: 'default', phase: 'mutating' },
  { name: 'AlwaysPullImages', plugin: alwaysPullImages, enabled: 'optional', phase: 'both' },
  { name: 'ImagePolicyWebhook', plugin: imagePolicyWebhook, enabled: 'optional', phase: 'validating' },
  { name: 'PodSecurity', plugin: podSecurity, enabled: 'default', phase: 'validating' },
  { name: 'PodNodeSelector', plugin: podNodeSelector, enabled: 'optional', phase: 'both' },
  { name: 'Priority', plugin: priority, enabled: 'default', phase: 'both' },
  { name: 'DefaultTolerationSeconds', plugin: defaultTolerationSeconds, enabled: 'default', phase: 'mutating' },
  { name: 'PodTolerationRestriction', plugin: podTolerationRestriction, enabled: 'optional', phase: 'both' },
  { name: 'DenyEscalatingExec', plugin: denyEscalatingExec, enabled: 'optional', phase: 'validating', deprecated: deprecatedExecPlugin('DenyEscalatingExec') },
  { name: 'DenyExecOnPrivileged', plugin: denyExecOnPrivileged, enabled: 'optional', phase: 'validating', deprecated: deprecatedExecPlugin('DenyExecOnPrivileged') },
  { name: 'EventRateLimit', plugin: eventRateLimit, enabled: 'optional', phase: 'validating' },
  { name: 'ExtendedResourceToleration', plugin: extendedResourceToleration, enabled: 'optional', phase: 'mutating' },
  { name: 'DefaultStorageClass', plugin: defaultStorageClass, enabled: 'default', phase: 'mutating' },
  { name: 'StorageObjectInUseProtection', plugin: storageObjectInUseProtection, enabled: 'default', phase: 'mutating' },
  { name: 'OwnerReferencesPermissionEnforcement', plugin: ownerReferencesPermissionEnforcement, enabled: 'optional', phase: 'validating' },
  { name: 'PersistentVolumeClaimResize', plugin: persistentVolumeClaimResize, enabled: 'default', phase: 'validating' },
  { name: 'RuntimeClass', plugin: runtimeClass, enabled: 'default', phase: 'both' },
  { name: 'CertificateApproval', plugin: certificateApproval, enabled: 'default', phase: 'validating' },
  { name: 'CertificateSigning', plugin: certificateSigning, enabled: 'default', phase: 'validating' },
  { name: 'CertificateSubjectRestriction', plugin: certificateSubjectRestriction, enabled: 'default', phase: 'validating' },
  { name: 'DefaultIngressClass', plugin: defaultIngressClass, enabled: 'default', phase: 'mutating' },
  { name: 'DenyServiceExternalIPs', plugin: denyServiceExternalIPs, enabled: 'optional', phase: 'validating' },
  // Last of the mutating and of the validating plugins (but AlwaysDeny), as in the reference server's order.
  { name: 'MutatingAdmissionPolicy', plugin: mutatingAdmissionPolicy, enabled: 'default', phase: 'mutating' },
  { name: 'MutatingAdmissionWebhook', plugin: mutatingAdmissionWebhook, enabled: 'default', phase: 'mutating' },
  { name: 'ValidatingAdmissionPolicy', plugin: validatingAdmissionPolicy, enabled: 'default', phase: 'validating' },
  { name: 'ValidatingAdmissionWebhook', plugin: validatingAdmissionWebhook, enabled: 'default', phase: 'validating' },
  // After the webhooks, as upstream: a request a webhook refuses is never charged to a quota.
  { name: 'ResourceQuota', plugin: resourceQuota, enabled: 'default', phase: 'validating' },
  // After everything, as the reference server's order has it.
  { name: 'AlwaysDeny', plugin: alwaysDeny, enabled: 'optional', phase: 'both', deprecated: deprecationWarning('AlwaysDeny') }
]

/**
 * Plugins of the reference server that this one does not implement: the flags may disable them
 * (a configuration written for the reference often does), but enabling one stops start-up rather
 * than leaving the user to believe it runs.
 */
export const NOT_IMPLEMENTED = ['ClusterTrustBundleAttest', 'PodTopologyLabels']

/** Plugins on by default, as the reference server has them, of those this server implements. */
export const DEFAULT_ENABLED = ADMISSION_PLUGINS.filter(p => p.enabled === 'default').map(p => p.name)

/** The plugins the flags may enable, by name. */
export const PLUGIN_NAMES = ADMISSION_PLUGINS.filter(p => p.enabled !== 'always').map(p => p.name).sort()
const FLAG_NAMES = new Set(PLUGIN_NAMES)

/** Refuses flag values that name no plugin, or enable one this server lacks, as the reference refuses to start. */
export function checkPluginNames (opts: { enable?: string[], disable?: string[] }): void {
  const known = new Set([...FLAG_NAMES, ...NOT_IMPLEMENTED])
  for (const [flag, names] of [['enable-admission-plugins', opts.enable], ['disable-admission-plugins', opts.disable]] as const) {
    for (const name of names ?? []) {
      if (!known.has(name)) throw new Error(`${flag} plugin "${name}" is unknown; the known plugins are ${[...known].sort().join(', ')}`)
    }
  }
  for (const name of opts.enable ?? []) {
    if (NOT_IMPLEMENTED.includes(name)) {
      throw new Error(`enable-admission-plugins plugin "${name}" is a plugin of the reference server that this server does not implement; the plugins it implements are ${[...FLAG_NAMES].sort().join(', ')}`)
    }
  }
}
