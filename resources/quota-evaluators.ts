// How quota measures an object, per kind, as the reference evaluators do: which quota resource
// names it is charged under, what it uses, which scopes it falls in, and what a pod must
// declare. Pods, services and claims have their own; every other stored kind counts as
// `count/<resource>[.<group>]` (and its legacy name, for the core kinds that have one).
import { GROUPS } from './naming.js'
import { isBestEffort, podLimits, podRequests } from './pod-resources.js'
import { addLists, roundUpQuantity, compareQuantities, type ResourceList } from './quantity.js'
import type { AnyObject } from './define.js'

/** A quota scope: a `scopes` entry (as Exists) or a scopeSelector expression. */
export interface ScopeRequirement { scopeName: string, operator: string, values?: string[] }

export interface QuotaEvaluator {
  /** Whether a write can change what quota counts (CREATE of most kinds). */
  handles (operation: string, subresource: string): boolean
  /** The names among `names` this kind is charged under. */
  matchingResources (names: string[]): string[]
  matchesScope (scope: ScopeRequirement, obj: AnyObject): boolean
  usage (obj: AnyObject): ResourceList
  /** Why the object cannot be admitted under a quota that restricts `required` (pods: undeclared cpu/memory). */
  constraints? (required: string[], obj: AnyObject): string | undefined
}

/** The object-count name of a kind: `count/configmaps`, `count/deployments.apps`. */
export const objectCountName = (plural: string, group: string): string => `count/${plural}${group === '' ? '' : `.${group}`}`

/** Core kinds whose count also goes by a bare name. */
const LEGACY_COUNT_NAMES: Record<string, string> = { configmaps: 'configmaps', secrets: 'secrets', resourcequotas: 'resourcequotas', replicationcontrollers: 'replicationcontrollers' }

const noScope = (): boolean => false
const intersect = (names: string[], known: readonly string[]): string[] => names.filter(n => known.includes(n))

export function objectCountEvaluator (plural: string, group: string): QuotaEvaluator {
  const legacy = group === '' && Object.hasOwn(LEGACY_COUNT_NAMES, plural) ? LEGACY_COUNT_NAMES[plural] : undefined
  const names = [objectCountName(plural, group), ...(legacy === undefined ? [] : [legacy])]
  return {
    handles: (op, sub) => op === 'CREATE' && sub === '',
    matchingResources: (input) => intersect(input, names),
    matchesScope: noScope,
    usage: () => Object.fromEntries(names.map(n => [n, '1']))
  }
}

// ---- pods ---------------------------------------------------------------------------------

const POD_RESOURCES = ['count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods']
const HUGEPAGES = 'hugepages-'
/** Quota names that make each container declare a value (a historical rule, kept for cpu and memory only). */
const MUST_DECLARE = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']
const NATIVE_DOMAIN = /(^|\.)(kubernetes\.io|svc\.io)\//
const isExtended = (name: string): boolean => name.includes('/') && !NATIVE_DOMAIN.test(name) && !name.startsWith('requests.')

/** What one container's or the pod's requests and limits count as. */
function computeUsage (requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = { pods: '1' }
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    if (requests[r] !== undefined) { out[r] = requests[r]; out[`requests.${r}`] = requests[r] }
    if (limits[r] !== undefined) out[`limits.${r}`] = limits[r]
  }
  for (const [name, value] of Object.entries(requests)) {
    if (name.startsWith(HUGEPAGES)) { out[name] = value; out[`requests.${name}`] = value }
    if (isExtended(name)) out[`requests.${name}`] = value
  }
  return out
}

/** Pods that reached a terminal phase, or whose grace period ran out, use no compute. */
function countsCompute (pod: AnyObject): boolean {
  const phase = pod.status?.phase
  if (phase === 'Failed' || phase === 'Succeeded') return false
  const deletion = pod.metadata?.deletionTimestamp
  const grace = pod.metadata?.deletionGracePeriodSeconds
  if (typeof deletion === 'string' && typeof grace === 'number' && Date.now() > Date.parse(deletion) + grace * 1000) return false
  return true
}

function crossNamespaceAffinity (pod: AnyObject): boolean {
  const a = pod.spec?.affinity ?? {}
  const terms = [a.podAffinity, a.podAntiAffinity].flatMap((x: AnyObject | undefined) => [
    ...(x?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
    ...(x?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w: AnyObject) => w.podAffinityTerm ?? {})
  ])
  return terms.some((t: AnyObject) => (t.namespaces ?? []).length > 0 || t.namespaceSelector != null)
}

/** A scopeSelector expression on one value ('' when the object has none), as a label selector on that one key. */
function selectorMatches (s: ScopeRequirement, value: string): boolean {
  const has = value !== ''
  switch (s.operator) {
    case 'Exists': return has
    case 'DoesNotExist': return !has
    case 'In': return has && (s.values ?? []).includes(value)
    case 'NotIn': return !has || !(s.values ?? []).includes(value)
    default: return false
  }
}

function podMatchesScope (s: ScopeRequirement, pod: AnyObject): boolean {
  switch (s.scopeName) {
    case 'Terminating': return typeof pod.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0
    case 'NotTerminating': return !(typeof pod.spec?.activeDeadlineSeconds === 'number' && pod.spec.activeDeadlineSeconds >= 0)
    case 'BestEffort': return isBestEffort(pod)
    case 'NotBestEffort': return !isBestEffort(pod)
    case 'PriorityClass': return selectorMatches(s, pod.spec?.priorityClassName ?? '')
    case 'CrossNamespacePodAffinity': return crossNamespaceAffinity(pod)
    default: return false
  }
}

