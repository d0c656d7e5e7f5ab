// The schema and validation shared by MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration (admissionregistration.svc.io/v1), worded as the reference
// server words them. Defaults are the schema's: scope `*`, failurePolicy Fail, matchPolicy
// Equivalent, timeoutSeconds 10, reinvocationPolicy Never, service port 443 and path `/`.
import { Type } from '@sinclair/typebox'
import type { FieldError } from './status.js'
import type { Column, ResourceDefinition, Strategy } from './define.js'
import { Int32, objectSchema } from './meta.js'
import { AtomicList, LABEL_SELECTOR_FIELDS, LabelSelector, MapList, validateLabelSelector } from './core-types.js'
import { GROUPS } from './naming.js'
import { inlined, keepZero, message } from './protobuf.js'
import { dns1035LabelProblems, dnsSubdomainProblems, invalidEach, isBase64, validateWebhookService, validateWebhookURL } from './validation.js'
import { MatchConditions, validateMatchConditions } from './cel-expressions.js'

const opt = Type.Optional
type Obj = Record<string, any>

export const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const
export const SUPPORTED_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const
const SCOPES = ['Cluster', 'Namespaced', '*']
const SIDE_EFFECTS = ['None', 'NoneOnDryRun']
export const FAILURE_POLICIES = ['Fail', 'Ignore']
export const MATCH_POLICIES = ['Equivalent', 'Exact']
export const REINVOCATION_POLICIES = ['IfNeeded', 'Never']

export const RuleWithOperations = Type.Object({
  operations: opt(AtomicList(Type.String(), { description: 'CREATE, UPDATE, DELETE, CONNECT or `*`.' })),
  apiGroups: opt(AtomicList(Type.String(), { description: 'API groups; "" is the core group, `*` every group.' })),
  apiVersions: opt(AtomicList(Type.String(), { description: 'API versions; `*` every version.' })),
  resources: opt(AtomicList(Type.String(), { description: 'Resources: `*`, `*/*`, `pods/*`, `*/status`, `pods/status`.' })),
  scope: opt(Type.String({ default: '*', description: 'Cluster, Namespaced or `*`.' }))
}, { additionalProperties: false, ...message('RuleWithOperations', { operations: 1 }, { rule: inlined(2, 'Rule', { apiGroups: 1, apiVersions: 2, resources: 3, scope: keepZero(4) }) }) })

const ServiceReference = Type.Object({
  namespace: Type.String(),
  name: Type.String(),
  path: opt(Type.String({ default: '/' })),
  port: opt(Int32({ default: 443 }))
}, { additionalProperties: false, ...message('ServiceReference', { namespace: keepZero(1), name: keepZero(2), path: keepZero(3), port: keepZero(4) }) })

export const WebhookClientConfig = Type.Object({
  url: opt(Type.String({ description: 'https URL without user information, query or fragment.' })),
  service: opt(ServiceReference),
  caBundle: opt(Type.String({ format: 'byte', description: 'PEM bundle (base64 in JSON) the webhook\'s serving certificate is verified against; the system roots when absent.' }))
}, { additionalProperties: false, ...message('WebhookClientConfig', { url: keepZero(3), service: 1, caBundle: 2 }) })

const webhookFields = (mutating: boolean) => ({
  name: Type.String({ description: 'Fully qualified name of the webhook, unique within the configuration.' }),
  clientConfig: WebhookClientConfig,
  rules: opt(AtomicList(RuleWithOperations)),
  failurePolicy: opt(Type.String({ default: 'Fail' })),
  matchPolicy: opt(Type.String({ default: 'Equivalent' })),
  namespaceSelector: opt(Type.Object(LabelSelector.properties, { additionalProperties: false, default: {}, ...message('meta.v1.LabelSelector', LABEL_SELECTOR_FIELDS) })),
  objectSelector: opt(Type.Object(LabelSelector.properties, { additionalProperties: false, default: {}, ...message('meta.v1.LabelSelector', LABEL_SELECTOR_FIELDS) })),
  sideEffects: opt(Type.String({ description: 'None or NoneOnDryRun.' })),
  timeoutSeconds: opt(Int32({ default: 10 })),
  admissionReviewVersions: opt(AtomicList(Type.String())),
  ...(mutating ? { reinvocationPolicy: opt(Type.String({ default: 'Never' })) } : {}),
  matchConditions: opt(MatchConditions)
})

