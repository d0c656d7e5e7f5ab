// FlowSchema (flowcontrol.apiserver.svc.io/v1, cluster scope): which requests (by subject, verb
// and target) belong to which priority level, and how flows within it are told apart. The
// mandatory schemas `exempt` and `catch-all` cannot take another spec. Nothing limits requests
// by them yet.
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type AnyObject, type FieldError } from './define.js'
import { AGE_COLUMN, Int32, objectSchema } from './meta.js'
import { AtomicList, SetList } from './core-types.js'
import { GROUPS } from './naming.js'
import { dnsLabelProblems, dnsSubdomainProblems, invalidEach } from './validation.js'
import { keepZero, message } from './protobuf.js'
import { FLOW_SCHEMA_EXEMPT, mandatoryFlowSchema, specsEqual } from './flowcontrol-bootstrap.js'
import { flowcontrolConditions, validateConditions } from './flowcontrol-types.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

export const DEFAULT_MATCHING_PRECEDENCE = 1000
const MAX_MATCHING_PRECEDENCE = 10000
const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser']
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User']
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch']
const NAMESPACE_INTRO = "each member of this list must be '*' or a DNS-1123 label; "

const named = (messageName: string, description: string) =>
  Type.Object({ name: opt(Type.String()) }, { ...struct, description, ...message(messageName, { name: keepZero(1) }) })

const Subject = Type.Object({
  kind: opt(Type.String({ description: 'User, Group or ServiceAccount: which of the other fields is set.' })),
  user: opt(named('UserSubject', 'The user a request is made as ("*" for every user).')),
  group: opt(named('GroupSubject', 'A group of the user a request is made as ("*" for every group).')),
  serviceAccount: opt(Type.Object({
    namespace: opt(Type.String({ description: 'The namespace of the service accounts; required.' })),
    name: opt(Type.String({ description: 'The name of the service account, or "*" for every one in the namespace.' }))
  }, { ...struct, description: 'Service accounts a request is made as.', ...message('ServiceAccountSubject', { namespace: keepZero(1), name: keepZero(2) }) }))
}, { ...struct, description: 'Who a request is made by, to match a FlowSchema.', ...message('Subject', { kind: keepZero(1), user: 2, group: 3, serviceAccount: 4 }) })

const ResourcePolicyRule = Type.Object({
  verbs: opt(SetList(Type.String(), { description: 'Matching verbs; "*" matches all and must then be the only one.' })),
  apiGroups: opt(SetList(Type.String(), { description: 'Matching API groups; "*" matches all and must then be the only one.' })),
  resources: opt(SetList(Type.String(), { description: 'Matching resources (with "/subresource"); "*" matches all and must then be the only one.' })),
  clusterScope: opt(Type.Boolean({ description: 'Whether requests without a namespace match.' })),
  namespaces: opt(SetList(Type.String(), { description: 'Matching namespaces; "*" matches every namespace but not cluster-scoped requests.' }))
}, { ...struct, description: 'A rule that matches resource requests.', ...message('ResourcePolicyRule', { verbs: 1, apiGroups: 2, resources: 3, clusterScope: 4, namespaces: 5 }) })

const NonResourcePolicyRule = Type.Object({
  verbs: opt(SetList(Type.String(), { description: 'Matching verbs; "*" matches all and must then be the only one.' })),
  nonResourceURLs: opt(SetList(Type.String(), { description: 'Matching paths; a trailing "/*" matches every path below.' }))
}, { ...struct, description: 'A rule that matches requests for paths that are no resources.', ...message('NonResourcePolicyRule', { verbs: 1, nonResourceURLs: 6 }) })

