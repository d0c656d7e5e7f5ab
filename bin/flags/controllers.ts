// The controllers' flags, as kube-controller-manager names them: which run, the Lease that
// picks the replica running them, the CA the certificate signers issue with, and the key the
// token controller signs its secrets' tokens with.
import { CONTROLLER_MANAGER_LEASE, NAMESPACES } from '../../resources/naming.js'
import { bool, duration, maybe, strings, text } from './kinds.js'
import { flag } from './spec.js'

const ONLY_WITH_ELECTION = 'This is only applicable if leader election is enabled.'

export const CONTROLLER_FLAGS = [
  flag({
    name: 'controllers', key: 'controllers', kind: strings, default: ['*'], section: 'Controller manager', target: 'controllers',
    help: 'A list of controllers to enable. \'*\' enables all on-by-default controllers, \'foo\' enables the controller named \'foo\', \'-foo\' disables the controller named \'foo\'.'
  }),
  flag({
    name: 'leader-elect', key: 'leaderElect', kind: bool, default: true, section: 'Controller manager', target: 'leaderElection.enabled',
    help: 'Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability.'
  }),
  flag({
    name: 'leader-elect-lease-duration', key: 'leaderElectLeaseDurationMs', kind: duration, default: 15_000, section: 'Controller manager', target: 'leaderElection.leaseDurationMs',
    help: `The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership of a led but unrenewed leader slot. This is effectively the maximum duration that a leader can be stopped before it is replaced by another candidate. ${ONLY_WITH_ELECTION}`
  }),
  flag({
    name: 'leader-elect-renew-deadline', key: 'leaderElectRenewDeadlineMs', kind: duration, default: 10_000, section: 'Controller manager', target: 'leaderElection.renewDeadlineMs',
    help: `The interval between attempts by the acting master to renew a leadership slot before it stops leading. This must be less than the lease duration. ${ONLY_WITH_ELECTION}`
  }),
  flag({
    name: 'leader-elect-retry-period', key: 'leaderElectRetryPeriodMs', kind: duration, default: 2_000, section: 'Controller manager', target: 'leaderElection.retryPeriodMs',
    help: `The duration the clients should wait between attempting acquisition and renewal of a leadership. ${ONLY_WITH_ELECTION}`
  }),
  flag({
    name: 'leader-elect-resource-namespace', key: 'leaderElectResourceNamespace', kind: maybe(text), default: undefined, defaultText: NAMESPACES.system, section: 'Controller manager', target: 'leaderElection.namespace',
    help: 'The namespace of resource object that is used for locking during leader election.'
  }),
  flag({
    name: 'leader-elect-resource-name', key: 'leaderElectResourceName', kind: maybe(text), default: undefined, defaultText: CONTROLLER_MANAGER_LEASE, section: 'Controller manager', target: 'leaderElection.name',
    help: 'The name of resource object that is used for locking during leader election.'
  }),
  flag({
    name: 'node-monitor-period', key: 'nodeMonitorPeriodMs', kind: duration, default: 5_000, section: 'Controller manager', target: 'nodeLifecycle.monitorPeriodMs',
    help: 'The period for syncing NodeStatus in cloud-node-lifecycle-controller.'
  }),
  flag({
    name: 'node-monitor-grace-period', key: 'nodeMonitorGracePeriodMs', kind: duration, default: 50_000, section: 'Controller manager', target: 'nodeLifecycle.gracePeriodMs',
    help: 'Amount of time which we allow running Node to be unresponsive before marking it unhealthy. Must be N times more than kubelet\'s nodeStatusUpdateFrequency, where N means number of retries allowed for kubelet to post node status.'
  }),
  flag({
    name: 'node-startup-grace-period', key: 'nodeStartupGracePeriodMs', kind: duration, default: 60_000, section: 'Controller manager', target: 'nodeLifecycle.startupGracePeriodMs',
    help: 'Amount of time which we allow starting Node to be unresponsive before marking it unhealthy.'
  }),
  flag({
    name: 'cluster-signing-cert-file', key: 'clusterSigningCertFile', kind: maybe(text), default: undefined, defaultText: 'the generated CA', readsFile: true, section: 'CSR signing controller', target: 'clusterSigning.certPem',
    help: 'Filename containing a PEM-encoded X509 CA certificate used to issue cluster-scoped certificates.'
  }),
  flag({
    name: 'cluster-signing-key-file', key: 'clusterSigningKeyFile', kind: maybe(text), default: undefined, defaultText: 'the generated CA', readsFile: true, section: 'CSR signing controller', target: 'clusterSigning.keyPem',
    help: 'Filename containing a PEM-encoded RSA or ECDSA private key used to sign cluster-scoped certificates.'
  }),
  flag({
    name: 'cluster-signing-duration', key: 'clusterSigningDurationMs', kind: duration, default: 8760 * 3_600_000, section: 'CSR signing controller', target: 'clusterSigning.durationMs',
    help: 'The max length of duration signed certificates will be given. Individual CSRs may request shorter certs by setting spec.expirationSeconds.'
  }),
  flag({
    name: 'service-account-private-key-file', key: 'serviceAccountPrivateKeyFile', kind: maybe(text), default: undefined, defaultText: 'the --service-account-signing-key-file key', readsFile: true, section: 'Service account token controller', target: 'serviceAccounts.legacySigningKeyPem',
    help: 'Filename containing a PEM-encoded private RSA or ECDSA key used to sign service account tokens.'
  })
] as const