/** The protobuf fields of a webhook: Mutating and Validating differ from objectSelector on. */
const webhookFieldNumbers = (mutating: boolean) => ({
  name: keepZero(1),
  clientConfig: 2,
  rules: 3,
  failurePolicy: keepZero(4),
  matchPolicy: keepZero(9),
  namespaceSelector: 5,
  objectSelector: mutating ? 11 : 10,
  sideEffects: keepZero(6),
  timeoutSeconds: keepZero(7),
  admissionReviewVersions: 8,
  ...(mutating ? { reinvocationPolicy: keepZero(10) } : {}),
  matchConditions: mutating ? 12 : 11
})

export const webhookConfigurationSchema = (kind: string, mutating: boolean) =>
  objectSchema(`${GROUPS.admissionregistration}/v1`, kind, {
    webhooks: opt(MapList(Type.Object(webhookFields(mutating), { additionalProperties: false, ...message(mutating ? 'MutatingWebhook' : 'ValidatingWebhook', webhookFieldNumbers(mutating)) }), ['name']))
  }, `${kind} describes the configuration of and admission webhooks that ${mutating ? 'accept or reject and may change' : 'accept or reject'} objects.`, { webhooks: 2 })

export const notSupported = (field: string, value: unknown, supported: readonly string[]): FieldError =>
  ({ type: 'NotSupported', field, value, supported: [...supported] })

/** `*` must stand alone in a list. */
function wildcardAlone (list: string[], field: string, what: string): FieldError[] {
  return list.length > 1 && list.includes('*') ? [{ type: 'Invalid', field, value: list, detail: `if '*' is present, must not specify other ${what}` }] : []
}

function validateResources (resources: string[], field: string): FieldError[] {
  const errors: FieldError[] = []
  if (resources.length === 0) errors.push({ type: 'Required', field })
  const withSub = new Set<string>()
  const subsOfAll = new Set<string>()
  let hasAll = false
  let hasAllWithSubs = false
  resources.forEach((r, i) => {
    if (r === '') { errors.push({ type: 'Required', field: `${field}[${i}]` }); return }
    if (r === '*/*') hasAllWithSubs = true
    if (r === '*') hasAll = true
    const parts = r.split('/')
    if (parts.length > 2) { errors.push({ type: 'Invalid', field: `${field}[${i}]`, value: r, detail: 'resource must have at most one \'/\'' }); return }
    if (parts.length === 2) {
      withSub.add(r)
      if (parts[0] === '*') subsOfAll.add(parts[1]!)
    }
  })
  if (hasAllWithSubs && resources.length > 1) {
    errors.push({ type: 'Invalid', field, value: resources, detail: "if '*/*' is present, must not specify other resources" })
  } else if (hasAll && resources.some(r => r !== '*' && !r.includes('/'))) {
    errors.push({ type: 'Invalid', field, value: resources, detail: "if '*' is present, must not specify other resources without subresources" })
  }
  for (const r of withSub) {
    const [res, sub] = r.split('/') as [string, string]
    if (res !== '*' && subsOfAll.has(sub)) {
      errors.push({ type: 'Invalid', field, value: resources, detail: `if '*/${sub}' is present, must not specify ${r}` })
    }
  }
  return errors
}

