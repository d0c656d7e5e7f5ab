// Command-line flags, named as the reference server names them.
import { isIP } from 'node:net'
import { checkPluginNames } from '../admission/index.js'
import { featureGates, parseFeatureGateFlag } from '../resources/feature-gates.js'
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE, servicePools } from '../resources/services.js'
export interface Flags {
  securePort: number
  bindAddress: string
  /** --advertise-address: the address clients (and the written kubeconfig) reach this server at. */
  advertiseAddress?: string
  /** --external-hostname: the host name clients use, e.g. a load balancer's; in the serving certificate and the kubeconfig. */
  externalHostname?: string
  dataDir: string
  storageUrl?: string
  compactionIntervalMs: number
  shutdownDelayMs: number
  enableAdmissionPlugins: string[]
  disableAdmissionPlugins: string[]
  admissionControlConfigFile?: string
  /** `<name>.<namespace>.svc[:port]` → `host:port`. */
  admissionWebhookServiceAddresses: Record<string, string>
  defaultNotReadyTolerationSeconds?: number
  defaultUnreachableTolerationSeconds?: number
  authorizationModes: string[]
  tokenAuthFile?: string
  anonymousAuth: boolean
  clientCaFile?: string
  tlsCertFile?: string
  tlsPrivateKeyFile?: string
  logLevel: string
  authorizationWebhookConfigFile?: string
  authorizationWebhookVersion: 'v1' | 'v1beta1'
  authorizationWebhookCacheAuthorizedTtlMs: number
  authorizationWebhookCacheUnauthorizedTtlMs: number
  authorizationPolicyFile?: string
  certDir?: string
  apiAudiences?: string[]
  enableBootstrapTokenAuth: boolean
  controllers: string[]
  serviceAccountKeyFiles: string[]
  serviceAccountSigningKeyFile?: string
  serviceAccountIssuers: string[]
  serviceAccountLookup: boolean
  oidcIssuerUrl?: string
  oidcClientId?: string
  oidcUsernameClaim?: string
  oidcUsernamePrefix?: string
  oidcGroupsClaim?: string
  oidcGroupsPrefix?: string
  oidcRequiredClaims: Record<string, string>
  oidcCaFile?: string
  oidcSigningAlgs?: string[]
  authenticationTokenWebhookConfigFile?: string
  authenticationTokenWebhookVersion: 'v1beta1' | 'v1'
  authenticationTokenWebhookCacheTtlMs: number
  requestheaderClientCaFile?: string
  requestheaderAllowedNames: string[]
  requestheaderUsernameHeaders: string[]
  requestheaderUidHeaders: string[]
  requestheaderGroupHeaders: string[]
  requestheaderExtraHeadersPrefix: string[]
  showHiddenMetricsForVersion?: string
  runtimeConfig: string[]
  /** --feature-gates, as given (`Name=true`); checked against the registry at parse time. */
  featureGates: Record<string, boolean>
  auditPolicyFile?: string
  auditLogPath?: string
  auditLogMaxAge: number
  auditLogMaxBackup: number
  auditLogMaxSize: number
  leaderElect: boolean
  leaderElectLeaseDurationMs: number
  leaderElectRenewDeadlineMs: number
  leaderElectRetryPeriodMs: number
  leaderElectResourceNamespace?: string
  leaderElectResourceName?: string
  shutdownWatchTerminationGracePeriodMs: number
  clusterSigningCertFile?: string
  clusterSigningKeyFile?: string
  clusterSigningDurationMs: number
  /** One CIDR, or two of different families (dual stack). */
  serviceClusterIPRange: string[]
  serviceNodePortRange: string
}

