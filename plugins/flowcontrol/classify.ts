// Classification as the reference's API Priority and Fairness does it: the FlowSchemas in order of
// matchingPrecedence (then name), the first whose rules match the request's user and what it asks
// decides its priority level and its flow (the schema plus the distinguisher). A schema whose
// level does not exist is skipped. The mandatory objects are always there: the reference imagines
// them when the store lacks them, so a deleted catch-all still catches everything.
import type { AnyObject } from '../../resources/define.js'
import type { UserInfo } from '../../resources/user-info.js'
import { SERVICE_ACCOUNTS } from '../../resources/naming.js'
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from '../../resources/flowcontrol-bootstrap.js'
import type { RequestInfo } from '../request-info.js'

const ALL = '*'

/** What classification reads of a request: the parsed path and the (impersonated) user. */
export interface RequestDigest { info: RequestInfo, user: UserInfo }

export interface FlowSchemaEntry {
  name: string
  uid: string
  matchingPrecedence: number
  priorityLevel: string
  distinguisher: 'ByUser' | 'ByNamespace' | ''
  rules: AnyObject[]
}

export interface PriorityLevelEntry {
  name: string
  uid: string
  exempt: boolean
  nominalConcurrencyShares: number
  lendablePercent: number
  /** undefined: no limit on borrowing (the reference's nil borrowingLimitPercent). */
  borrowingLimitPercent: number | undefined
  /** Limited levels: Queue (with queues, handSize, queueLengthLimit) or Reject. */
  queuing: { queues: number, handSize: number, queueLengthLimit: number } | undefined
}

/** The configuration as of one read of the caches: schemas in matching order, levels by name. */
export interface FlowConfig {
  schemas: FlowSchemaEntry[]
  levels: Map<string, PriorityLevelEntry>
}

export interface Classification {
  schema: FlowSchemaEntry
  level: PriorityLevelEntry
}

const num = (v: unknown, fallback: number): number => typeof v === 'number' && Number.isFinite(v) ? v : fallback

function levelEntry (o: AnyObject): PriorityLevelEntry {
  const spec = o.spec ?? {}
  const uid: string = o.metadata?.uid ?? ''
  const name: string = o.metadata?.name ?? ''
  if (spec.type === 'Exempt') {
    return { name, uid, exempt: true, nominalConcurrencyShares: num(spec.exempt?.nominalConcurrencyShares, 0), lendablePercent: num(spec.exempt?.lendablePercent, 0), borrowingLimitPercent: 0, queuing: undefined }
  }
  const limited = spec.limited ?? {}
  const response = limited.limitResponse ?? {}
  const q = response.queuing ?? {}
  return {
    name,
    uid,
    exempt: false,
    nominalConcurrencyShares: num(limited.nominalConcurrencyShares, 30),
    lendablePercent: num(limited.lendablePercent, 0),
    borrowingLimitPercent: typeof limited.borrowingLimitPercent === 'number' ? limited.borrowingLimitPercent : undefined,
    queuing: response.type === 'Queue' ? { queues: num(q.queues, 64), handSize: num(q.handSize, 8), queueLengthLimit: num(q.queueLengthLimit, 50) } : undefined
  }
}

function schemaEntry (o: AnyObject): FlowSchemaEntry {
  const spec = o.spec ?? {}
  const d = spec.distinguisherMethod?.type
  return {
    name: o.metadata?.name ?? '',
    uid: o.metadata?.uid ?? '',
    matchingPrecedence: num(spec.matchingPrecedence, 1000),
    priorityLevel: spec.priorityLevelConfiguration?.name ?? '',
    distinguisher: d === 'ByUser' || d === 'ByNamespace' ? d : '',
    rules: Array.isArray(spec.rules) ? spec.rules : []
  }
}