/** validateRuleWithOperations; shared with admission policies' resource rules. */
export function validateRule (rule: Obj, field: string): FieldError[] {
  const errors: FieldError[] = []
  const ops: string[] = rule.operations ?? []
  if (ops.length === 0) errors.push({ type: 'Required', field: `${field}.operations` })
  errors.push(...wildcardAlone(ops, `${field}.operations`, 'operations'))
  ops.forEach((op, i) => {
    if (op !== '*' && !(OPERATIONS as readonly string[]).includes(op)) errors.push(notSupported(`${field}.operations[${i}]`, op, [...OPERATIONS, '*']))
  })
  const groups: string[] = rule.apiGroups ?? []
  if (groups.length === 0) errors.push({ type: 'Required', field: `${field}.apiGroups` })
  errors.push(...wildcardAlone(groups, `${field}.apiGroups`, 'API groups'))
  const versions: string[] = rule.apiVersions ?? []
  if (versions.length === 0) errors.push({ type: 'Required', field: `${field}.apiVersions` })
  errors.push(...wildcardAlone(versions, `${field}.apiVersions`, 'API versions'))
  versions.forEach((v, i) => { if (v === '') errors.push({ type: 'Required', field: `${field}.apiVersions[${i}]`, detail: 'version must not be empty' }) })
  errors.push(...validateResources(rule.resources ?? [], `${field}.resources`))
  if (rule.scope !== undefined && !SCOPES.includes(rule.scope)) errors.push(notSupported(`${field}.scope`, rule.scope, SCOPES))
  return errors
}

/** url xor service, each as the reference's webhook package checks it; shared with CRD conversion webhooks. */
export function validateClientConfig (cc: Obj | undefined, field: string): FieldError[] {
  const hasUrl = typeof cc?.url === 'string'
  const hasService = cc?.service !== undefined && cc.service !== null
  if (hasUrl === hasService) return [{ type: 'Required', field, detail: 'exactly one of url or service is required' }]
  const errors = hasUrl
    ? validateWebhookURL(`${field}.url`, cc!.url, true)
    // The reference passes name and namespace the wrong way round, so an empty one is blamed on the other.
    : validateWebhookService(`${field}.service`, cc!.service.name ?? '', cc!.service.namespace ?? '', cc!.service.path ?? undefined, cc!.service.port ?? 443)
  if (typeof cc?.caBundle === 'string' && !isBase64(cc.caBundle)) errors.push({ type: 'Invalid', field: `${field}.caBundle`, value: '<bytes>', detail: 'must be base64 encoded' })
  return errors
}

/** A webhook name must be a DNS subdomain with at least three segments ("webhook.example.com"). */
function webhookNameProblems (name: string): string[] {
  const problems = dnsSubdomainProblems(name)
  if (problems.length === 0 && name.split('.').length < 3) problems.push('should be a domain with at least three segments separated by dots')
  return problems
}

function validateWebhook (w: Obj, field: string, mutating: boolean, checkMatchConditions: boolean): FieldError[] {
  const errors: FieldError[] = []
  if (w.name === '') errors.push({ type: 'Required', field: `${field}.name` })
  else errors.push(...invalidEach(`${field}.name`, w.name, webhookNameProblems(w.name)))
  ;(w.rules ?? []).forEach((r: Obj, i: number) => errors.push(...validateRule(r, `${field}.rules[${i}]`)))
  if (w.failurePolicy !== undefined && !FAILURE_POLICIES.includes(w.failurePolicy)) errors.push(notSupported(`${field}.failurePolicy`, w.failurePolicy, FAILURE_POLICIES))
  if (w.matchPolicy !== undefined && !MATCH_POLICIES.includes(w.matchPolicy)) errors.push(notSupported(`${field}.matchPolicy`, w.matchPolicy, MATCH_POLICIES))
  if (w.sideEffects === undefined || w.sideEffects === null || w.sideEffects === '') {
    errors.push({ type: 'Required', field: `${field}.sideEffects`, detail: `must specify one of ${SIDE_EFFECTS.join(', ')}` })
  } else if (!SIDE_EFFECTS.includes(w.sideEffects)) errors.push(notSupported(`${field}.sideEffects`, w.sideEffects, SIDE_EFFECTS))
  if (typeof w.timeoutSeconds === 'number' && (w.timeoutSeconds < 1 || w.timeoutSeconds > 30)) {
    errors.push({ type: 'Invalid', field: `${field}.timeoutSeconds`, value: w.timeoutSeconds, detail: 'the timeout value must be between 1 and 30 seconds' })
  }
  errors.push(...validateLabelSelector(w.namespaceSelector, `${field}.namespaceSelector`))
  errors.push(...validateLabelSelector(w.objectSelector, `${field}.objectSelector`))
  if (mutating && w.reinvocationPolicy !== undefined && !REINVOCATION_POLICIES.includes(w.reinvocationPolicy)) {
    errors.push(notSupported(`${field}.reinvocationPolicy`, w.reinvocationPolicy, REINVOCATION_POLICIES))
  }
  errors.push(...validateClientConfig(w.clientConfig, `${field}.clientConfig`))
  if (checkMatchConditions) errors.push(...validateMatchConditions(w.matchConditions, `${field}.matchConditions`, { params: false, authorizer: true }))
  return errors
}