/** "5m", "30s", "1h30m", "250ms" → milliseconds. */
export function parseDuration (text: string): number {
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g
  let total = 0
  let consumed = ''
  for (const m of text.matchAll(re)) {
    const n = Number(m[1])
    total += n * (m[2] === 'h' ? 3_600_000 : m[2] === 'm' ? 60_000 : m[2] === 's' ? 1000 : 1)
    consumed += m[0]
  }
  if (consumed !== text || text === '') throw new Error(`invalid duration "${text}"`)
  return total
}

const list = (v: string): string[] => v.split(',').map(s => s.trim()).filter(s => s !== '')
const bool = (name: string, v: string): boolean => {
  if (v === 'true' || v === '') return true
  if (v === 'false') return false
  throw new Error(`invalid boolean for --${name}: "${v}"`)
}

const count = (name: string, v: string): number => {
  const n = Number(v)
  if (v === '' || !Number.isInteger(n) || n < 0) throw new Error(`invalid --${name} "${v}": want a whole number, 0 or more`)
  return n
}

const BOOLEAN_FLAGS = new Set(['anonymous-auth', 'enable-bootstrap-token-auth', 'service-account-lookup', 'leader-elect'])

/** A whole number of seconds, as the toleration flags take it. */
function seconds (name: string, value: string): number {
  const n = Number(value)
  if (value === '' || !Number.isSafeInteger(n) || n < 0) throw new Error(`invalid --${name} "${value}": a whole number of seconds is needed`)
  return n
}