/** The configuration from the stored objects, the mandatory ones imagined where missing. */
export function digestConfig (flowSchemas: AnyObject[], priorityLevels: AnyObject[]): FlowConfig {
  const levels = new Map<string, PriorityLevelEntry>()
  for (const o of priorityLevels) levels.set(o.metadata.name, levelEntry(o))
  for (const o of MANDATORY_PRIORITY_LEVELS) if (!levels.has(o.metadata.name)) levels.set(o.metadata.name, levelEntry(o))
  const byName = new Map<string, FlowSchemaEntry>()
  for (const o of flowSchemas) byName.set(o.metadata.name, schemaEntry(o))
  for (const o of MANDATORY_FLOW_SCHEMAS) if (!byName.has(o.metadata.name)) byName.set(o.metadata.name, schemaEntry(o))
  const schemas = [...byName.values()]
    .filter(s => levels.has(s.priorityLevel))
    .sort((a, b) => a.matchingPrecedence - b.matchingPrecedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { schemas, levels }
}

const has = (list: unknown, value: string): boolean =>
  Array.isArray(list) && (list.includes(value) || list.includes(ALL))

function matchesSubject (s: AnyObject, user: UserInfo): boolean {
  switch (s?.kind) {
    case 'User': return s.user?.name === ALL || s.user?.name === user.username
    case 'Group': return s.group?.name === ALL || user.groups.includes(s.group?.name)
    case 'ServiceAccount': {
      const ns: string = s.serviceAccount?.namespace ?? ''
      const name: string = s.serviceAccount?.name ?? ''
      const prefix = `${SERVICE_ACCOUNTS.userPrefix}${ns}:`
      if (!user.username.startsWith(prefix)) return false
      // As the reference: a `*` name is any user name under the namespace's prefix.
      return name === ALL || user.username.slice(prefix.length) === name
    }
    default: return false
  }
}

function matchesResourceRule (r: AnyObject, info: RequestInfo): boolean {
  if (!has(r.verbs, info.verb) || !has(r.apiGroups, info.apiGroup)) return false
  const resource = info.subresource === '' ? info.resource : `${info.resource}/${info.subresource}`
  if (!has(r.resources, resource)) return false
  if (info.namespace === '') return r.clusterScope === true
  return has(r.namespaces, info.namespace)
}

function matchesURL (patterns: unknown, path: string): boolean {
  if (!Array.isArray(patterns)) return false
  for (const p of patterns) {
    if (typeof p !== 'string') continue
    if (p === ALL || p === path) return true
    if (p.endsWith('*') && path.startsWith(p.replace(/\*+$/, ''))) return true
  }
  return false
}

function matchesRule (rule: AnyObject, { info, user }: RequestDigest): boolean {
  if (!Array.isArray(rule.subjects) || !rule.subjects.some((s: AnyObject) => matchesSubject(s, user))) return false
  if (info.isResourceRequest) return Array.isArray(rule.resourceRules) && rule.resourceRules.some((r: AnyObject) => matchesResourceRule(r ?? {}, info))
  return Array.isArray(rule.nonResourceRules) && rule.nonResourceRules.some((r: AnyObject) => has(r?.verbs, info.verb) && matchesURL(r?.nonResourceURLs, info.path))
}

/** The first schema that matches, with its level; undefined only if the config has no catch-all. */
export function classify (config: FlowConfig, digest: RequestDigest): Classification | undefined {
  for (const schema of config.schemas) {
    if (schema.rules.some(rule => matchesRule(rule ?? {}, digest))) return { schema, level: config.levels.get(schema.priorityLevel)! }
  }
  return undefined
}

/** The flow's distinguisher: the user, the namespace, or nothing. */
export function distinguisherOf (schema: FlowSchemaEntry, digest: RequestDigest): string {
  if (schema.distinguisher === 'ByUser') return digest.user.username
  if (schema.distinguisher === 'ByNamespace') return digest.info.namespace
  return ''
}

const MEMO_LIMIT = 10_000

/**
 * Classification remembered per user, groups and what is asked, until the configuration changes:
 * what is matched (subjects, verb, group, resource, namespace, path) is all in the key, so a
 * remembered answer is the one matching would give. Bounded: past the limit it starts over.
 */
export class ClassificationMemo {
  private memo = new Map<string, Classification | undefined>()
  private config: FlowConfig | undefined

  classify (config: FlowConfig, digest: RequestDigest): Classification | undefined {
    if (config !== this.config) {
      this.config = config
      this.memo.clear()
    }
    const { info, user } = digest
    const key = info.isResourceRequest
      ? `${user.username}\n${user.groups.join('\n')}\n\r${info.verb}\n${info.apiGroup}\n${info.resource}\n${info.subresource}\n${info.namespace}`
      : `${user.username}\n${user.groups.join('\n')}\n\r${info.verb}\n${info.path}`
    const known = this.memo.get(key)
    if (known !== undefined || this.memo.has(key)) return known
    const found = classify(config, digest)
    // Non-resource paths are the client's to choose: only resource requests (bounded by what is served) and the few health paths are remembered.
    if (info.isResourceRequest || info.path.length < 64) {
      if (this.memo.size >= MEMO_LIMIT) this.memo.clear()
      this.memo.set(key, found)
    }
    return found
  }
}