/** validateAdmissionReviewVersions: checked after the rest of the webhook, as the reference orders them. */
function validateAdmissionReviewVersions (versions: string[], field: string): FieldError[] {
  if (versions.length === 0) return [{ type: 'Required', field, detail: `must specify one of ${SUPPORTED_REVIEW_VERSIONS.join(', ')}` }]
  const errors: FieldError[] = []
  const seen = new Set<string>()
  versions.forEach((v, i) => {
    if (seen.has(v)) { errors.push({ type: 'Invalid', field: `${field}[${i}]`, value: v, detail: 'duplicate version' }); return }
    seen.add(v)
    errors.push(...invalidEach(`${field}[${i}]`, v, dns1035LabelProblems(v)))
  })
  if (!versions.some(v => (SUPPORTED_REVIEW_VERSIONS as readonly string[]).includes(v))) {
    errors.push({ type: 'Invalid', field, value: versions, detail: `must include at least one of ${SUPPORTED_REVIEW_VERSIONS.join(', ')}` })
  }
  return errors
}

/**
 * `checkMatchConditions` false on an update that keeps every webhook's matchConditions as they
 * were: conditions stored before are not compiled again, as the reference's ignoreMatchConditions.
 */
export function validateWebhookConfiguration (c: Obj, mutating: boolean, checkMatchConditions = true): FieldError[] {
  const errors: FieldError[] = []
  const names = new Set<string>()
  ;(c.webhooks ?? []).forEach((w: Obj, i: number) => {
    errors.push(...validateWebhook(w, `webhooks[${i}]`, mutating, checkMatchConditions))
    errors.push(...validateAdmissionReviewVersions(w.admissionReviewVersions ?? [], `webhooks[${i}].admissionReviewVersions`))
    if (typeof w.name === 'string' && w.name !== '') {
      if (names.has(w.name)) errors.push({ type: 'Duplicate', field: `webhooks[${i}].name`, value: w.name })
      names.add(w.name)
    }
  })
  return errors
}

function sameMatchConditions (now: Obj[] | undefined, before: Obj[] | undefined): boolean {
  const a = now ?? []
  const b = before ?? []
  return a.length === b.length && a.every((w, i) => JSON.stringify(w?.matchConditions ?? null) === JSON.stringify(b[i]?.matchConditions ?? null))
}

/** The whole definition but for kind and plural: the two configuration kinds differ in nothing else. */
export function webhookConfigurationKind (kind: string, plural: string, mutating: boolean): ResourceDefinition<any> {
  const strategy: Strategy<Obj> = {
    validateCreate: (c) => validateWebhookConfiguration(c, mutating),
    validateUpdate: (c, old) => validateWebhookConfiguration(c, mutating, !sameMatchConditions(c.webhooks, old.webhooks))
  }
  const columns: Column<Obj>[] = [{ name: 'Webhooks', type: 'integer', description: 'Webhooks is the number of webhooks in the configuration.', value: (c) => (c.webhooks ?? []).length }]
  return {
    group: GROUPS.admissionregistration,
    version: 'v1',
    kind,
    plural,
    singular: plural.replace(/s$/, ''),
    categories: ['api-extensions'],
    scope: 'Cluster',
    schema: webhookConfigurationSchema(kind, mutating),
    generation: true,
    strategy,
    columns
  }
}
