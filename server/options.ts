// What buildApp takes: the server's settings, as the command line (bin/) fills them from flags.
// Each family reads its own part (AuthenticationSettings, AuthorizationSettings, ...).
import type { FastifyServerOptions } from 'fastify'
import type { AuthenticationSettings } from '../auth/authenticators/index.js'
import type { AuthorizationSettings } from '../auth/authorizers/index.js'
import type { AdmissionOptions } from '../resources/admission.js'
import type { ServiceAccountOptions } from '../auth/service-account-tokens.js'
import type { ClusterSigningOptions } from '../auth/csr-signer.js'
import type { AuditOptions } from '../plugins/audit/index.js'
import type { LeaderElectionOptions } from '../controllers/leader-election.js'
import type { NodeLifecycleOptions } from '../controllers/node-lifecycle.js'
import type { EndpointReconcilerOptions } from '../controllers/endpoint-reconciler.js'
import type { ShutdownOptions } from '../plugins/shutdown.js'
import type { FlowControlOptions } from '../plugins/flowcontrol/index.js'
import type { ServiceRanges } from '../resources/services.js'
import type { NodeAgentOptions } from '../plugins/streams/index.js'
import type { TlsProtocolOptions } from './tls-protocol.js'
import type { NamedCertKey } from './sni-certificates.js'

/** The port the server listens on unless told otherwise (--secure-port), the reference's. */
export const DEFAULT_SECURE_PORT = 6443

export interface AppOptions extends AuthenticationSettings, AuthorizationSettings {
  databaseUrl: string
  /** 0 disables compaction (tests that exercise it compact explicitly). */
  compactionIntervalMs?: number
  /** Compaction never drops the newest this-many revisions (default 1000). */
  compactionMinRetain?: number
  logger?: FastifyServerOptions['logger']
  /** A log line per request, as the reference server writes at -v=3 and above; off by default. */
  logRequests?: boolean
  /** --enable/--disable-admission-plugins, --admission-control-config-file, --admission-webhook-service-address and the plugins' own flags. */
  admission?: AdmissionOptions
  bookmarkIntervalMs?: number
  /** Unsent watch output at which a slow client's stream is closed (default 16 MiB). */
  watchMaxBufferedBytes?: number
  /** --api-audiences: what request tokens must be valid for; default the service-account issuer. */
  apiAudiences?: string[]
  /** --controllers: `*` for every default controller, names to add, `-name` to remove. Default `*`. */
  controllers?: string[]
  /** --service-account-* flags; without keys a key pair is generated for this process. */
  serviceAccounts?: ServiceAccountOptions
  /** The CA clients of this server trust: ca.crt of token secrets and of the root CA ConfigMap. */
  rootCAPem?: string
  /** --cluster-signing-*: the CA (default the generated one) that signs approved certificate requests. */
  clusterSigning?: ClusterSigningOptions
  /** --show-hidden-metrics-for-version */
  showHiddenMetricsForVersion?: string
  /** --runtime-config: `<group>/<version>[/<resource>]=true|false`, `api/all`, `api/ga`, `api/beta`, `api/alpha`. */
  runtimeConfig?: string[]
  /** --discovery-upstream-groups: discovery lists every group under its upstream spelling too. */
  discoveryUpstreamGroups?: boolean
  /** --feature-gates (`{ WatchList: false }`); unknown, removed and locked gates throw. */
  featureGates?: Record<string, boolean>
  /** --audit-policy-file and --audit-log-*: no audit log without both a policy and a path. */
  audit?: AuditOptions
  /** --node-monitor-period, --node-monitor-grace-period, --node-startup-grace-period: when the node lifecycle controller counts a node unreachable. */
  nodeLifecycle?: NodeLifecycleOptions
  /** --leader-elect* flags: which replica on the database runs the controllers. */
  leaderElection?: LeaderElectionOptions
  /** Graceful close (the server process): connections finish rather than being cut at close. */
  shutdown?: ShutdownOptions
  /** --service-cluster-ip-range and --service-node-port-range: what Services are allocated from. */
  services?: ServiceRanges
  /** --livez-grace-period: how long after start /livez counts unfinished post-start hooks as done. */
  livezGracePeriodMs?: number
  /** The port this server listens on: the `kubernetes` Service's target port (default 6443). */
  securePort?: number
  /**
   * --advertise-address: the address the `kubernetes` Service's endpoints name; default the bind
   * address when it names one host, else the first global address of this host's interfaces.
   */
  advertiseAddress?: string
  /** --endpoint-reconciler-type: how the `kubernetes` Service's endpoints name every replica's advertised address. */
  endpointReconciler?: EndpointReconcilerOptions
  /** --kubelet-*: how node agents are dialled for logs, exec, port-forward and nodes/proxy. */
  nodeAgent?: NodeAgentOptions
  /** --disable-http2-serving, --http2-max-streams-per-connection: HTTP/2 beside HTTP/1.1 on the TLS port. */
  http2?: { disabled?: boolean, maxStreamsPerConnection?: number }
  /** --tls-min-version, --tls-cipher-suites: the TLS versions and TLS 1.2 cipher suites the port agrees to. */
  tlsProtocol?: TlsProtocolOptions
  /** --tls-sni-cert-key: serving certificates chosen by the name the client asks for. */
  sniCertificates?: NamedCertKey[]
  /** --enable-priority-and-fairness, --max-requests-inflight, --max-mutating-requests-inflight, --request-timeout. */
  flowControl?: FlowControlOptions
}