const schema = objectSchema(`${GROUPS.flowcontrol}/v1`, 'FlowSchema', {
  spec: opt(Type.Object({
    priorityLevelConfiguration: opt(Type.Object({
      name: opt(Type.String({ description: 'The name of the priority level; required.' }))
    }, { ...struct, description: 'The priority level matching requests are assigned to.', ...message('PriorityLevelConfigurationReference', { name: keepZero(1) }) })),
    matchingPrecedence: opt(Int32({ description: 'Lower values are matched first: 1 to 10000, default 1000; only `exempt` has 1.' })),
    distinguisherMethod: opt(Type.Object({
      type: opt(Type.String({ description: 'ByUser or ByNamespace.' }))
    }, { ...struct, description: 'How matching requests are split into flows; nil puts them all in one flow.', ...message('FlowDistinguisherMethod', { type: keepZero(1) }) })),
    rules: opt(AtomicList(Type.Object({
      subjects: opt(AtomicList(Subject, { description: 'Who the rule applies to; at least one.' })),
      resourceRules: opt(AtomicList(ResourcePolicyRule, { description: 'Matching resource requests.' })),
      nonResourceRules: opt(AtomicList(NonResourcePolicyRule, { description: 'Matching non-resource requests.' }))
    }, { ...struct, description: 'Rules that match requests by one of the subjects.', ...message('PolicyRulesWithSubjects', { subjects: 1, resourceRules: 2, nonResourceRules: 3 }) }), {
      description: 'A request matches the schema when it matches any of these; none matches nothing.'
    }))
  }, { ...struct, description: 'FlowSchemaSpec describes how the FlowSchema\'s specification looks like.', ...message('FlowSchemaSpec', { priorityLevelConfiguration: 1, matchingPrecedence: 2, distinguisherMethod: 3, rules: 4 }) })),
  status: opt(Type.Object({
    conditions: opt(flowcontrolConditions('FlowSchemaCondition'))
  }, { ...struct, description: 'FlowSchemaStatus represents the current state of a FlowSchema.', ...message('FlowSchemaStatus', { conditions: 1 }) }))
}, 'FlowSchema defines the schema of a group of flows. Note that a flow is made up of a set of inbound API requests with similar attributes and is identified by a pair of strings: the name of the FlowSchema and a "flow distinguisher".', { spec: 2, status: 3 })

type Schema = AnyObject

function defaultSpec (fs: Schema): void {
  fs.spec ??= {}
  if (fs.spec.matchingPrecedence === undefined || fs.spec.matchingPrecedence === null || fs.spec.matchingPrecedence === 0) fs.spec.matchingPrecedence = DEFAULT_MATCHING_PRECEDENCE
}

const hasWildcard = (list: unknown[] | undefined): boolean => (list ?? []).includes('*')
const empty = (list: unknown[] | undefined | null): boolean => !Array.isArray(list) || list.length === 0

function validateVerbs (verbs: string[] | undefined, at: string): FieldError[] {
  if (empty(verbs)) return [{ type: 'Required', field: `${at}.verbs`, detail: 'verbs must contain at least one value' }]
  if (hasWildcard(verbs)) return verbs!.length > 1 ? [{ type: 'Invalid', field: `${at}.verbs`, value: verbs, detail: "if '*' is present, must not specify other verbs" }] : []
  return verbs!.every(v => VERBS.includes(v)) ? [] : [{ type: 'NotSupported', field: `${at}.verbs`, value: verbs, supported: VERBS }]
}

function validateResourceRule (rule: Schema, at: string): FieldError[] {
  const errors = validateVerbs(rule.verbs, at)
  if (empty(rule.apiGroups)) errors.push({ type: 'Required', field: `${at}.apiGroups`, detail: 'resource rules must supply at least one api group' })
  else if (rule.apiGroups.length > 1 && hasWildcard(rule.apiGroups)) errors.push({ type: 'Invalid', field: `${at}.apiGroups`, value: rule.apiGroups, detail: "if '*' is present, must not specify other api groups" })
  if (empty(rule.resources)) errors.push({ type: 'Required', field: `${at}.resources`, detail: 'resource rules must supply at least one resource' })
  else if (rule.resources.length > 1 && hasWildcard(rule.resources)) errors.push({ type: 'Invalid', field: `${at}.resources`, value: rule.resources, detail: "if '*' is present, must not specify other resources" })
  const namespaces: string[] = rule.namespaces ?? []
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    errors.push({ type: 'Required', field: `${at}.namespaces`, detail: 'resource rules that are not cluster scoped must supply at least one namespace' })
  } else if (hasWildcard(namespaces)) {
    if (namespaces.length > 1) errors.push({ type: 'Invalid', field: `${at}.namespaces`, value: namespaces, detail: "if '*' is present, must not specify other namespaces" })
  } else {
    namespaces.forEach((ns, i) => errors.push(...dnsLabelProblems(ns).map(p => ({ type: 'Invalid' as const, field: `${at}.namespaces[${i}]`, value: ns, detail: NAMESPACE_INTRO + p }))))
  }
  return errors
}

/** The reference's ValidateNonResourceURLPath: a rooted path without blanks or `//`, `*` only as a final `/*`. */
function nonResourceURLProblem (path: string): string | undefined {
  if (path === '') return 'must not be empty'
  if (path === '/') return undefined
  if (!path.startsWith('/')) return 'must start with slash'
  if (path.includes(' ')) return 'must not contain white-space'
  if (path.includes('//')) return 'must not contain double slash'
  const wildcards = path.split('*').length - 1
  if (wildcards > 1 || (wildcards === 1 && !path.endsWith('/*'))) return 'wildcard can only do suffix matching'
  return undefined
}

