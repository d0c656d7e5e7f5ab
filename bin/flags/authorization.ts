// Authorization flags: the modes in order, and the ABAC and Webhook modes' settings.
import { WEBHOOK_VERSIONS } from './authentication.js'
import { duration, maybe, oneOf, strings, text } from './kinds.js'
import { flag } from './spec.js'
import { DEFAULT_AUTHORIZATION_MODES } from '../../auth/authorizers/index.js'

export const AUTHORIZATION_FLAGS = [
  flag({
    name: 'authorization-mode', key: 'authorizationModes', kind: strings, default: DEFAULT_AUTHORIZATION_MODES, section: 'Authorization', target: 'authorizationModes',
    help: 'Ordered list of plug-ins to do authorization on secure port. Comma-delimited list of: AlwaysAllow,AlwaysDeny,ABAC,Webhook,RBAC,Node.'
  }),
  flag({
    name: 'authorization-policy-file', key: 'authorizationPolicyFile', kind: maybe(text), default: undefined, section: 'Authorization', target: 'authorizationPolicyFile',
    help: 'File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.'
  }),
  flag({
    name: 'authorization-webhook-config-file', key: 'authorizationWebhookConfigFile', kind: maybe(text), default: undefined, section: 'Authorization', target: 'authorizationWebhook.configFile',
    help: 'File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook. The API server will query the remote service to determine access on the API server\'s secure port.'
  }),
  flag({
    name: 'authorization-webhook-version', key: 'authorizationWebhookVersion', kind: oneOf(WEBHOOK_VERSIONS, 'must be v1 or v1beta1'), default: 'v1beta1', section: 'Authorization', target: 'authorizationWebhook.version',
    help: 'The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook.'
  }),
  flag({
    name: 'authorization-webhook-cache-authorized-ttl', key: 'authorizationWebhookCacheAuthorizedTtlMs', kind: duration, default: 5 * 60_000, section: 'Authorization', target: 'authorizationWebhook.authorizedTtlMs',
    help: 'The duration to cache \'authorized\' responses from the webhook authorizer.'
  }),
  flag({
    name: 'authorization-webhook-cache-unauthorized-ttl', key: 'authorizationWebhookCacheUnauthorizedTtlMs', kind: duration, default: 30_000, section: 'Authorization', target: 'authorizationWebhook.unauthorizedTtlMs',
    help: 'The duration to cache \'unauthorized\' responses from the webhook authorizer.'
  })
] as const
