// buildApp: the whole server as one Fastify instance, every stage a plugin, in pipeline order.
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync, type FastifyPluginCallback, type FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import errors from '../plugins/errors.js'
import { clientErrorHandler, frameworkErrors, MAX_HEADER_BYTES } from '../plugins/client-errors.js'
import requestInfo from '../plugins/request-info.js'
import metrics from '../plugins/metrics/index.js'
import { parseRuntimeConfig } from '../plugins/runtime-config.js'
import { featureGates, type FeatureGates } from '../resources/feature-gates.js'
import deprecation from '../plugins/deprecation.js'
import audit, { type AuditOptions } from '../plugins/audit/index.js'
import health from '../plugins/health.js'
import version from '../plugins/version.js'
import rest, { BODY_LIMIT } from '../plugins/rest/index.js'
import protobuf from '../plugins/protobuf/index.js'
import discovery from '../plugins/discovery.js'
import openapi from '../plugins/openapi/index.js'
import storage from '../storage/plugin.js'
import shutdown, { type ShutdownOptions } from '../plugins/shutdown.js'
import authn from '../auth/authn.js'
import x509 from '../auth/authenticators/x509.js'
import tokenFile from '../auth/authenticators/token-file.js'
import anonymous from '../auth/authenticators/anonymous.js'
import authz from '../auth/authz.js'
import alwaysAllow from '../auth/authorizers/always-allow.js'
import alwaysDeny from '../auth/authorizers/always-deny.js'
import rbacAuthorizer from '../auth/authorizers/rbac.js'
import nodeAuthorizer from '../auth/authorizers/node.js'
import abacAuthorizer from '../auth/authorizers/abac.js'
import webhookAuthorizer, { type WebhookAuthorizerOptions } from '../auth/authorizers/webhook.js'
import rbacResolver from '../auth/rbac/resolver.js'
import admission, { type AdmissionOptions } from '../admission/chain.js'
import { ADMISSION_PLUGINS } from '../admission/index.js'
import { CONTROLLERS, checkControllerNames, controllerEnabled } from '../controllers/index.js'
import leaderElection, { type LeaderElectionOptions } from '../controllers/leader-election.js'
import bootstrapToken from '../auth/authenticators/bootstrap-token.js'
import serviceAccount from '../auth/authenticators/service-account.js'
import serviceAccountTokens, { type ServiceAccountOptions } from '../auth/service-account-tokens.js'
import tokenRequest from '../auth/token-request.js'
import tokenReview from '../auth/token-review.js'
import impersonation from '../auth/impersonation.js'
import oidc, { type OidcOptions } from '../auth/authenticators/oidc.js'
import tokenWebhook, { type TokenWebhookOptions } from '../auth/authenticators/token-webhook.js'
import requestHeader, { type RequestHeaderOptions } from '../auth/authenticators/request-header.js'
import clusterIdentity from '../auth/cluster-identity.js'
import { generateKeyPairSync } from 'node:crypto'
import { RESOURCES } from '../resources/index.js'
import type { ClusterSigningOptions } from '../auth/csr-signer.js'
import type { Resource } from '../resources/define.js'
import { firstServiceIP, servicePools, type ServiceRanges } from '../resources/services.js'

