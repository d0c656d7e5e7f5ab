// Webhook mode: asks a remote service by POSTing a SubjectAccessReview; its answer is allowed,
// denied, or neither (no opinion). Answers are cached for the configured TTLs.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Attributes, Verdict } from '../../resources/authorization.js'
import { GROUPS } from '../../resources/naming.js'
import { webhookClientFromKubeconfig } from '../webhook-client.js'

export interface WebhookAuthorizerOptions {
  configFile: string
  version: 'v1' | 'v1beta1'
  authorizedTtlMs: number
  unauthorizedTtlMs: number
}

const MAX_CACHE_ENTRIES = 10_000

/** The SubjectAccessReview spec for a request, as the given version spells it (v1beta1: `group`, v1: `groups`). */
export function reviewSpec (a: Attributes, version: 'v1' | 'v1beta1'): Record<string, unknown> {
  const spec: Record<string, unknown> = { user: a.user.username }
  if (a.user.groups.length > 0) spec[version === 'v1' ? 'groups' : 'group'] = a.user.groups
  if (a.user.uid !== undefined) spec.uid = a.user.uid
  if (a.user.extra !== undefined && Object.keys(a.user.extra).length > 0) spec.extra = a.user.extra
  if (a.isResourceRequest) {
    spec.resourceAttributes = {
      namespace: a.namespace, verb: a.verb, group: a.apiGroup, version: a.apiVersion, resource: a.resource, subresource: a.subresource, name: a.name
    }
  } else {
    spec.nonResourceAttributes = { path: a.path, verb: a.verb }
  }
  return spec
}

export default fp<WebhookAuthorizerOptions>(async function webhookAuthorizer (fastify: FastifyInstance, opts: WebhookAuthorizerOptions) {
  if (opts?.configFile === undefined) throw new Error('authorization mode Webhook requires --authorization-webhook-config-file')
  const client = webhookClientFromKubeconfig(opts.configFile)
  const apiVersion = `${GROUPS.authorization}/${opts.version}`
  const cache = new Map<string, { verdict: Verdict, expires: number }>()

  async function authorize (a: Attributes): Promise<Verdict> {
    const spec = reviewSpec(a, opts.version)
    const key = JSON.stringify(spec)
    const hit = cache.get(key)
    if (hit !== undefined && hit.expires > Date.now()) return hit.verdict
    let answer: { status: number, body: unknown }
    try {
      answer = await client.post({ apiVersion, kind: 'SubjectAccessReview', spec })
    } catch (err) {
      fastify.log.warn({ err }, 'authorization webhook failed')
      return { decision: 'NoOpinion', reason: `authorization webhook failed: ${(err as Error).message}` }
    }
    const status = (answer.body as { status?: { allowed?: unknown, denied?: unknown, reason?: unknown } } | undefined)?.status
    if (answer.status < 200 || answer.status > 299 || typeof status !== 'object' || status === null) {
      return { decision: 'NoOpinion', reason: `authorization webhook answered ${answer.status} without a SubjectAccessReview status` }
    }
    const reason = typeof status.reason === 'string' && status.reason !== '' ? status.reason : undefined
    const verdict: Verdict = status.allowed === true ? { decision: 'Allow', reason }
      : status.denied === true ? { decision: 'Deny', reason }
        : { decision: 'NoOpinion', reason }
    if (cache.size >= MAX_CACHE_ENTRIES) cache.clear()
    cache.set(key, { verdict, expires: Date.now() + (verdict.decision === 'Allow' ? opts.authorizedTtlMs : opts.unauthorizedTtlMs) })
    return verdict
  }

  fastify.authz.add('Webhook', authorize)
}, { name: 'authz:webhook', dependencies: ['authz'] })
