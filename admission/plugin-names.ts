// The admission plugin names the flags may use, checked while the flags are read so a typo
// stops start-up before anything else happens. No imports: bin/flags.ts reads this.

/** Every plugin name the reference server knows; the flags may name only these. */
export const KNOWN_PLUGINS = [
  'AlwaysAdmit', 'AlwaysDeny', 'AlwaysPullImages', 'CertificateApproval', 'CertificateSigning',
  'CertificateSubjectRestriction', 'ClusterTrustBundleAttest', 'DefaultIngressClass', 'DefaultStorageClass',
  'DefaultTolerationSeconds', 'DenyEscalatingExec', 'DenyExecOnPrivileged', 'DenyServiceExternalIPs', 'EventRateLimit', 'ExtendedResourceToleration',
  'ImagePolicyWebhook', 'LimitPodHardAntiAffinityTopology', 'LimitRanger', 'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook', 'NamespaceAutoProvision', 'NamespaceExists', 'NamespaceLifecycle', 'NodeRestriction',
  'OwnerReferencesPermissionEnforcement', 'PersistentVolumeClaimResize', 'PodNodeSelector', 'PodSecurity',
  'PodTolerationRestriction', 'PodTopologyLabels', 'Priority', 'ResourceQuota', 'RuntimeClass', 'SecurityContextDeny', 'ServiceAccount',
  'StorageObjectInUseProtection', 'TaintNodesByCondition', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook'
]

/** Refuses flag values that name no plugin, as the reference server refuses to start. */
export function checkPluginNames (opts: { enable?: string[], disable?: string[] }): void {
  const known = new Set(KNOWN_PLUGINS)
  for (const [flag, names] of [['enable-admission-plugins', opts.enable], ['disable-admission-plugins', opts.disable]] as const) {
    for (const name of names ?? []) {
      if (!known.has(name)) throw new Error(`${flag} plugin "${name}" is unknown; the known plugins are ${[...known].sort().join(', ')}`)
    }
  }
}
