// ResourceQuota (core v1, namespaced): the most a namespace may hold, by object count, compute
// and storage, optionally only for pods of some scopes. The resourcequota controller keeps
// status (hard as the spec says, used as counted); the ResourceQuota admission plugin charges
// status.used before an object is written.
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type FieldError } from './define.js'
import { AGE_COLUMN, objectSchema } from './meta.js'
import { AtomicList, ResourceList, validateResourceList } from './core-types.js'
import { isWholeQuantity, type ResourceList as Quantities } from './quantity.js'
import { keepZero, message } from './protobuf.js'

export const QUOTA_SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'] as const
const SCOPE_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist']

const COMPUTE = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']
const INTEGER_RESOURCES = ['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']
const STANDARD_RESOURCES = new Set([
  ...COMPUTE, 'ephemeral-storage', 'requests.storage', 'requests.ephemeral-storage', 'limits.ephemeral-storage', ...INTEGER_RESOURCES
])
const isStandard = (name: string): boolean => STANDARD_RESOURCES.has(name) || name.startsWith('hugepages-') || name.startsWith('requests.hugepages-')

/** The hard resources a scope may restrict: pod count and cpu/memory only (BestEffort: the count). */
function scopeAllows (scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return resource === 'pods'
  if ((QUOTA_SCOPES as readonly string[]).includes(scope)) return resource === 'pods' || COMPUTE.includes(resource)
  return true
}

const ScopedSelectorRequirement = Type.Object({
  scopeName: Type.String(),
  operator: Type.String(),
  values: Type.Optional(AtomicList(Type.String()))
}, { additionalProperties: false, ...message('ScopedResourceSelectorRequirement', { scopeName: keepZero(1), operator: keepZero(2), values: 3 }) })

const schema = objectSchema('v1', 'ResourceQuota', {
  spec: Type.Optional(Type.Object({
    hard: Type.Optional(ResourceList({ description: 'The most of each named resource the namespace may use.' })),
    scopes: Type.Optional(AtomicList(Type.String(), { description: 'Filters on the objects tracked; all must match.' })),
    scopeSelector: Type.Optional(Type.Object({
      matchExpressions: Type.Optional(AtomicList(ScopedSelectorRequirement))
    }, { additionalProperties: false, 'x-kubernetes-map-type': 'atomic', ...message('ScopeSelector', { matchExpressions: 1 }) }))
  }, { additionalProperties: false, ...message('ResourceQuotaSpec', { hard: 1, scopes: 2, scopeSelector: 3 }) })),
  status: Type.Optional(Type.Object({
    hard: Type.Optional(ResourceList({ description: 'The enforced hard limits.' })),
    used: Type.Optional(ResourceList({ description: 'What the namespace uses now.' }))
  }, { additionalProperties: false, ...message('ResourceQuotaStatus', { hard: 1, used: 2 }) }))
}, 'ResourceQuota sets aggregate quota restrictions enforced per namespace.', { spec: 2, status: 3 })

function validateQuotaList (list: Quantities | undefined, field: string): FieldError[] {
  const errors = validateResourceList(list, field)
  for (const [name, value] of Object.entries(list ?? {})) {
    const f = `${field}[${name}]`
    if (!name.includes('/') && !isStandard(name)) errors.push({ type: 'Invalid', field: f, value: name, detail: 'must be a standard resource for quota' })
    if (INTEGER_RESOURCES.includes(name) && !isWholeQuantity(value)) errors.push({ type: 'Invalid', field: f, value, detail: 'must be an integer' })
  }
  return errors
}

type Spec = Record<string, any>