export interface AppOptions {
  databaseUrl: string
  /** 0 disables compaction (tests that exercise it compact explicitly). */
  compactionIntervalMs?: number
  /** Compaction never drops the newest this-many revisions (default 1000). */
  compactionMinRetain?: number
  /** HTTPS with client-certificate authentication against `clientCA`. */
  tls?: { cert: string, key: string, clientCA?: string }
  logger?: FastifyServerOptions['logger']
  /** A log line per request, as the reference server writes at -v=3 and above; off by default. */
  logRequests?: boolean
  tokenAuthFile?: string
  anonymousAuth?: boolean
  /** --authorization-mode, in order; default Node,RBAC. */
  authorizationModes?: string[]
  /** --authorization-policy-file (ABAC mode). */
  authorizationPolicyFile?: string
  /** --authorization-webhook-* (Webhook mode). */
  authorizationWebhook?: WebhookAuthorizerOptions
  /** --enable/--disable-admission-plugins, --admission-control-config-file, --admission-webhook-service-address and the plugins' own flags. */
  admission?: AdmissionOptions
  bookmarkIntervalMs?: number
  /** Unsent watch output at which a slow client's stream is closed (default 16 MiB). */
  watchMaxBufferedBytes?: number
  /** --api-audiences: what request tokens must be valid for; default the service-account issuer. */
  apiAudiences?: string[]
  /** --enable-bootstrap-token-auth */
  enableBootstrapTokenAuth?: boolean
  /** --controllers: `*` for every default controller, names to add, `-name` to remove. Default `*`. */
  controllers?: string[]
  /** --service-account-* flags; without keys a key pair is generated for this process. */
  serviceAccounts?: ServiceAccountOptions
  /** The CA clients of this server trust: ca.crt of token secrets and of the root CA ConfigMap. */
  rootCAPem?: string
  /** --cluster-signing-*: the CA (default the generated one) that signs approved certificate requests. */
  clusterSigning?: ClusterSigningOptions
  /** --oidc-* flags; OpenID Connect is on when issuerUrl is set. */
  oidc?: OidcOptions
  /** --authentication-token-webhook-* flags. */
  tokenWebhook?: TokenWebhookOptions
  /** --requestheader-* flags: the authenticating proxy. */
  requestHeader?: RequestHeaderOptions
  /** --show-hidden-metrics-for-version */
  showHiddenMetricsForVersion?: string
  /** --runtime-config: `<group>/<version>[/<resource>]=true|false`, `api/all`, `api/ga`, `api/beta`, `api/alpha`. */
  runtimeConfig?: string[]
  /** --feature-gates (`{ WatchList: false }`); unknown, removed and locked gates throw. */
  featureGates?: Record<string, boolean>
  /** --audit-policy-file and --audit-log-*: no audit log without both a policy and a path. */
  audit?: AuditOptions
  /** --leader-elect* flags: which replica on the database runs the controllers. */
  leaderElection?: LeaderElectionOptions
  /** Graceful close (the server process): connections finish rather than being cut at close. */
  shutdown?: ShutdownOptions
  /** --service-cluster-ip-range and --service-node-port-range: what Services are allocated from. */
  services?: ServiceRanges
  /** The port this server listens on: the `kubernetes` Service's target port (default 6443). */
  securePort?: number
}

// Each mode's plugin gets its options from modeOptions below.
const AUTHORIZERS: Record<string, FastifyPluginAsync<any> | FastifyPluginCallback<any>> = {
  AlwaysAllow: alwaysAllow,
  AlwaysDeny: alwaysDeny,
  RBAC: rbacAuthorizer,
  Node: nodeAuthorizer,
  ABAC: abacAuthorizer,
  Webhook: webhookAuthorizer
}

export const AUTHORIZATION_MODES = Object.keys(AUTHORIZERS)
export const DEFAULT_AUTHORIZATION_MODES = ['Node', 'RBAC']

/** A kind as a Fastify plugin: it registers itself with the generic REST machinery. */
export const resourcePlugin = (r: Resource) =>
  fp(async (fastify) => { fastify.resources.add(r) }, {
    name: `resource:${r.plural}${r.group === '' ? '' : `.${r.group}`}`,
    dependencies: ['rest']
  })

declare module 'fastify' {
  interface FastifyInstance {
    /** --feature-gates: which gated behaviours are on. */
    featureGates: FeatureGates
  }
}

