// buildApp: the whole server as one Fastify instance, every stage a plugin, in pipeline order.
// Each family (kinds, authenticators, authorizer modes, admission plugins, controllers) is a
// list in its own folder; this file only says in what order the stages come. Each plugin
// declares the plugins it needs (`dependencies`), so a stage moved before what it needs fails
// at start rather than at the first request.
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { generateKeyPairSync } from 'node:crypto'
import { featureGates, type FeatureGates } from '../resources/feature-gates.js'
import { RESOURCES } from '../resources/index.js'
import type { Resource } from '../resources/define.js'
import { firstServiceIP, servicePools } from '../resources/services.js'
import storage from '../storage/plugin.js'
import errors from '../plugins/errors.js'
import answerHeaders from '../plugins/answer-headers.js'
import requestInfo from '../plugins/request-info.js'
import metrics from '../plugins/metrics/index.js'
import { parseRuntimeConfig } from '../plugins/runtime-config.js'
import health from '../plugins/health.js'
import version from '../plugins/version.js'
import audit from '../plugins/audit/index.js'
import protobuf from '../plugins/protobuf/index.js'
import deprecation from '../plugins/deprecation.js'
import rest from '../plugins/rest/index.js'
import streams from '../plugins/streams/index.js'
import shutdown from '../plugins/shutdown.js'
import discovery from '../plugins/discovery.js'
import openapi from '../plugins/openapi/index.js'
import customResources from '../plugins/custom-resources/index.js'
import authn from '../auth/authn.js'
import { AUTHENTICATORS } from '../auth/authenticators/index.js'
import serviceAccountTokens from '../auth/service-account-tokens.js'
import authz from '../auth/authz.js'
import rbacResolver from '../auth/rbac/resolver.js'
import { authorizers } from '../auth/authorizers/index.js'
import impersonation from '../auth/impersonation.js'
import flowControl from '../plugins/flowcontrol/index.js'
import clusterIdentity from '../auth/cluster-identity.js'
import tokenRequest from '../auth/token-request.js'
import podEviction from '../plugins/pod-eviction.js'
import admission from '../admission/chain.js'
import { ADMISSION_PLUGINS } from '../admission/index.js'
import { useExpressionCompiler } from '../resources/cel-expressions.js'
import { admissionExpressionError } from '../machinery/cel/admission.js'
import { hostAddress } from '../controllers/kubernetes-service.js'
import { CONTROLLERS, checkControllerNames, controllerEnabled } from '../controllers/index.js'
import leaderElection from '../controllers/leader-election.js'
import { createHttpServer } from './http-server.js'
import readiness from './readiness.js'
import { registerFamily } from './family.js'
import { DEFAULT_SECURE_PORT, type AppOptions } from './options.js'
import { markStartUp } from '../resources/start-up-timeline.js'

export type { AppOptions } from './options.js'