function validateScopes (spec: Spec): FieldError[] {
  const errors: FieldError[] = []
  const scopes: string[] = spec.scopes ?? []
  const hard = Object.keys(spec.hard ?? {}).sort()
  for (const scope of scopes) {
    if (!(QUOTA_SCOPES as readonly string[]).includes(scope)) errors.push({ type: 'Invalid', field: 'spec.scopes', value: scopes, detail: 'unsupported scope' })
    for (const k of hard) {
      if (isStandard(k) && !scopeAllows(scope, k)) errors.push({ type: 'Invalid', field: 'spec.scopes', value: scopes, detail: 'unsupported scope applied to resource' })
    }
  }
  for (const [a, b] of [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']]) {
    if (scopes.includes(a!) && scopes.includes(b!)) errors.push({ type: 'Invalid', field: 'spec.scopes', value: scopes, detail: 'conflicting scopes' })
  }
  const expressions: Array<Record<string, any>> = spec.scopeSelector?.matchExpressions ?? []
  const seen = new Set<string>()
  expressions.forEach((e, i) => {
    const f = `spec.scopeSelector.matchExpressions[${i as number}]`
    if (!(QUOTA_SCOPES as readonly string[]).includes(e.scopeName)) errors.push({ type: 'Invalid', field: `${f}.scopeName`, value: e.scopeName, detail: 'unsupported scope' })
    for (const k of hard) {
      if (isStandard(k) && !scopeAllows(e.scopeName, k)) errors.push({ type: 'Invalid', field: `${f}.scopeName`, value: e.scopeName, detail: 'unsupported scope applied to resource' })
    }
    const values: string[] = e.values ?? []
    if (!SCOPE_OPERATORS.includes(e.operator)) errors.push({ type: 'Invalid', field: `${f}.operator`, value: e.operator, detail: 'not a valid selector operator' })
    else if ((e.operator === 'In' || e.operator === 'NotIn') && values.length === 0) errors.push({ type: 'Required', field: `${f}.values`, detail: 'must be at least one value when `operator` is \'In\' or \'NotIn\' for scope selector' })
    else if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && values.length > 0) errors.push({ type: 'Invalid', field: `${f}.values`, value: values, detail: 'must be no value when `operator` is \'Exist\' or \'DoesNotExist\' for scope selector' })
    seen.add(e.scopeName)
  })
  for (const [a, b] of [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']]) {
    if (seen.has(a!) && seen.has(b!)) errors.push({ type: 'Invalid', field: 'spec.scopeSelector', value: [...seen], detail: 'conflicting scopes' })
  }
  return errors
}

type Quota = Record<string, any>

/** `resource: used/hard, …` for the names `pick` keeps, as the reference printer's Request and Limit columns. */
function usageColumn (q: Quota, pick: (name: string) => boolean): string {
  const hard: Quantities = q.status?.hard ?? {}
  const used: Quantities = q.status?.used ?? {}
  return Object.keys(hard).filter(pick).sort().map(k => `${k}: ${used[k] ?? '0'}/${hard[k]!}`).join(', ')
}

export default defineResource({
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  plural: 'resourcequotas',
  singular: 'resourcequota',
  shortNames: ['quota'],
  scope: 'Namespaced',
  schema,
  generation: false,
  subresources: { status: statusSubresource() },
  strategy: {
    validate (q) {
      const spec: Spec = q.spec ?? {}
      const errors = [...validateQuotaList(spec.hard, 'spec.hard'), ...validateScopes(spec)]
      errors.push(...validateQuotaList(q.status?.hard, 'status.hard'), ...validateQuotaList(q.status?.used, 'status.used'))
      return errors
    }
  },
  columns: [
    AGE_COLUMN,
    { name: 'Request', type: 'string', description: 'Request represents a minimum amount of cpu/memory that a container may consume.', value: (q: Quota) => usageColumn(q, k => !k.startsWith('limits.')) },
    { name: 'Limit', type: 'string', description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.', value: (q: Quota) => usageColumn(q, k => k.startsWith('limits.')) }
  ],
  example: {
    metadata: { name: 'object-counts' },
    spec: { hard: { configmaps: '100', secrets: '100' } },
    status: { hard: { configmaps: '50', secrets: '50' }, used: { configmaps: '7', secrets: '7' } }
  }
})
