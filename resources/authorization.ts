// Authorization's vocabulary: the attributes of a request and a mode's verdict on them.
import type { UserInfo } from './user-info.js'

/** What is being asked, as the spec lists request attributes. */
export interface Attributes {
  user: UserInfo
  verb: string
  isResourceRequest: boolean
  /** Non-resource requests: the path. */
  path: string
  apiGroup: string
  apiVersion: string
  resource: string
  subresource: string
  namespace: string
  name: string
}

export type Decision = 'Allow' | 'Deny' | 'NoOpinion'
export interface Verdict { decision: Decision, reason?: string }

/** Decides one request; must not throw for ordinary denials (return Deny). */
export type Authorizer = (attrs: Attributes) => Promise<Verdict> | Verdict

/** A rule as access reviews report it (rbac PolicyRule shape). */
export interface ResourceRule { verbs: string[], apiGroups?: string[], resources?: string[], resourceNames?: string[] }
export interface NonResourceRule { verbs: string[], nonResourceURLs: string[] }

/** What a mode can tell about a user's rules in a namespace (SelfSubjectRulesReview). */
export interface RuleSet {
  resourceRules: ResourceRule[]
  nonResourceRules: NonResourceRule[]
  /** The mode could not list everything it would allow. */
  incomplete: boolean
  evaluationError?: string
}

/** Lists a user's rules in a namespace; modes that cannot list rules register none. */
export type RuleResolver = (user: UserInfo, namespace: string) => Promise<RuleSet> | RuleSet