const podEvaluator: QuotaEvaluator = {
  handles: (op, sub) => op === 'CREATE' && sub === '',
  matchingResources: (input) => input.filter(n => POD_RESOURCES.includes(n) || n.startsWith(HUGEPAGES) || n.startsWith(`requests.${HUGEPAGES}`) ||
    (n.startsWith('requests.') && !POD_RESOURCES.includes(n) && n.includes('/') && !NATIVE_DOMAIN.test(n))),
  matchesScope: podMatchesScope,
  usage (pod) {
    const out: ResourceList = { 'count/pods': '1' }
    if (!countsCompute(pod)) return out
    return addLists(out, computeUsage(podRequests(pod, { overhead: true }), podLimits(pod, { overhead: true })))
  },
  constraints (required, pod) {
    const wanted = required.filter(n => MUST_DECLARE.includes(n))
    const missing = new Map<string, Set<string>>()
    for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
      const declared = computeUsage(c.resources?.requests ?? {}, c.resources?.limits ?? {})
      for (const n of wanted) if (declared[n] === undefined) missing.set(n, (missing.get(n) ?? new Set()).add(c.name))
    }
    if (missing.size === 0) return undefined
    return `must specify ${[...missing.keys()].sort().map(n => `${n} for: ${[...missing.get(n)!].sort().join(',')}`).join('; ')}`
  }
}

// ---- services -----------------------------------------------------------------------------

const SERVICE_RESOURCES = ['count/services', 'services', 'services.nodeports', 'services.loadbalancers']
const serviceEvaluator: QuotaEvaluator = {
  handles: (op, sub) => (op === 'CREATE' || op === 'UPDATE') && sub === '',
  matchingResources: (input) => intersect(input, SERVICE_RESOURCES),
  matchesScope: noScope,
  usage (svc) {
    const ports: AnyObject[] = svc.spec?.ports ?? []
    const type = svc.spec?.type
    let nodePorts = 0
    if (type === 'NodePort') nodePorts = ports.length
    if (type === 'LoadBalancer') nodePorts = svc.spec?.allocateLoadBalancerNodePorts === false ? ports.filter(p => (p.nodePort ?? 0) !== 0).length : ports.length
    return { 'count/services': '1', services: '1', 'services.nodeports': String(nodePorts), 'services.loadbalancers': type === 'LoadBalancer' ? '1' : '0' }
  }
}

// ---- persistent volume claims -------------------------------------------------------------

const CLAIM_RESOURCES = ['persistentvolumeclaims', 'requests.storage']
/** `<class>.storageclass.storage.svc.io/<resource>`, and the upstream spelling beside it. */
const CLASS_SUFFIXES = [`.storageclass.${GROUPS.storage}/`, '.storageclass.storage.k8s.io/']

const claimEvaluator: QuotaEvaluator = {
  handles: (op, sub) => (op === 'CREATE' || op === 'UPDATE') && sub === '',
  matchingResources: (input) => input.filter(n => n === 'count/persistentvolumeclaims' || CLAIM_RESOURCES.includes(n) ||
    CLASS_SUFFIXES.some(s => CLAIM_RESOURCES.some(r => n.endsWith(`${s}${r}`)))),
  matchesScope: noScope,
  usage (pvc) {
    const out: ResourceList = { persistentvolumeclaims: '1', 'count/persistentvolumeclaims': '1' }
    const cls: string = pvc.spec?.storageClassName ?? ''
    if (cls !== '') for (const s of CLASS_SUFFIXES) out[`${cls}${s}persistentvolumeclaims`] = '1'
    let storage: string | undefined = pvc.spec?.resources?.requests?.storage
    const allocated: string | undefined = pvc.status?.allocatedResources?.storage
    if (storage !== undefined && allocated !== undefined && compareQuantities(allocated, storage) > 0) storage = allocated
    if (storage !== undefined) {
      storage = roundUpQuantity(storage)
      out['requests.storage'] = storage
      if (cls !== '') for (const s of CLASS_SUFFIXES) out[`${cls}${s}requests.storage`] = storage
    }
    return out
  }
}

const SPECIFIC: Record<string, QuotaEvaluator> = { pods: podEvaluator, services: serviceEvaluator, persistentvolumeclaims: claimEvaluator }

/** Kinds quota never counts: never stored, or (events) never counted upstream. */
export const quotaIgnores = (r: { plural: string, group: string, virtual?: unknown, namespaced: boolean }): boolean =>
  r.virtual !== undefined || !r.namespaced || r.plural === 'events' || r.plural === 'bindings'

const evaluators = new Map<string, QuotaEvaluator>()

/** The evaluator of a kind (made once: admission asks on every write). */
export function evaluatorFor (plural: string, group: string): QuotaEvaluator {
  const key = `${plural}.${group}`
  let e = evaluators.get(key)
  if (e === undefined) {
    e = group === '' && Object.hasOwn(SPECIFIC, plural) ? SPECIFIC[plural]! : objectCountEvaluator(plural, group)
    evaluators.set(key, e)
  }
  return e
}

/** A quota's scopes and scope selector as one list of requirements. */
export const quotaScopes = (quota: AnyObject): ScopeRequirement[] => [
  ...((quota.spec?.scopes ?? []) as string[]).map(scopeName => ({ scopeName, operator: 'Exists' })),
  ...((quota.spec?.scopeSelector?.matchExpressions ?? []) as ScopeRequirement[])
]

/** Whether a quota applies to an object: it restricts something the kind uses, and every scope matches. */
export function quotaMatches (e: QuotaEvaluator, quota: AnyObject, hard: ResourceList, obj: AnyObject): boolean {
  return e.matchingResources(Object.keys(hard)).length > 0 && quotaScopes(quota).every(s => e.matchesScope(s, obj))
}