export function parseFlags (argv: string[], env: NodeJS.ProcessEnv = process.env): Flags {
  const f: Flags = {
    securePort: 6443,
    bindAddress: '127.0.0.1',
    dataDir: './data',
    storageUrl: env.DATABASE_URL,
    compactionIntervalMs: 5 * 60_000,
    shutdownDelayMs: 0,
    enableAdmissionPlugins: [],
    disableAdmissionPlugins: [],
    admissionWebhookServiceAddresses: {},
    authorizationModes: ['Node', 'RBAC'],
    anonymousAuth: true,
    logLevel: env.LOG_LEVEL ?? 'info',
    authorizationWebhookVersion: 'v1beta1',
    authorizationWebhookCacheAuthorizedTtlMs: 5 * 60_000,
    authorizationWebhookCacheUnauthorizedTtlMs: 30_000,
    enableBootstrapTokenAuth: false,
    controllers: ['*'],
    serviceAccountKeyFiles: [],
    serviceAccountIssuers: [],
    serviceAccountLookup: true,
    oidcRequiredClaims: {},
    authenticationTokenWebhookVersion: 'v1beta1',
    authenticationTokenWebhookCacheTtlMs: 2 * 60_000,
    requestheaderAllowedNames: [],
    requestheaderUsernameHeaders: [],
    requestheaderUidHeaders: [],
    requestheaderGroupHeaders: [],
    requestheaderExtraHeadersPrefix: [],
    runtimeConfig: [],
    featureGates: {},
    auditLogMaxAge: 0,
    auditLogMaxBackup: 0,
    auditLogMaxSize: 0,
    leaderElect: true,
    leaderElectLeaseDurationMs: 15_000,
    leaderElectRenewDeadlineMs: 10_000,
    leaderElectRetryPeriodMs: 2_000,
    shutdownWatchTerminationGracePeriodMs: 0,
    clusterSigningDurationMs: 8760 * 3_600_000,
    serviceClusterIPRange: [DEFAULT_SERVICE_CLUSTER_IP_RANGE],
    serviceNodePortRange: DEFAULT_SERVICE_NODE_PORT_RANGE
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"`)
    let [name, value] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined]
    if (value === undefined) {
      if (BOOLEAN_FLAGS.has(name)) value = ''
      else {
        value = argv[++i]
        if (value === undefined) throw new Error(`flag --${name} needs a value`)
      }
    }
    switch (name) {
      case 'secure-port': f.securePort = Number(value); if (!Number.isInteger(f.securePort) || f.securePort < 0 || f.securePort > 65535) throw new Error(`invalid --secure-port "${value}"`); break
      case 'bind-address': f.bindAddress = value; break
      case 'advertise-address':
        if (isIP(value) === 0 || value === '0.0.0.0' || value === '::') throw new Error(`invalid --advertise-address "${value}": an IP address clients can reach`)
        f.advertiseAddress = value
        break
      case 'external-hostname': f.externalHostname = value; break
      case 'data-dir': f.dataDir = value; break
      case 'storage-url': f.storageUrl = value; break
      case 'compaction-interval': f.compactionIntervalMs = parseDuration(value); break
      case 'shutdown-delay-duration': f.shutdownDelayMs = parseDuration(value); break
      case 'enable-admission-plugins': f.enableAdmissionPlugins = list(value); break
      case 'disable-admission-plugins': f.disableAdmissionPlugins = list(value); break
      case 'admission-control-config-file': f.admissionControlConfigFile = value; break
      case 'admission-webhook-service-address': {
        for (const pair of list(value)) {
          const eq = pair.indexOf('=')
          if (eq <= 0 || !/^[^=]+:\d+$/.test(pair.slice(eq + 1))) throw new Error(`invalid --admission-webhook-service-address "${pair}": want <name>.<namespace>.svc[:port]=host:port`)
          f.admissionWebhookServiceAddresses[pair.slice(0, eq)] = pair.slice(eq + 1)
        }
        break
      }
      case 'default-not-ready-toleration-seconds': f.defaultNotReadyTolerationSeconds = seconds(name, value); break
      case 'default-unreachable-toleration-seconds': f.defaultUnreachableTolerationSeconds = seconds(name, value); break
      case 'authorization-mode': f.authorizationModes = list(value); break
      case 'token-auth-file': f.tokenAuthFile = value; break
      case 'anonymous-auth': f.anonymousAuth = bool(name, value); break
      case 'client-ca-file': f.clientCaFile = value; break
      case 'tls-cert-file': f.tlsCertFile = value; break
      case 'tls-private-key-file': f.tlsPrivateKeyFile = value; break
      case 'log-level': f.logLevel = value; break
      case 'authorization-webhook-config-file': f.authorizationWebhookConfigFile = value; break
      case 'authorization-webhook-version':
        if (value !== 'v1' && value !== 'v1beta1') throw new Error(`invalid --authorization-webhook-version "${value}": must be v1 or v1beta1`)
        f.authorizationWebhookVersion = value
        break
      case 'authorization-webhook-cache-authorized-ttl': f.authorizationWebhookCacheAuthorizedTtlMs = parseDuration(value); break
      case 'authorization-webhook-cache-unauthorized-ttl': f.authorizationWebhookCacheUnauthorizedTtlMs = parseDuration(value); break
      case 'authorization-policy-file': f.authorizationPolicyFile = value; break
      case 'cert-dir': f.certDir = value; break
      case 'api-audiences': f.apiAudiences = list(value); break
      case 'enable-bootstrap-token-auth': f.enableBootstrapTokenAuth = bool(name, value); break
      case 'controllers': f.controllers = list(value); break
      case 'service-account-key-file': f.serviceAccountKeyFiles.push(value); break
      case 'service-account-signing-key-file': f.serviceAccountSigningKeyFile = value; break
      case 'service-account-issuer': f.serviceAccountIssuers.push(value); break
      case 'service-account-lookup': f.serviceAccountLookup = bool(name, value); break
      case 'oidc-issuer-url': f.oidcIssuerUrl = value; break
      case 'oidc-client-id': f.oidcClientId = value; break
      case 'oidc-username-claim': f.oidcUsernameClaim = value; break
      case 'oidc-username-prefix': f.oidcUsernamePrefix = value; break
      case 'oidc-groups-claim': f.oidcGroupsClaim = value; break
      case 'oidc-groups-prefix': f.oidcGroupsPrefix = value; break
      case 'oidc-required-claim': {
        for (const pair of list(value)) {
          const eq = pair.indexOf('=')
          if (eq <= 0) throw new Error(`invalid --oidc-required-claim "${pair}": want key=value`)
          f.oidcRequiredClaims[pair.slice(0, eq)] = pair.slice(eq + 1)
        }
        break
      }
      case 'oidc-ca-file': f.oidcCaFile = value; break
      case 'oidc-signing-algs': f.oidcSigningAlgs = list(value); break
      case 'authentication-token-webhook-config-file': f.authenticationTokenWebhookConfigFile = value; break
      case 'authentication-token-webhook-version':
        if (value !== 'v1' && value !== 'v1beta1') throw new Error(`invalid --authentication-token-webhook-version "${value}": want v1 or v1beta1`)
        f.authenticationTokenWebhookVersion = value
        break
      case 'authentication-token-webhook-cache-ttl': f.authenticationTokenWebhookCacheTtlMs = parseDuration(value); break
      case 'requestheader-client-ca-file': f.requestheaderClientCaFile = value; break
      case 'requestheader-allowed-names': f.requestheaderAllowedNames = list(value); break
      case 'requestheader-username-headers': f.requestheaderUsernameHeaders = list(value); break
      case 'requestheader-uid-headers': f.requestheaderUidHeaders = list(value); break
      case 'requestheader-group-headers': f.requestheaderGroupHeaders = list(value); break
      case 'requestheader-extra-headers-prefix': f.requestheaderExtraHeadersPrefix = list(value); break
      case 'show-hidden-metrics-for-version': f.showHiddenMetricsForVersion = value; break
      case 'runtime-config': f.runtimeConfig.push(...list(value)); break
      case 'feature-gates': {
        // As the reference flag: each occurrence adds to the map, and a bad one stops start-up.
        try {
          Object.assign(f.featureGates, parseFeatureGateFlag([value]))
          featureGates(f.featureGates)
        } catch (err) {
          throw new Error(`invalid argument "${value}" for "--feature-gates" flag: ${(err as Error).message}`)
        }
        break
      }
      case 'audit-policy-file': f.auditPolicyFile = value; break
      case 'audit-log-path': f.auditLogPath = value; break
      case 'audit-log-maxage': f.auditLogMaxAge = count(name, value); break
      case 'audit-log-maxbackup': f.auditLogMaxBackup = count(name, value); break
      case 'audit-log-maxsize': f.auditLogMaxSize = count(name, value); break
      case 'leader-elect': f.leaderElect = bool(name, value); break
      case 'leader-elect-lease-duration': f.leaderElectLeaseDurationMs = parseDuration(value); break
      case 'leader-elect-renew-deadline': f.leaderElectRenewDeadlineMs = parseDuration(value); break
      case 'leader-elect-retry-period': f.leaderElectRetryPeriodMs = parseDuration(value); break
      case 'leader-elect-resource-namespace': f.leaderElectResourceNamespace = value; break
      case 'leader-elect-resource-name': f.leaderElectResourceName = value; break
      case 'shutdown-watch-termination-grace-period': f.shutdownWatchTerminationGracePeriodMs = parseDuration(value); break
      case 'cluster-signing-cert-file': f.clusterSigningCertFile = value; break
      case 'cluster-signing-key-file': f.clusterSigningKeyFile = value; break
      case 'cluster-signing-duration': f.clusterSigningDurationMs = parseDuration(value); break
      case 'service-cluster-ip-range': f.serviceClusterIPRange = list(value); servicePools({ clusterIPRanges: f.serviceClusterIPRange }); break
      case 'service-node-port-range': f.serviceNodePortRange = value; servicePools({ nodePortRange: value }); break
      default: throw new Error(`unknown flag: --${name}`)
    }
  }
  checkPluginNames({ enable: f.enableAdmissionPlugins, disable: f.disableAdmissionPlugins })
  return f
}
