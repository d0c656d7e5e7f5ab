// The controller family: every in-process control loop, with whether `--controllers=*` runs it
// and the options it takes from the app's. `always` ones are part of the server itself (system
// namespaces, default roles, namespace deletion) and run whatever the flag says.
// Of several replicas on one database only the leader (controllers/leader-election.ts) runs the
// loops. system-namespaces, rbac-bootstrap and flowcontrol-bootstrap are no loops but start-up writes of the server
// itself (the reference server's post-start hooks): each replica makes them, as create-if-absent
// and compare-and-swap updates, so that a replica never serves without its namespaces and roles.
import type { FamilyEntry } from '../resources/plugin-family.js'
import tokenCleaner from './token-cleaner.js'
import serviceAccountController from './serviceaccounts.js'
import serviceAccountTokenController from './serviceaccount-tokens.js'
import rootCaPublisher from './root-ca-publisher.js'
import systemNamespaces from './system-namespaces.js'
import systemPriorityClasses from './system-priority-classes.js'
import namespaceController from './namespace.js'
import rbacBootstrap from './rbac-bootstrap.js'
import clusterRoleAggregation from './clusterrole-aggregation.js'
import storageProtectionController from './storage-protection.js'
import ephemeralVolumeController from './ephemeral-volume.js'
import garbageCollector from './garbage-collector.js'
import csrSigning from './csr-signing.js'
import csrApproving from './csr-approving.js'
import csrCleaner from './csr-cleaner.js'
import bootstrapSigner from './bootstrap-signer.js'
import resourceQuotaController from './resource-quota.js'
import kubernetesService, { type KubernetesServiceOptions } from './kubernetes-service.js'
import valuePoolRepair from './value-pool-repair.js'
import crdNaming from './crd-naming.js'
import disruptionController from './disruption.js'
import nodeLifecycle, { type NodeLifecycleOptions } from './node-lifecycle.js'
import endpointsController from './endpoints.js'
import endpointSliceController from './endpointslice.js'
import flowcontrolBootstrap from './flowcontrol-bootstrap.js'
import validatingAdmissionPolicyStatus, { CONTROLLER_NAME as VAP_STATUS } from './validatingadmissionpolicy-status.js'
import type { ClusterSigningOptions } from '../auth/csr-signer.js'

/** What a controller may read of the app's options. */
export interface ControllerContext {
  /** The CA clients of this server trust. */
  rootCAPem?: string
  /** The CA that signs approved certificate requests of the built-in signers. */
  clusterSigning?: ClusterSigningOptions
  /** The node lifecycle controller's periods (--node-monitor-period and the grace periods). */
  nodeLifecycle?: NodeLifecycleOptions
  /** The `kubernetes` Service's cluster IP (the first of the service range), this server's port, the address its endpoints name and how they are reconciled. */
  kubernetesService?: KubernetesServiceOptions
}

/** A controller: its name is the one `--controllers` uses; options undefined means it cannot run with these settings. */
export interface ControllerEntry extends FamilyEntry<ControllerContext> {
  /** `default`: run under `*`; `optional`: only when named; `always`: whatever the flag says. */
  enabled: 'default' | 'optional' | 'always'
}

export const CONTROLLERS: ControllerEntry[] = [
  { name: 'tokencleaner', plugin: tokenCleaner, enabled: 'default' },
  { name: 'serviceaccount', plugin: serviceAccountController, enabled: 'default' },
  { name: 'serviceaccount-token', plugin: serviceAccountTokenController, enabled: 'default', options: ctx => ({ caCertPem: ctx.rootCAPem }) },
  { name: 'root-ca-cert-publisher', plugin: rootCaPublisher, enabled: 'default', options: ctx => ctx.rootCAPem === undefined ? undefined : { caCertPem: ctx.rootCAPem } },
  { name: 'csrsigning', plugin: csrSigning, enabled: 'default', options: ctx => ctx.clusterSigning === undefined ? undefined : { signing: ctx.clusterSigning } },
  { name: 'csrapproving', plugin: csrApproving, enabled: 'default' },
  { name: 'csrcleaner', plugin: csrCleaner, enabled: 'default' },
  { name: 'bootstrapsigner', plugin: bootstrapSigner, enabled: 'optional' },
  { name: 'system-namespaces', plugin: systemNamespaces, enabled: 'always' },
  { name: 'system-priority-classes', plugin: systemPriorityClasses, enabled: 'always' },
  { name: 'namespace', plugin: namespaceController, enabled: 'always' },
  { name: 'rbac-bootstrap', plugin: rbacBootstrap, enabled: 'always' },
  { name: 'clusterrole-aggregation', plugin: clusterRoleAggregation, enabled: 'always' },
  { name: 'storage-protection', plugin: storageProtectionController, enabled: 'always' },
  { name: 'ephemeral-volume', plugin: ephemeralVolumeController, enabled: 'always' },
  { name: 'garbagecollector', plugin: garbageCollector, enabled: 'default' },
  { name: 'resourcequota', plugin: resourceQuotaController, enabled: 'default' },
  { name: 'kubernetes-service', plugin: kubernetesService, enabled: 'always', options: ctx => ctx.kubernetesService },
  { name: 'value-pool-repair', plugin: valuePoolRepair, enabled: 'always' },
  { name: 'disruption', plugin: disruptionController, enabled: 'default' },
  { name: 'nodelifecycle', plugin: nodeLifecycle, enabled: 'default', options: ctx => ctx.nodeLifecycle ?? {} },
  { name: 'endpoint', plugin: endpointsController, enabled: 'default' },
  { name: 'endpointslice', plugin: endpointSliceController, enabled: 'default' },
  { name: VAP_STATUS, plugin: validatingAdmissionPolicyStatus, enabled: 'default' },
  // The apiextensions server's own controllers (naming, establishing, finalizer): not kube-controller-manager's, so no --controllers switch.
  { name: 'apiextensions', plugin: crdNaming, enabled: 'always' },
  // The API server's own priority-and-fairness-config-producer post-start hook, on every replica like rbac-bootstrap.
  { name: 'flowcontrol-bootstrap', plugin: flowcontrolBootstrap, enabled: 'always' }
]

/** Controllers of this server that `*` enables, as --controllers names them. */
export const DEFAULT_CONTROLLERS = CONTROLLERS.filter(c => c.enabled === 'default').map(c => c.name)

/** Whether `--controllers` (`*`, names to add, `-name` to remove) runs a controller. */
export function controllerEnabled (c: ControllerEntry, flags: string[] = ['*']): boolean {
  if (c.enabled === 'always') return true
  if (flags.includes(`-${c.name}`)) return false
  if (flags.includes(c.name)) return true
  return flags.includes('*') && c.enabled === 'default'
}

/** Refuses `--controllers` names no controller has, as the reference controller manager does. */
export function checkControllerNames (flags: string[] = ['*']): void {
  const known = new Set(CONTROLLERS.map(c => c.name))
  for (const flag of flags) {
    const name = flag.replace(/^-/, '')
    if (name !== '*' && !known.has(name)) throw new Error(`"${name}" is not in the list of known controllers: ${[...known].join(', ')}`)
  }
}