function validateNonResourceRule (rule: Schema, at: string): FieldError[] {
  const errors = validateVerbs(rule.verbs, at)
  const urls: string[] = rule.nonResourceURLs ?? []
  if (urls.length === 0) errors.push({ type: 'Required', field: `${at}.nonResourceURLs`, detail: 'nonResourceURLs must contain at least one value' })
  else if (hasWildcard(urls)) {
    if (urls.length > 1) errors.push({ type: 'Invalid', field: `${at}.nonResourceURLs`, value: urls, detail: "if '*' is present, must not specify other non-resource URLs" })
  } else {
    urls.forEach((url, i) => {
      const problem = nonResourceURLProblem(url)
      if (problem !== undefined) errors.push({ type: 'Invalid', field: `${at}.nonResourceURLs[${i}]`, value: url, detail: problem })
    })
  }
  return errors
}

const present = (v: unknown): boolean => v !== undefined && v !== null

function validateNamedSubject (subject: Schema | undefined, at: string, kind: string): FieldError[] {
  if (!present(subject)) return [{ type: 'Required', field: at, detail: `${kind.toLowerCase()} is required when subject kind is '${kind}'` }]
  return (subject!.name ?? '') === '' ? [{ type: 'Required', field: `${at}.name`, detail: '' }] : []
}

function validateServiceAccountSubject (subject: Schema | undefined, at: string): FieldError[] {
  if (!present(subject)) return [{ type: 'Required', field: at, detail: "serviceAccount is required when subject kind is 'ServiceAccount'" }]
  const errors: FieldError[] = []
  const name: string = subject!.name ?? ''
  if (name === '') errors.push({ type: 'Required', field: `${at}.name`, detail: '' })
  else if (name !== '*') errors.push(...invalidEach(`${at}.name`, name, dnsSubdomainProblems(name)))
  const namespace: string = subject!.namespace ?? ''
  if (namespace === '') errors.push({ type: 'Required', field: `${at}.namespace`, detail: 'must specify namespace for service account' })
  else errors.push(...invalidEach(`${at}.namespace`, namespace, dnsLabelProblems(namespace)))
  return errors
}

function validateSubject (subject: Schema, at: string): FieldError[] {
  const errors: FieldError[] = []
  const forbid = (field: 'user' | 'group' | 'serviceAccount', detail: string): void => {
    if (present(subject[field])) errors.push({ type: 'Forbidden', field: `${at}.${field}`, detail })
  }
  const notUser = "user is forbidden when subject kind is not 'User'"
  const notGroup = "group is forbidden when subject kind is not 'Group'"
  const notServiceAccount = "serviceAccount is forbidden when subject kind is not 'ServiceAccount'"
  switch (subject.kind) {
    case 'ServiceAccount':
      errors.push(...validateServiceAccountSubject(subject.serviceAccount, `${at}.serviceAccount`))
      forbid('user', notUser)
      forbid('group', notGroup)
      break
    case 'User':
      errors.push(...validateNamedSubject(subject.user, `${at}.user`, 'User'))
      forbid('serviceAccount', notServiceAccount)
      forbid('group', notGroup)
      break
    case 'Group':
      errors.push(...validateNamedSubject(subject.group, `${at}.group`, 'Group'))
      forbid('serviceAccount', notServiceAccount)
      forbid('user', notUser)
      break
    default:
      errors.push({ type: 'NotSupported', field: `${at}.kind`, value: subject.kind ?? '', supported: SUBJECT_KINDS })
  }
  return errors
}

function validateRules (rule: Schema, at: string): FieldError[] {
  const errors: FieldError[] = []
  if (empty(rule.subjects)) errors.push({ type: 'Required', field: `${at}.subjects`, detail: 'subjects must contain at least one value' })
  else rule.subjects.forEach((s: Schema, i: number) => errors.push(...validateSubject(s ?? {}, `${at}.subjects[${i}]`)))
  if (empty(rule.resourceRules) && empty(rule.nonResourceRules)) errors.push({ type: 'Required', field: at, detail: 'at least one of resourceRules and nonResourceRules has to be non-empty' })
  ;(rule.resourceRules ?? []).forEach((r: Schema, i: number) => errors.push(...validateResourceRule(r ?? {}, `${at}.resourceRules[${i}]`)))
  ;(rule.nonResourceRules ?? []).forEach((r: Schema, i: number) => errors.push(...validateNonResourceRule(r ?? {}, `${at}.nonResourceRules[${i}]`)))
  return errors
}