export async function buildApp (opts: AppOptions): Promise<FastifyInstance> {
  const runtimeConfig = parseRuntimeConfig(opts.runtimeConfig ?? [])
  const gates = featureGates(opts.featureGates ?? {})
  const pools = servicePools(opts.services)
  const app = Fastify({
    logger: opts.logger ?? false,
    logController: new LogController({ disableRequestLogging: opts.logRequests !== true }),
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: 1024, ignoreTrailingSlash: true },
    http: { maxHeaderSize: MAX_HEADER_BYTES },
    clientErrorHandler,
    frameworkErrors,
    // A graceful close serves what still arrives on an open connection (with Connection: close)
    // rather than Fastify's 503, whose body is no Status; a forced close answers 503.
    return503OnClosing: opts.shutdown === undefined,
    forceCloseConnections: opts.shutdown === undefined,
    ...(opts.tls === undefined
      ? {}
      : {
          https: {
            cert: opts.tls.cert,
            key: opts.tls.key,
            ca: opts.tls.clientCA,
            requestCert: opts.tls.clientCA !== undefined,
            rejectUnauthorized: false,
            minVersion: 'TLSv1.2' as const,
            maxHeaderSize: MAX_HEADER_BYTES
          }
        })
  }) as unknown as FastifyInstance

  app.decorate('featureGates', gates)
  for (const warning of gates.warnings) app.log.warn(warning)
  await app.register(errors)
  await app.register(requestInfo)
  await app.register(metrics, { showHiddenMetricsForVersion: opts.showHiddenMetricsForVersion })
  await app.register(storage, { databaseUrl: opts.databaseUrl, compactionIntervalMs: opts.compactionIntervalMs, compactionMinRetain: opts.compactionMinRetain, observer: app.metrics.storage })
  await app.register(health)
  app.health.add('postgres', async () => { await app.storage.currentRevision() }, ['healthz', 'livez', 'readyz'])
  app.health.add('watch-caches', async () => {
    const pending = app.watchCaches.all().length === 0
    if (pending) throw new Error('watch caches not started')
    await Promise.all(app.watchCaches.all().map(c => c.ready))
  }, ['readyz'])
  await app.register(version)

  const signingKeyPem = opts.serviceAccounts?.signingKeyPem ??
    generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  await app.register(serviceAccountTokens, { ...opts.serviceAccounts, generatedKeyPem: signingKeyPem })
  await app.register(authn, { apiAudiences: opts.apiAudiences ?? [app.serviceAccountTokens.issuer] })
  if (opts.requestHeader !== undefined) await app.register(requestHeader, opts.requestHeader)
  if (opts.tls?.clientCA !== undefined) await app.register(x509)
  if (opts.tokenAuthFile !== undefined) await app.register(tokenFile, { path: opts.tokenAuthFile })
  if (opts.anonymousAuth === true) await app.register(anonymous)

  await app.register(authz)
  await app.register(rbacResolver)
  const modeOptions: Record<string, unknown> = { ABAC: { policyFile: opts.authorizationPolicyFile }, Webhook: opts.authorizationWebhook }
  for (const mode of opts.authorizationModes ?? DEFAULT_AUTHORIZATION_MODES) {
    const plugin = AUTHORIZERS[mode]
    if (plugin === undefined) throw new Error(`unknown authorization mode "${mode}"; known modes: ${AUTHORIZATION_MODES.join(', ')}`)
    await app.register(plugin, modeOptions[mode] ?? {})
  }

  await app.register(audit, opts.audit ?? {})
  await app.register(impersonation)

  await app.register(admission, opts.admission ?? {})
  for (const plugin of ADMISSION_PLUGINS) await app.register(plugin, opts.admission ?? {})

  await app.register(protobuf)
  await app.register(deprecation)
  await app.register(rest, {
    watch: { bookmarkIntervalMs: opts.bookmarkIntervalMs, maxBufferedBytes: opts.watchMaxBufferedBytes },
    served: (...a) => runtimeConfig.served(...a),
    features: gates,
    pools
  })
  if (opts.shutdown !== undefined) await app.register(shutdown, opts.shutdown)
  for (const r of RESOURCES) await app.register(resourcePlugin(r))
  // Start-up time: every kind's cache exists now, so they fill (the one long wait of a start on
  // a big database) while the remaining plugins register and the server binds; onReady awaits
  // the same fill, so readiness still waits for it. A kind registered later fills on its own.
  app.watchCaches.start().catch(() => {}) // a failed fill fails onReady, and with it listen()
  try {
    await registerTheRest(app, opts)
    runtimeConfig.check(app.resources.all().map(s => s.resource))
  } catch (err) {
    // The caches hold a LISTEN connection open: a server that failed to build must not keep it.
    await app.close().catch(() => {})
    throw err
  }
  return app
}

/** Everything registered after the kinds: discovery, the remaining authenticators, controllers. */
async function registerTheRest (app: FastifyInstance, opts: AppOptions): Promise<void> {
  // A replica whose CA or token key differs from the database's first server stops here.
  await app.register(clusterIdentity, { caCertPem: opts.rootCAPem, serviceAccountKeyPem: opts.serviceAccounts?.signingKeyPem })
  await app.register(discovery)
  await app.register(openapi)

  if (opts.enableBootstrapTokenAuth === true) await app.register(bootstrapToken)
  await app.register(serviceAccount)
  if (opts.oidc !== undefined) await app.register(oidc, opts.oidc)
  if (opts.tokenWebhook !== undefined) await app.register(tokenWebhook, opts.tokenWebhook)
  await app.register(tokenRequest)
  await app.register(tokenReview)
  checkControllerNames(opts.controllers)
  for (const c of CONTROLLERS) {
    if (!controllerEnabled(c, opts.controllers)) continue
    const options = c.options === undefined ? {} : c.options({
      rootCAPem: opts.rootCAPem,
      clusterSigning: opts.clusterSigning,
      kubernetesService: { clusterIP: firstServiceIP(opts.services), port: opts.securePort ?? 6443 }
    })
    if (options !== undefined) await app.register(c.plugin, options)
  }
  // After the controllers: its first attempt (onReady) comes once the system namespaces exist.
  await app.register(leaderElection, opts.leaderElection ?? {})
}
