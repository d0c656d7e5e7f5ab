// The admission family: every built-in plugin, in the order the chain runs them. Each is a
// Fastify plugin that adds itself to `fastify.admission`; the flags decide which ones run.
import type { FastifyPluginAsync } from 'fastify'
import namespaceLifecycle from './namespace-lifecycle.js'
import limitPodHardAntiAffinityTopology from './limit-pod-hard-anti-affinity-topology.js'
import alwaysPullImages from './always-pull-images.js'
import rbacEscalation from './rbac-escalation.js'
import serviceAccount from './service-account.js'
import taintNodesByCondition from './taint-nodes-by-condition.js'
import priority from './priority.js'
import defaultTolerationSeconds from './default-toleration-seconds.js'
import extendedResourceToleration from './extended-resource-toleration.js'
import defaultStorageClass from './default-storage-class.js'
import persistentVolumeClaimResize from './persistent-volume-claim-resize.js'
import storageObjectInUseProtection from './storage-object-in-use-protection.js'
import mutatingAdmissionWebhook from './webhooks/mutating.js'
import validatingAdmissionWebhook from './webhooks/validating.js'
import certificateApproval from './certificate-approval.js'
import certificateSigning from './certificate-signing.js'
import certificateSubjectRestriction from './certificate-subject-restriction.js'
import securityContextDeny from './security-context-deny.js'
import podNodeSelector from './pod-node-selector.js'
import podTolerationRestriction from './pod-toleration-restriction.js'
import denyExec from './deny-exec.js'
import runtimeClass from './runtime-class.js'
import nodeRestriction from './node-restriction.js'

export const ADMISSION_PLUGINS: Array<FastifyPluginAsync<any>> = [
  namespaceLifecycle,
  rbacEscalation,
  securityContextDeny,
  limitPodHardAntiAffinityTopology,
  serviceAccount,
  nodeRestriction,
  taintNodesByCondition,
  alwaysPullImages,
  podNodeSelector,
  priority,
  defaultTolerationSeconds,
  podTolerationRestriction,
  denyExec,
  extendedResourceToleration,
  defaultStorageClass,
  persistentVolumeClaimResize,
  storageObjectInUseProtection,
  runtimeClass,
  certificateApproval,
  certificateSigning,
  certificateSubjectRestriction,
  // Last of the mutating and of the validating plugins, as in the reference server's order.
  mutatingAdmissionWebhook,
  validatingAdmissionWebhook
]
