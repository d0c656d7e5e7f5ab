// Serving, storage and process flags: where the server listens, what it serves with, where it
// keeps its data, and how it stops.
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE } from '../../resources/services.js'
import { bool, count, duration, ip, maybe, namedCertKeys, oneOf, port, reachableIP, strings, text } from './kinds.js'
import { portRange, serviceCIDRs } from './service-kinds.js'
import { STORAGE_FLAGS } from './storage.js'
import { flag } from './spec.js'
import { ENDPOINT_RECONCILER_TYPES } from '../../controllers/endpoint-reconciler.js'
import { DEFAULT_SECURE_PORT } from '../../server/options.js'
import { DEFAULT_HTTP2_MAX_STREAMS } from '../../server/http-server.js'
import { checkCipherSuiteNames, INSECURE_CIPHER_NAMES, PREFERRED_CIPHER_NAMES, TLS_VERSION_NAMES } from '../../server/tls-protocol.js'
import { DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT, DEFAULT_MAX_REQUESTS_INFLIGHT, DEFAULT_REQUEST_TIMEOUT_MS } from '../../plugins/flowcontrol/index.js'

const CLIENT_ADDRESS = 'process: the serving certificate\'s names and the kubeconfig\'s server'

export const SERVING_FLAGS = [
  flag({
    name: 'advertise-address', key: 'advertiseAddress', kind: maybe(reachableIP), default: undefined, section: 'Generic', target: CLIENT_ADDRESS,
    help: 'The IP address on which to advertise the apiserver to members of the cluster. This address must be reachable by the rest of the cluster. If blank, the --bind-address will be used (127.0.0.1 where that is a wildcard).'
  }),
  flag({
    name: 'endpoint-reconciler-type', key: 'endpointReconcilerType', kind: oneOf(ENDPOINT_RECONCILER_TYPES, 'want lease or none (master-count is not offered)'), default: 'lease', section: 'Misc', target: 'endpointReconciler.type',
    help: 'Use an endpoint reconciler (lease, none)'
  }),
  flag({
    name: 'external-hostname', key: 'externalHostname', kind: maybe(text), default: undefined, section: 'Generic', target: CLIENT_ADDRESS,
    help: 'The hostname to use when generating externalized URLs for this master: the kubeconfig\'s server, and a name in the generated serving certificate (a load balancer\'s, say).'
  }),
  flag({
    name: 'shutdown-delay-duration', key: 'shutdownDelayMs', kind: duration, default: 0, section: 'Generic', target: 'process: the wait between SIGTERM and closing',
    help: 'Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure. Graceful termination starts after this delay has elapsed. This can be used to allow load balancer to stop sending traffic to this server.'
  }),
  flag({
    name: 'livez-grace-period', key: 'livezGracePeriodMs', kind: duration, default: 0, section: 'Generic', target: 'livezGracePeriodMs',
    help: 'This option represents the maximum amount of time it should take for apiserver to complete its startup sequence and become live. From apiserver\'s start time to when this amount of time has elapsed, /livez will assume that unfinished post-start hooks will complete successfully and therefore return true.'
  }),
  flag({
    name: 'shutdown-watch-termination-grace-period', key: 'shutdownWatchTerminationGracePeriodMs', kind: duration, default: 0, section: 'Generic', target: 'shutdown.watchTerminationGracePeriodMs',
    help: 'This option, if set, represents the maximum amount of grace period the apiserver will wait for active watch request(s) to drain during the graceful server shutdown window.'
  }),
  flag({
    name: 'enable-priority-and-fairness', key: 'enablePriorityAndFairness', kind: bool, default: true, section: 'Generic', target: 'flowControl.enabled',
    help: 'If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness'
  }),
  flag({
    name: 'max-requests-inflight', key: 'maxRequestsInflight', kind: count, default: DEFAULT_MAX_REQUESTS_INFLIGHT, section: 'Generic', target: 'flowControl.maxRequestsInflight',
    help: 'This and --max-mutating-requests-inflight are summed to determine the server\'s total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of non-mutating requests in flight, or a zero value disables the limit completely.'
  }),
  flag({
    name: 'max-mutating-requests-inflight', key: 'maxMutatingRequestsInflight', kind: count, default: DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT, section: 'Generic', target: 'flowControl.maxMutatingRequestsInflight',
    help: 'This and --max-requests-inflight are summed to determine the server\'s total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of mutating requests in flight, or a zero value disables the limit completely.'
  }),
  flag({
    name: 'request-timeout', key: 'requestTimeoutMs', kind: duration, default: DEFAULT_REQUEST_TIMEOUT_MS, section: 'Generic', target: 'flowControl.requestTimeoutMs',
    help: 'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.'
  }),
  ...STORAGE_FLAGS,
  flag({
    name: 'compaction-interval', key: 'compactionIntervalMs', kind: duration, default: 5 * 60_000, section: 'Storage', target: 'compactionIntervalMs',
    help: 'The interval of compaction requests. If 0, the compaction request from apiserver is disabled.'
  }),
  flag({
    name: 'bind-address', key: 'bindAddress', kind: ip, default: '127.0.0.1', section: 'Secure serving', target: 'process: the listener\'s address',
    help: 'The IP address on which to listen for the --secure-port port. If blank or an unspecified address (0.0.0.0 or ::), all interfaces will be used.'
  }),
  flag({
    name: 'secure-port', key: 'securePort', kind: port, default: DEFAULT_SECURE_PORT, section: 'Secure serving', target: 'securePort',
    help: 'The port on which to serve HTTPS with authentication and authorization. 0 picks a free port; the kubeconfig gets the real one.'
  }),
  flag({
    name: 'disable-http2-serving', key: 'disableHttp2Serving', kind: bool, default: false, section: 'Secure serving', target: 'http2.disabled',
    help: 'If true, HTTP2 serving will be disabled [default=false]'
  }),
  flag({
    name: 'http2-max-streams-per-connection', key: 'http2MaxStreamsPerConnection', kind: count, default: DEFAULT_HTTP2_MAX_STREAMS, section: 'Secure serving', target: 'http2.maxStreamsPerConnection',
    help: 'The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang\'s default (250).'
  }),
  flag({
    name: 'cert-dir', key: 'certDir', kind: maybe(text), default: undefined, defaultText: '<data-dir>/pki', section: 'Secure serving', target: 'process: the generated certificates',
    help: 'The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, the serving pair there is not used.'
  }),
  flag({
    name: 'tls-cert-file', key: 'tlsCertFile', kind: maybe(text), default: undefined, defaultText: 'generated', readsFile: true, section: 'Secure serving', target: 'tls.cert',
    help: 'File containing the default x509 Certificate for HTTPS. (CA cert, if any, concatenated after server cert). If --tls-cert-file and --tls-private-key-file are not provided, a certificate and key issued by the cluster CA are generated and saved to the directory specified by --cert-dir.'
  }),
  flag({
    name: 'tls-private-key-file', key: 'tlsPrivateKeyFile', kind: maybe(text), default: undefined, defaultText: 'generated', readsFile: true, section: 'Secure serving', target: 'tls.key',
    help: 'File containing the default x509 private key matching --tls-cert-file.'
  }),
  flag({
    name: 'tls-cipher-suites', key: 'tlsCipherSuites', kind: strings, default: [], section: 'Secure serving', target: 'tlsProtocol.cipherSuites',
    help: 'Comma-separated list of cipher suites for the server, by Go\'s names. If omitted, the default cipher suites of the TLS library (OpenSSL) will be used. \n' +
      `Preferred values: ${PREFERRED_CIPHER_NAMES.join(', ')}. \n` +
      `Insecure values: ${INSECURE_CIPHER_NAMES.join(', ')}.`,
    check: checkCipherSuiteNames
  }),
  flag({
    name: 'tls-min-version', key: 'tlsMinVersion', kind: maybe(oneOf(TLS_VERSION_NAMES, `unknown tls version; possible values: ${TLS_VERSION_NAMES.join(', ')}`)), default: undefined, section: 'Secure serving', target: 'tlsProtocol.minVersion',
    help: `Minimum TLS version supported. Possible values: ${TLS_VERSION_NAMES.join(', ')}`
  }),
  flag({
    name: 'tls-sni-cert-key', key: 'tlsSniCertKeys', kind: namedCertKeys, default: [], section: 'Secure serving', target: 'sniCertificates',
    help: 'A pair of x509 certificate and private key file paths, optionally suffixed with a list of domain patterns which are fully qualified domain names, possibly with prefixed wildcard segments. If no domain patterns are provided, the names of the certificate are extracted. Non-wildcard matches trump over wildcard matches, explicit domain patterns trump over extracted names. For multiple key/certificate pairs, use the --tls-sni-cert-key multiple times. Examples: "example.crt,example.key" or "foo.crt,foo.key:*.foo.com,foo.com".'
  }),
  flag({
    name: 'log-level', key: 'logLevel', kind: text, default: (env) => env.LOG_LEVEL ?? 'info', defaultText: 'info', section: 'Logs', target: 'logger',
    help: 'trace, debug, info, warn or error (also LOG_LEVEL); debug also logs a line per request.'
  }),
  flag({
    name: 'service-cluster-ip-range', key: 'serviceClusterIPRange', kind: serviceCIDRs, default: [DEFAULT_SERVICE_CLUSTER_IP_RANGE], section: 'Misc', target: 'services.clusterIPRanges',
    help: 'A CIDR notation IP range from which to assign service cluster IPs. This must not overlap with any IP ranges assigned to nodes or pods. Max of two dual-stack CIDRs is allowed.'
  }),
  flag({
    name: 'service-node-port-range', key: 'serviceNodePortRange', kind: portRange, default: DEFAULT_SERVICE_NODE_PORT_RANGE, section: 'Misc', target: 'services.nodePortRange',
    help: 'A port range to reserve for services with NodePort visibility. Example: \'30000-32767\'. Inclusive at both ends of the range.'
  }),
  flag({
    name: 'help', short: 'h', key: 'help', kind: bool, default: false, section: 'Global', target: 'process: prints this and exits',
    help: 'help for svc-apiserver'
  })
] as const