function validateSpec (name: string, spec: Schema): FieldError[] {
  const errors: FieldError[] = []
  const precedence: number = spec.matchingPrecedence ?? 0
  if (precedence <= 0) errors.push({ type: 'Invalid', field: 'spec.matchingPrecedence', value: precedence, detail: 'must be a positive value' })
  if (precedence > MAX_MATCHING_PRECEDENCE) errors.push({ type: 'Invalid', field: 'spec.matchingPrecedence', value: precedence, detail: `must not be greater than ${MAX_MATCHING_PRECEDENCE}` })
  if (precedence === 1 && name !== FLOW_SCHEMA_EXEMPT) errors.push({ type: 'Invalid', field: 'spec.matchingPrecedence', value: precedence, detail: "only the schema named 'exempt' may have matchingPrecedence 1" })
  if (present(spec.distinguisherMethod) && !DISTINGUISHER_METHODS.includes(spec.distinguisherMethod.type)) {
    errors.push({ type: 'NotSupported', field: 'spec.distinguisherMethod.type', value: spec.distinguisherMethod, supported: DISTINGUISHER_METHODS })
  }
  const level: string = spec.priorityLevelConfiguration?.name ?? ''
  if (level === '') errors.push({ type: 'Required', field: 'spec.priorityLevelConfiguration.name', detail: 'must reference a priority level' })
  else errors.push(...invalidEach('spec.priorityLevelConfiguration.name', level, dnsSubdomainProblems(level)))
  ;(spec.rules ?? []).forEach((r: Schema, i: number) => errors.push(...validateRules(r ?? {}, `spec.rules[${i}]`)))
  return errors
}

function validate (fs: Schema): FieldError[] {
  const name: string = fs.metadata?.name ?? ''
  const errors = validateSpec(name, fs.spec ?? {})
  const mandatory = mandatoryFlowSchema(name)
  if (mandatory !== undefined && !specsEqual(fs.spec, mandatory.spec)) {
    errors.push({ type: 'Invalid', field: 'spec', value: fs.spec, detail: `spec of '${name}' must equal the fixed value` })
  }
  return [...errors, ...validateConditions(fs.status?.conditions)]
}

/** MissingPL: the Dangling condition's status, `?` before the configuration controller has looked. */
function danglingText (fs: Schema): string {
  const dangling = (fs.status?.conditions ?? []).find((c: Schema) => c?.type === 'Dangling')
  return dangling === undefined ? '?' : dangling.status ?? ''
}

export default defineResource({
  group: GROUPS.flowcontrol,
  version: 'v1',
  kind: 'FlowSchema',
  plural: 'flowschemas',
  singular: 'flowschema',
  scope: 'Cluster',
  schema,
  subresources: { status: statusSubresource() },
  strategy: {
    prepareForCreate: defaultSpec,
    prepareForUpdate: defaultSpec,
    validate
  },
  columns: [
    { name: 'PriorityLevel', type: 'string', description: '`name` is the name of the priority level configuration being referenced Required.', value: (fs: Schema) => fs.spec?.priorityLevelConfiguration?.name ?? '' },
    { name: 'MatchingPrecedence', type: 'string', description: '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.', value: (fs: Schema) => fs.spec?.matchingPrecedence ?? 0 },
    { name: 'DistinguisherMethod', type: 'string', description: '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.', value: (fs: Schema) => fs.spec?.distinguisherMethod?.type ?? '<none>' },
    AGE_COLUMN,
    { name: 'MissingPL', type: 'string', description: 'references a broken or non-existent PriorityLevelConfiguration', value: danglingText }
  ],
  example: {
    metadata: { name: 'example-batch' },
    spec: {
      priorityLevelConfiguration: { name: 'workload-low' },
      matchingPrecedence: 5000,
      distinguisherMethod: { type: 'ByNamespace' },
      rules: [{
        subjects: [{ kind: 'Group', group: { name: 'system:serviceaccounts' } }],
        resourceRules: [{ verbs: ['list', 'watch'], apiGroups: ['batch'], resources: ['jobs'], namespaces: ['*'] }],
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]
      }]
    },
    status: { conditions: [{ type: 'Dangling', status: 'False', reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "workload-low" and it exists', lastTransitionTime: '2024-01-01T00:00:00Z' }] }
  }
})
