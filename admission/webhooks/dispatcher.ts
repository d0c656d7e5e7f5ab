// What both webhook plugins share: the webhooks of the stored configurations (read from the
// kind's watch cache at every request, so a change is in force at once on every replica), which
// of them a request reaches, and one call with its failure policy, warnings and rejection.
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { AdmissionAttributes } from '../../resources/admission.js'
import type { CachedObject } from '../../storage/interface.js'
import { ApiError, badRequest, internalError, type StatusReason } from '../../resources/status.js'
import { ADMISSION_WEBHOOK, GROUPS } from '../../resources/naming.js'
import { exempt, namespaceSelectorMatches, objectSelectorMatches, rulesMatch } from './matching.js'
import { reviewRequest, reviewVersion, type Shown } from './review.js'
import { admittedView, inOutOfProcessForm, type ResourceForm } from '../../resources/resource-forms.js'
import { CallError, reviewResponse, type DenialStatus, type ReviewResponse } from './answer.js'
import { addWarnings } from './warnings.js'
import { rejectionObserver } from './metrics.js'
import { compileMatchConditions, evaluateMatchConditions, type MatchCondition } from './match-conditions.js'
import { NO_CREDENTIALS, credentialResolverFromKubeconfig } from '../../auth/webhook-credentials.js'
import { parseServiceAddresses, storedServiceLookup, webhookTransport, type WebhookTransport } from '../../auth/webhook-transport.js'

type AnyObject = Record<string, any>

/** One webhook of one stored configuration. */
export interface Hook {
  configuration: string
  webhook: AnyObject
  /** Stable within a configuration's version: the reinvocation bookkeeping names hooks by it. */
  key: string
  /** matchConditions, compiled with the configuration's version */
  conditions: MatchCondition[]
}

export type HookType = 'admit' | 'validating'

export interface Answer {
  response: ReviewResponse
  operations?: AnyObject[]
  /** The object as the webhook was sent it, when it was converted out of process for it: its patch applies to that. */
  shown?: AnyObject
}

/** A webhook a request reaches, and the form it is sent in (an equivalent one under matchPolicy Equivalent). */
export interface Match { hook: Hook, form: ResourceForm }

const DRY_RUN_SAFE = ['None', 'NoneOnDryRun']

/** Parsed once per stored version of a configuration. */
const parsed = new WeakMap<CachedObject, Hook[]>()
function hooksOf (o: CachedObject): Hook[] {
  let hooks = parsed.get(o)
  if (hooks === undefined) {
    const c = JSON.parse(o.json) as AnyObject
    const name = String(c.metadata?.name)
    hooks = (c.webhooks as AnyObject[] | undefined ?? []).map(webhook => ({ configuration: name, webhook, key: `${name}/${String(webhook.name)}`, conditions: compileMatchConditions(webhook) }))
    parsed.set(o, hooks)
  }
  return hooks
}

export interface Dispatcher {
  readonly type: HookType
  /** Whether any configuration of this type is stored (most servers have none). */
  anyConfigured (): boolean
  /** The webhooks this request reaches, in configuration name order. */
  matching (a: AdmissionAttributes): Promise<Match[]>
  /**
   * Calls one webhook: its answer when allowed (with a mutating webhook's patch operations, none
   * when it sent no patch), undefined when its failure was ignored; throws a rejection.
   */
  call (m: Match, a: AdmissionAttributes, round: number, index: number, warnings?: string[]): Promise<Answer | undefined>
  /** Counts a rejection the server itself caused (a patch that cannot be applied). */
  internalFailure (hook: Hook, a: AdmissionAttributes, message: string): ApiError
}

export interface DispatcherOptions {
  /** The plugin's name, as --admission-control-config-file names it. */
  plugin: string
  type: HookType
  plural: string
  webhookServiceAddresses?: Record<string, string>
}