/** A kind as a Fastify plugin: it registers itself with the generic REST machinery. */
const resourcePlugin = (r: Resource) =>
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
  const app = createHttpServer(opts)
  app.decorate('featureGates', gates)
  for (const warning of gates.warnings) app.log.warn(warning)

  // Every request: Status errors, Audit-Id and Cache-Control, the request info from the path, metrics.
  await app.register(errors)
  await app.register(answerHeaders)
  await app.register(requestInfo)
  await app.register(metrics, { showHiddenMetricsForVersion: opts.showHiddenMetricsForVersion })
  await app.register(storage, { databaseUrl: opts.databaseUrl, compactionIntervalMs: opts.compactionIntervalMs, compactionMinRetain: opts.compactionMinRetain, observer: app.metrics.storage })
  await app.register(health, { livezGracePeriodMs: opts.livezGracePeriodMs })
  await app.register(readiness)
  await app.register(version)

  // Who asks (the authenticators themselves join once the kinds they read exist, below), and may they.
  const signingKeyPem = opts.serviceAccounts?.signingKeyPem ??
    generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  await app.register(serviceAccountTokens, { ...opts.serviceAccounts, generatedKeyPem: signingKeyPem })
  await app.register(authn, { apiAudiences: opts.apiAudiences ?? [app.serviceAccountTokens.issuer] })
  await app.register(authz)
  await app.register(rbacResolver)
  await registerFamily(app, authorizers(opts), opts)
  await app.register(audit, opts.audit ?? {})
  await app.register(impersonation)
  // Load protection: the request's deadline, then its seat (API Priority and Fairness, or the plain in-flight limits).
  await app.register(flowControl, opts.flowControl ?? {})

  // What may be written: the admission chain and every plugin of its family (the flags choose which run).
  // Admission kinds' CEL expressions (policies, webhooks' matchConditions) compile at write time.
  useExpressionCompiler(admissionExpressionError)
  const admissionOptions = opts.admission ?? {}
  await app.register(admission, { ...admissionOptions, plugins: ADMISSION_PLUGINS })
  for (const entry of ADMISSION_PLUGINS) await app.register(entry.plugin, admissionOptions)

  // The generic REST verbs, and every kind through them.
  await app.register(protobuf)
  await app.register(deprecation)
  await app.register(streams, opts.nodeAgent ?? {})
  await app.register(rest, {
    watch: { bookmarkIntervalMs: opts.bookmarkIntervalMs, maxBufferedBytes: opts.watchMaxBufferedBytes },
    served: (...a) => runtimeConfig.served(...a),
    features: gates,
    pools: servicePools(opts.services)
  })
  if (opts.shutdown !== undefined) await app.register(shutdown, opts.shutdown)
  markStartUp('registering-kinds')
  for (const r of RESOURCES) await app.register(resourcePlugin(r))
  markStartUp('kinds-registered')
  // Start-up time: every kind's cache exists now, so they fill (the one long wait of a start on
  // a big database) while the remaining plugins register and the server binds; onReady awaits
  // the same fill, so readiness still waits for it. A kind registered later fills on its own.
  app.watchCaches.start().catch(() => {}) // a failed fill fails onReady, and with it listen()
  try {
    await registerAfterKinds(app, opts)
    runtimeConfig.check(app.resources.all().map(s => s.resource))
  } catch (err) {
    // The caches hold a LISTEN connection open: a server that failed to build must not keep it.
    await app.close().catch(() => {})
    throw err
  }
  return app
}

/** What reads the kinds: discovery, the authenticators, the token endpoints, the controllers. */
async function registerAfterKinds (app: FastifyInstance, opts: AppOptions): Promise<void> {
  // A replica whose CA or token key differs from the database's first server stops here.
  await app.register(clusterIdentity, { caCertPem: opts.rootCAPem, serviceAccountKeyPem: opts.serviceAccounts?.signingKeyPem })
  await app.register(discovery, { upstreamGroups: opts.discoveryUpstreamGroups })
  await app.register(openapi)
  await app.register(customResources, { webhookServiceAddresses: opts.admission?.webhookServiceAddresses })

  await registerFamily(app, AUTHENTICATORS, opts)
  await app.register(tokenRequest)
  await app.register(podEviction)

  checkControllerNames(opts.controllers)
  await registerFamily(app, CONTROLLERS.filter(c => controllerEnabled(c, opts.controllers)), {
    rootCAPem: opts.rootCAPem,
    clusterSigning: opts.clusterSigning,
    kubernetesService: { clusterIP: firstServiceIP(opts.services), port: opts.securePort ?? DEFAULT_SECURE_PORT, endpointIP: opts.advertiseAddress ?? hostAddress(), reconciler: opts.endpointReconciler },
    nodeLifecycle: opts.nodeLifecycle
  })
  // After the controllers: its first attempt (onReady) comes once the system namespaces exist.
  await app.register(leaderElection, opts.leaderElection ?? {})
  // Last: the post-start hooks begin once everything else is ready, and the server serves meanwhile.
  app.addHook('onReady', async () => { markStartUp('hooks-begin'); app.health.runPostStartHooks() })
}
