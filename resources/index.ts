// Every kind this server serves, in registration order.
import type { Resource } from './define.js'
import namespaces from './namespaces.js'
import configmaps from './configmaps.js'
import secrets from './secrets.js'
import events from './events.js'
import roles from './roles.js'
import clusterroles from './clusterroles.js'
import rolebindings from './rolebindings.js'
import clusterrolebindings from './clusterrolebindings.js'
import selfsubjectaccessreviews from './selfsubjectaccessreviews.js'
import subjectaccessreviews from './subjectaccessreviews.js'
import localsubjectaccessreviews from './localsubjectaccessreviews.js'
import selfsubjectrulesreviews from './selfsubjectrulesreviews.js'
import persistentvolumeclaims from './persistentvolumeclaims.js'
import persistentvolumes from './persistentvolumes.js'
import pods from './pods.js'
import bindings from './bindings.js'
import nodes from './nodes.js'
import storageclasses from './storageclasses.js'
import volumeattachments from './volumeattachments.js'
import csidrivers from './csidrivers.js'
import csinodes from './csinodes.js'
import csistoragecapacities from './csistoragecapacities.js'
import serviceaccounts from './serviceaccounts.js'
import mutatingwebhookconfigurations from './mutatingwebhookconfigurations.js'
import validatingwebhookconfigurations from './validatingwebhookconfigurations.js'
import validatingadmissionpolicies from './validatingadmissionpolicies.js'
import validatingadmissionpolicybindings from './validatingadmissionpolicybindings.js'
import mutatingadmissionpolicies from './mutatingadmissionpolicies.js'
import mutatingadmissionpolicybindings from './mutatingadmissionpolicybindings.js'
import leases from './leases.js'
import certificatesigningrequests from './certificatesigningrequests.js'
import selfsubjectreviews from './selfsubjectreviews.js'
import priorityclasses from './priorityclasses.js'
import ingressclasses from './ingressclasses.js'
import ingresses from './ingresses.js'
import limitranges from './limitranges.js'
import resourcequotas from './resourcequotas.js'
import runtimeclasses from './runtimeclasses.js'
import services from './services.js'
import tokenreviews from './tokenreviews.js'
import customresourcedefinitions from './customresourcedefinitions.js'
import horizontalpodautoscalers from './horizontalpodautoscalers.js'
import deployments from './deployments.js'
import replicasets from './replicasets.js'
import replicationcontrollers from './replicationcontrollers.js'
import statefulsets from './statefulsets.js'
import daemonsets from './daemonsets.js'
import controllerrevisions from './controllerrevisions.js'
import jobs from './jobs.js'
import cronjobs from './cronjobs.js'
import poddisruptionbudgets from './poddisruptionbudgets.js'
import networkpolicies from './networkpolicies.js'
import endpoints from './endpoints.js'
import endpointslices from './endpointslices.js'
import flowschemas from './flowschemas.js'
import prioritylevelconfigurations from './prioritylevelconfigurations.js'

export const RESOURCES: readonly Resource[] = [
  namespaces,
  configmaps,
  secrets,
  events,
  roles,
  clusterroles,
  rolebindings,
  clusterrolebindings,
  selfsubjectaccessreviews,
  subjectaccessreviews,
  localsubjectaccessreviews,
  selfsubjectrulesreviews,
  persistentvolumeclaims,
  persistentvolumes,
  pods,
  bindings,
  nodes,
  storageclasses,
  volumeattachments,
  csidrivers,
  csinodes,
  csistoragecapacities,
  serviceaccounts,
  mutatingwebhookconfigurations,
  validatingwebhookconfigurations,
  validatingadmissionpolicies,
  validatingadmissionpolicybindings,
  mutatingadmissionpolicies,
  mutatingadmissionpolicybindings,
  leases,
  certificatesigningrequests,
  selfsubjectreviews,
  priorityclasses,
  ingressclasses,
  ingresses,
  limitranges,
  resourcequotas,
  runtimeclasses,
  services,
  tokenreviews,
  customresourcedefinitions,
  horizontalpodautoscalers,
  deployments,
  replicasets,
  replicationcontrollers,
  statefulsets,
  daemonsets,
  controllerrevisions,
  jobs,
  cronjobs,
  poddisruptionbudgets,
  networkpolicies,
  endpoints,
  endpointslices,
  flowschemas,
  prioritylevelconfigurations
]