/** The webhook plugins' configuration: `kubeConfigFile` with the credentials to present. */
function transportFor (fastify: FastifyInstance, o: DispatcherOptions): WebhookTransport {
  const config = fastify.admission.configuration(o.plugin)
  let credentials = NO_CREDENTIALS
  if (config !== undefined) {
    if (!ADMISSION_WEBHOOK.configurationKinds.includes(config.kind)) {
      throw new Error(`--admission-control-config-file: ${o.plugin}'s configuration must be of kind ${ADMISSION_WEBHOOK.configurationKinds[0]!}, not ${JSON.stringify(config.kind)}`)
    }
    if (config.kubeConfigFile !== undefined) {
      if (typeof config.kubeConfigFile !== 'string' || config.kubeConfigFile === '') throw new Error(`--admission-control-config-file: ${o.plugin}'s kubeConfigFile must be a path`)
      credentials = credentialResolverFromKubeconfig(config.kubeConfigFile, config.baseDir)
    }
  }
  // A service named by no --admission-webhook-service-address entry is resolved from its Service.
  const lookupService = storedServiceLookup(async (resource, namespace, name) => {
    const store = fastify.resources.find({ group: '', resource })
    const found = store === undefined ? undefined : await store.readRecent(store.key(namespace, name), name)
    return found === undefined ? undefined : JSON.parse(found.json)
  })
  return webhookTransport(parseServiceAddresses(o.webhookServiceAddresses ?? {}), credentials, lookupService)
}

export function createDispatcher (fastify: FastifyInstance, o: DispatcherOptions): Dispatcher {
  const transport = transportFor(fastify, o)
  const observeRejection = rejectionObserver(fastify)
  const failedOpenPrefix = o.type === 'admit' ? ADMISSION_WEBHOOK.failedOpenMutatingPrefix : ADMISSION_WEBHOOK.failedOpenValidatingPrefix

  // The REST machinery registers the kinds after the admission plugins: found at request time.
  const kind = { group: GROUPS.admissionregistration, resource: o.plural }
  const anyConfigured = (): boolean => (fastify.resources.find(kind)?.cache.size ?? 0) > 0
  const allHooks = (): Hook[] => {
    const store = fastify.resources.find(kind)
    if (store === undefined || store.cache.size === 0) return []
    const objects = store.cache.list(store.prefix)
    return objects.length === 0 ? [] : objects.flatMap(hooksOf)
  }

  const dispatcher: Dispatcher = {
    type: o.type,
    anyConfigured,
    async matching (a) {
      if (exempt(a)) return []
      const hooks = allHooks()
      if (hooks.length === 0) return []
      const out: Match[] = []
      for (const hook of hooks) {
        const form = rulesMatch(hook.webhook, a)
        if (form === undefined || !objectSelectorMatches(hook.webhook, a)) continue
        if (!await namespaceSelectorMatches(hook.webhook, a)) continue
        out.push({ hook, form })
      }
      return out
    },

    async call ({ hook, form }, a, round, index, warnings = a.warnings) {
      const w = hook.webhook
      const name = String(w.name)
      const callFailed = (err: CallError): undefined => {
        const message = `failed calling webhook "${name}": ${err.message}`
        if (w.failurePolicy === 'Ignore') {
          a.auditAnnotations[`${failedOpenPrefix}round_${round}_index_${index}`] = name
          fastify.log.warn({ webhook: name, configuration: hook.configuration }, `${message}; failurePolicy Ignore lets the request continue`)
          return undefined
        }
        observeRejection(name, a.operation, o.type, 'calling_webhook_error', 0)
        throw internalError(message)
      }
      if (hook.conditions.length > 0) {
        // Before anything else of the call, as the reference: a webhook its conditions exclude is not called at all.
        const matched = await evaluateMatchConditions(fastify, hook.conditions, a, form)
        if (!matched.matches) return matched.error === undefined ? undefined : callFailed(new CallError(matched.error))
      }
      if (a.dryRun && !DRY_RUN_SAFE.includes(w.sideEffects)) {
        // Not sent, whatever the failure policy: the webhook could not tell a dry run from a real one.
        throw badRequest(`admission webhook "${name}" does not support dry run`)
      }
      const version = reviewVersion(w) ?? 'v1'
      // In a version the kind converts by its own webhook, the objects are converted for this call.
      let shown: Shown | undefined
      if (form.outOfProcess === true && admittedView(a) === undefined) {
        const [object, oldObject] = await inOutOfProcessForm(a.resource, form, [a.object, a.oldObject])
        shown = { object, oldObject }
      }
      // A uid of its own for every call, as the reference server gives.
      const review = reviewRequest(a, randomUUID(), version, form, shown)
      let body: unknown
      try {
        body = await transport.post(w.clientConfig, review, w.timeoutSeconds ?? 10)
      } catch (err) {
        return callFailed(new CallError(`failed to call webhook: ${(err as Error).message}`))
      }
      let response: ReviewResponse
      try {
        response = reviewResponse(body, review, o.type === 'admit')
      } catch (err) {
        if (err instanceof CallError) return callFailed(err)
        throw err
      }
      addWarnings(warnings, response.warnings)
      for (const [k, v] of Object.entries(response.auditAnnotations)) a.auditAnnotations[`${name}/${k}`] = v
      if (!response.allowed) {
        const rejection = rejectionError(name, response.status)
        observeRejection(name, a.operation, o.type, 'no_error', deniedCode(response.status))
        throw rejection
      }
      if (response.patch.length === 0) return { response }
      let operations: AnyObject[]
      try {
        operations = patchOperations(response.patch)
      } catch (err) {
        if (err instanceof CallError) return callFailed(err)
        throw err
      }
      if (operations.length === 0) return { response }
      if (a.object === undefined) throw dispatcher.internalFailure(hook, a, `admission webhook "${name}" attempted to modify the object, which is not supported for this operation`)
      if (response.patchType !== 'JSONPatch') return callFailed(new CallError(`unsupported patch type "${response.patchType}"`))
      return { response, operations, ...(shown?.object === undefined ? {} : { shown: shown.object }) }
    },

    internalFailure (hook, a, message) {
      observeRejection(String(hook.webhook.name), a.operation, o.type, 'apiserver_internal_error', 0)
      return internalError(message)
    }
  }
  return dispatcher
}

