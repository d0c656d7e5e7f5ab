// The admission family: every built-in plugin, in the order the chain runs them. Each is a
// Fastify plugin that adds itself to `fastify.admission`; the flags decide which ones run.
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
import certificateApproval from './certificate-approval.js'
import certificateSigning from './certificate-signing.js'
import certificateSubjectRestriction from './certificate-subject-restriction.js'
import defaultIngressClass from './default-ingress-class.js'
import denyServiceExternalIPs from './deny-service-external-ips.js'
import alwaysDeny from './always-deny.js'
import securityContextDeny from './security-context-deny.js'
import podNodeSelector from './pod-node-selector.js'
import podTolerationRestriction from './pod-toleration-restriction.js'
import denyExec from './deny-exec.js'
import runtimeClass from './runtime-class.js'
import nodeRestriction from './node-restriction.js'

export const ADMISSION_PLUGINS: Array<FastifyPluginAsync<any>> = [
  alwaysAdmit,
  namespaceAutoProvision,
  namespaceLifecycle,
  namespaceExists,
  rbacEscalation,
  securityContextDeny,
  limitPodHardAntiAffinityTopology,
  limitRanger,
  serviceAccount,
  nodeRestriction,
  taintNodesByCondition,
  alwaysPullImages,
  imagePolicyWebhook,
  podSecurity,
  podNodeSelector,
  priority,
  defaultTolerationSeconds,
  podTolerationRestriction,
  denyExec,
  eventRateLimit,
  extendedResourceToleration,
  defaultStorageClass,
  storageObjectInUseProtection,
  ownerReferencesPermissionEnforcement,
  persistentVolumeClaimResize,
  runtimeClass,
  certificateApproval,
  certificateSigning,
  certificateSubjectRestriction,
  defaultIngressClass,
  denyServiceExternalIPs,
  // Last of the mutating and of the validating plugins (but AlwaysDeny), as in the reference server's order.
  mutatingAdmissionWebhook,
  validatingAdmissionWebhook,
  // After the webhooks, as upstream: a request a webhook refuses is never charged to a quota.
  resourceQuota,
  // After everything, as the reference server's order has it.
  alwaysDeny
]
