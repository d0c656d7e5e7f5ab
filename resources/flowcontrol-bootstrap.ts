// The API Priority and Fairness configuration every server has (upstream's bootstrap package):
// the mandatory objects, whose specs validation holds fixed, and the suggested ones, which the
// server keeps only while they are annotated autoupdate-spec "true". Specs are written in their
// defaulted form, so that they compare equal to what the store holds.
import { isDeepStrictEqual } from 'node:util'
import type { AnyObject } from './define.js'
import { CONTROLLER_USER, FLOWCONTROL, GROUPS, NAMESPACES, NODES, SERVICE_ACCOUNTS } from './naming.js'
import { AUTHENTICATED_GROUP, PRIVILEGED_GROUP } from './user-info.js'

const UNAUTHENTICATED_GROUP = 'system:unauthenticated'
const ALL = '*'

const groups = (...names: string[]): AnyObject[] => names.map(name => ({ kind: 'Group', group: { name } }))
const users = (...names: string[]): AnyObject[] => names.map(name => ({ kind: 'User', user: { name } }))
const systemServiceAccounts = (...names: string[]): AnyObject[] =>
  names.map(name => ({ kind: 'ServiceAccount', serviceAccount: { namespace: NAMESPACES.system, name } }))

const resourceRule = (verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean): AnyObject =>
  ({ verbs, apiGroups, resources, ...(clusterScope ? { clusterScope } : {}), namespaces })
const EVERY_RESOURCE = resourceRule([ALL], [ALL], [ALL], [ALL], true)
const EVERY_NON_RESOURCE = { verbs: [ALL], nonResourceURLs: [ALL] }

function flowSchema (name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: string, rules: AnyObject): AnyObject {
  return {
    metadata: { name, annotations: { [FLOWCONTROL.autoupdateAnnotation]: 'true' } },
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence,
      ...(distinguisher === '' ? {} : { distinguisherMethod: { type: distinguisher } }),
      rules: [rules]
    }
  }
}

/** A schema for the subjects' every request. */
const everything = (name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: string, subjects: AnyObject[]): AnyObject =>
  flowSchema(name, priorityLevel, matchingPrecedence, distinguisher, { subjects, resourceRules: [EVERY_RESOURCE], nonResourceRules: [EVERY_NON_RESOURCE] })

function priorityLevel (name: string, spec: AnyObject): AnyObject {
  return { metadata: { name, annotations: { [FLOWCONTROL.autoupdateAnnotation]: 'true' } }, spec }
}

const queued = (nominalConcurrencyShares: number, lendablePercent: number, queues: number, handSize: number, queueLengthLimit: number): AnyObject => ({
  type: 'Limited',
  limited: { nominalConcurrencyShares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit } } }
})

export const PRIORITY_LEVEL_EXEMPT = 'exempt'
export const FLOW_SCHEMA_EXEMPT = 'exempt'

// Each list in the reference's order (upstream's bootstrap package); test/flowcontrol/bootstrap-objects
// holds every field against a transcription of it.
export const MANDATORY_PRIORITY_LEVELS: readonly AnyObject[] = [
  // Only a minimal share: reached only when the suggested global-default is deleted.
  priorityLevel('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
  priorityLevel(PRIORITY_LEVEL_EXEMPT, { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } })
]

export const MANDATORY_FLOW_SCHEMAS: readonly AnyObject[] = [
  everything(FLOW_SCHEMA_EXEMPT, PRIORITY_LEVEL_EXEMPT, 1, '', groups(PRIVILEGED_GROUP)),
  everything('catch-all', 'catch-all', 10000, 'ByUser', groups(UNAUTHENTICATED_GROUP, AUTHENTICATED_GROUP))
]

export const SUGGESTED_PRIORITY_LEVELS: readonly AnyObject[] = [
  priorityLevel('system', queued(30, 33, 64, 6, 50)),
  priorityLevel('node-high', queued(40, 25, 64, 6, 50)),
  priorityLevel('leader-election', queued(10, 0, 16, 4, 50)),
  priorityLevel('workload-high', queued(40, 50, 128, 6, 50)),
  priorityLevel('workload-low', queued(100, 90, 128, 6, 50)),
  priorityLevel('global-default', queued(20, 50, 128, 6, 50))
]

const LEADER_ELECTION_VERBS = ['get', 'create', 'update']

export const SUGGESTED_FLOW_SCHEMAS: readonly AnyObject[] = [
  everything('system-nodes', 'system', 500, 'ByUser', groups(NODES.group)),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups(NODES.group),
    resourceRules: [
      resourceRule([ALL], [''], ['nodes', 'nodes/status'], [ALL], true),
      resourceRule([ALL], [GROUPS.coordination], ['leases'], [ALL], false)
    ]
  }),
  flowSchema('probes', PRIORITY_LEVEL_EXEMPT, 2, '', {
    subjects: groups(UNAUTHENTICATED_GROUP, AUTHENTICATED_GROUP),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }]
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users(CONTROLLER_USER.username, FLOWCONTROL.schedulerUser), ...systemServiceAccounts(ALL)],
    resourceRules: [resourceRule(LEADER_ELECTION_VERBS, [GROUPS.coordination], ['leases'], [ALL], false)]
  }),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: systemServiceAccounts(ALL),
    resourceRules: [
      resourceRule(LEADER_ELECTION_VERBS, [''], ['endpoints', 'configmaps'], [ALL], false),
      resourceRule(LEADER_ELECTION_VERBS, [GROUPS.coordination], ['leases'], [ALL], false)
    ]
  }),
  // Ahead of workload-leader-election, which would otherwise take the endpoints writes of these controllers.
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [...users(CONTROLLER_USER.username), ...systemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
    resourceRules: [resourceRule(LEADER_ELECTION_VERBS, [''], ['endpoints'], [ALL], false)]
  }),
  everything(FLOWCONTROL.controllerManagerSchema, 'workload-high', 800, 'ByNamespace', users(CONTROLLER_USER.username)),
  everything(FLOWCONTROL.schedulerSchema, 'workload-high', 800, 'ByNamespace', users(FLOWCONTROL.schedulerUser)),
  everything(FLOWCONTROL.systemServiceAccountsSchema, 'workload-high', 900, 'ByNamespace', systemServiceAccounts(ALL)),
  everything('service-accounts', 'workload-low', 9000, 'ByUser', groups(SERVICE_ACCOUNTS.group)),
  everything('global-default', 'global-default', 9900, 'ByUser', groups(UNAUTHENTICATED_GROUP, AUTHENTICATED_GROUP))
]

export const mandatoryPriorityLevel = (name: string): AnyObject | undefined => MANDATORY_PRIORITY_LEVELS.find(o => o.metadata.name === name)
export const mandatoryFlowSchema = (name: string): AnyObject | undefined => MANDATORY_FLOW_SCHEMAS.find(o => o.metadata.name === name)

/**
 * The reference's semantic equality of two specs: a Go zero value and an absent field are alike
 * (false, empty lists), a pointer set to zero is not absent.
 */
export function specsEqual (a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(withoutZeroes(a), withoutZeroes(b))
}

function withoutZeroes (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutZeroes)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || v === null || v === false || v === '' || (Array.isArray(v) && v.length === 0)) continue
    out[key] = withoutZeroes(v)
  }
  return out
}
