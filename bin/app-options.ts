// The app's options from the parsed flags: each value to the option its flag-table entry names
// as target. Files are read here, so a missing one stops start-up before the app is built.
import { readFileSync } from 'node:fs'
import type { Pki } from '../auth/pki.js'
import type { Policy } from '../plugins/audit/policy.js'
import type { AppOptions } from '../server/app.js'
import { authOptions } from './auth-options.js'
import type { Flags } from './flags.js'
import { stoppingStart } from './stop-on-signal.js'

/** What the process has ready before the app: its database, certificates and audit policy. */
export interface Prepared {
  databaseUrl: string
  pki: Pick<Pki, 'caCertPem' | 'caKeyPem' | 'servingCertPem' | 'servingKeyPem' | 'serviceAccountKeyPem'>
  auditPolicy?: Policy
}

/** The levels at which the server says more: a line per request, and a failed start's stack. */
export const verbose = (flags: Pick<Flags, 'logLevel'>): boolean => flags.logLevel === 'debug' || flags.logLevel === 'trace'

/** The contents of a flag's file; a missing one names the flag. */
function readFlagFile (flag: string, path: string | undefined): string | undefined {
  if (path === undefined) return undefined
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    throw new Error(`--${flag}: ${(err as Error).message}`)
  }
}

/** pino's warn level: what a start stopped by a signal no longer says (its errors it still does). */
const WARN = 40

/**
 * A signal while the server starts stops the embedded PostgreSQL under the start: its pools,
 * log reader and controllers then warn of a database that went away, which is the stop itself.
 */
function dropWarningsOfAStoppedStart (this: unknown, args: unknown[], method: (...a: unknown[]) => void, level: number): void {
  if (level <= WARN && stoppingStart()) return
  method.apply(this, args)
}

export function appOptions (flags: Flags, { databaseUrl, pki, auditPolicy }: Prepared): AppOptions {
  const clientCA = [pki.caCertPem, ...(flags.clientCaFile === undefined ? [] : [readFileSync(flags.clientCaFile, 'utf8')])].join('\n')
  const tls = {
    cert: flags.tlsCertFile === undefined ? pki.servingCertPem : readFileSync(flags.tlsCertFile, 'utf8'),
    key: flags.tlsPrivateKeyFile === undefined ? pki.servingKeyPem : readFileSync(flags.tlsPrivateKeyFile, 'utf8'),
    clientCA
  }
  return {
    databaseUrl,
    tls,
    logger: { level: flags.logLevel, hooks: { logMethod: dropWarningsOfAStoppedStart } },
    logRequests: verbose(flags),
    compactionIntervalMs: flags.compactionIntervalMs,
    tokenAuthFile: flags.tokenAuthFile,
    anonymousAuth: flags.anonymousAuth,
    authorizationModes: flags.authorizationModes,
    authorizationPolicyFile: flags.authorizationPolicyFile,
    authorizationWebhook: flags.authorizationWebhookConfigFile === undefined
      ? undefined
      : {
          configFile: flags.authorizationWebhookConfigFile,
          version: flags.authorizationWebhookVersion,
          authorizedTtlMs: flags.authorizationWebhookCacheAuthorizedTtlMs,
          unauthorizedTtlMs: flags.authorizationWebhookCacheUnauthorizedTtlMs
        },
    admission: {
      enable: flags.enableAdmissionPlugins,
      disable: flags.disableAdmissionPlugins,
      configFile: flags.admissionControlConfigFile,
      webhookServiceAddresses: flags.admissionWebhookServiceAddresses,
      defaultNotReadyTolerationSeconds: flags.defaultNotReadyTolerationSeconds,
      defaultUnreachableTolerationSeconds: flags.defaultUnreachableTolerationSeconds
    },
    showHiddenMetricsForVersion: flags.showHiddenMetricsForVersion,
    runtimeConfig: flags.runtimeConfig,
    discoveryUpstreamGroups: flags.discoveryUpstreamGroups,
    featureGates: flags.featureGates,
    audit: { policy: auditPolicy, path: flags.auditLogPath, maxAgeDays: flags.auditLogMaxAge, maxBackups: flags.auditLogMaxBackup, maxSizeMB: flags.auditLogMaxSize },
    livezGracePeriodMs: flags.livezGracePeriodMs,
    flowControl: {
      enabled: flags.enablePriorityAndFairness,
      maxRequestsInflight: flags.maxRequestsInflight,
      maxMutatingRequestsInflight: flags.maxMutatingRequestsInflight,
      requestTimeoutMs: flags.requestTimeoutMs
    },
    shutdown: { watchTerminationGracePeriodMs: flags.shutdownWatchTerminationGracePeriodMs },
    services: { clusterIPRanges: flags.serviceClusterIPRange, nodePortRange: flags.serviceNodePortRange },
    securePort: flags.securePort,
    http2: { disabled: flags.disableHttp2Serving, maxStreamsPerConnection: flags.http2MaxStreamsPerConnection },
    tlsProtocol: { minVersion: flags.tlsMinVersion, cipherSuites: flags.tlsCipherSuites },
    sniCertificates: flags.tlsSniCertKeys,
    nodeLifecycle: {
      monitorPeriodMs: flags.nodeMonitorPeriodMs,
      gracePeriodMs: flags.nodeMonitorGracePeriodMs,
      startupGracePeriodMs: flags.nodeStartupGracePeriodMs
    },
    // A wildcard or loopback bind names no address other hosts reach: then one of this host's.
    advertiseAddress: flags.advertiseAddress ?? (['0.0.0.0', '::', '::1'].includes(flags.bindAddress) || flags.bindAddress.startsWith('127.') ? undefined : flags.bindAddress),
    endpointReconciler: { type: flags.endpointReconcilerType },
    leaderElection: {
      enabled: flags.leaderElect,
      leaseDurationMs: flags.leaderElectLeaseDurationMs,
      renewDeadlineMs: flags.leaderElectRenewDeadlineMs,
      retryPeriodMs: flags.leaderElectRetryPeriodMs,
      namespace: flags.leaderElectResourceNamespace,
      name: flags.leaderElectResourceName
    },
    nodeAgent: {
      clientCertPem: readFlagFile('kubelet-client-certificate', flags.kubeletClientCertificate),
      clientKeyPem: readFlagFile('kubelet-client-key', flags.kubeletClientKey),
      caPem: readFlagFile('kubelet-certificate-authority', flags.kubeletCertificateAuthority),
      preferredAddressTypes: flags.kubeletPreferredAddressTypes,
      timeoutMs: flags.kubeletTimeoutMs
    },
    ...authOptions(flags, pki)
  }
}
