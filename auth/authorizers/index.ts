// The authorizer modes --authorization-mode names; the chain asks them in the flag's order.
import type { FamilyEntry } from '../../resources/plugin-family.js'
import alwaysAllow from './always-allow.js'
import alwaysDeny from './always-deny.js'
import rbac from './rbac.js'
import node from './node.js'
import abac from './abac.js'
import webhook, { type WebhookAuthorizerOptions } from './webhook.js'

/** What the authorizers read of the server's settings (the --authorization flags). */
export interface AuthorizationSettings {
  /** --authorization-mode, in order; default DEFAULT_AUTHORIZATION_MODES. */
  authorizationModes?: string[]
  /** --authorization-policy-file (ABAC mode). */
  authorizationPolicyFile?: string
  /** --authorization-webhook-* (Webhook mode). */
  authorizationWebhook?: WebhookAuthorizerOptions
}

const AUTHORIZERS: ReadonlyArray<FamilyEntry<AuthorizationSettings>> = [
  { name: 'AlwaysAllow', plugin: alwaysAllow },
  { name: 'AlwaysDeny', plugin: alwaysDeny },
  { name: 'RBAC', plugin: rbac },
  { name: 'Node', plugin: node },
  { name: 'ABAC', plugin: abac, options: s => ({ policyFile: s.authorizationPolicyFile }) },
  { name: 'Webhook', plugin: webhook, options: s => s.authorizationWebhook ?? {} }
]

export const AUTHORIZATION_MODES = AUTHORIZERS.map(a => a.name)
export const DEFAULT_AUTHORIZATION_MODES = ['Node', 'RBAC']

/** The modes the settings name, in their order; an unknown name stops start-up. */
export function authorizers (settings: AuthorizationSettings): Array<FamilyEntry<AuthorizationSettings>> {
  return (settings.authorizationModes ?? DEFAULT_AUTHORIZATION_MODES).map(mode => {
    const entry = AUTHORIZERS.find(a => a.name === mode)
    if (entry === undefined) throw new Error(`unknown authorization mode "${mode}"; known modes: ${AUTHORIZATION_MODES.join(', ')}`)
    return entry
  })
}