/** The code the reference's ToStatusErr gives a denial (the metric's rejection_code). */
const deniedCode = (status: DenialStatus | undefined): number => Math.max(status?.code ?? 0, 400)

/**
 * The webhook's own code and message, after the reference server's prefix. Codes below 400 are
 * 400, as the reference's ToStatusErr makes them; the reference passes larger ones through and
 * fails writing one past 999, and an HTTP answer cannot carry one past 599 here: a 500.
 */
function rejectionError (name: string, status: DenialStatus | undefined): ApiError {
  const deniedBy = `admission webhook "${name}" denied the request`
  const message = status?.message !== undefined && status.message !== ''
    ? `${deniedBy}: ${status.message}`
    : status?.reason !== undefined && status.reason !== '' ? `${deniedBy}: ${status.reason}` : `${deniedBy} without explanation`
  const code = deniedCode(status)
  if (code > 599) return new ApiError(500, 'InternalError', message, status?.details)
  return new ApiError(code, (status?.reason ?? '') as StatusReason, message, status?.details)
}

/** A mutating webhook's patch as JSON patch operations; an undecodable one is a call error. */
function patchOperations (patch: Buffer): AnyObject[] {
  let ops: unknown
  try {
    ops = JSON.parse(patch.toString('utf8'))
  } catch (err) {
    throw new CallError(`received undecodable patch in webhook response: ${(err as Error).message}`)
  }
  // As Go decodes JSON null into a slice: no operations.
  if (ops === null) return []
  if (!Array.isArray(ops)) throw new CallError(`received undecodable patch in webhook response: json: cannot unmarshal ${typeof ops} into Go value of type jsonpatch.Patch`)
  const bad = ops.find(op => typeof op !== 'object' || Array.isArray(op))
  if (bad !== undefined) throw new CallError(`received undecodable patch in webhook response: json: cannot unmarshal ${Array.isArray(bad) ? 'array' : typeof bad} into Go value of type jsonpatch.Operation`)
  return ops as AnyObject[]
}
