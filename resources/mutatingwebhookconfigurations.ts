// MutatingWebhookConfiguration (admissionregistration.svc.io/v1, cluster scope): webhooks the
// MutatingAdmissionWebhook plugin calls, in order, and whose JSON patches it applies.
import { defineResource } from './define.js'
import { webhookConfigurationKind } from './webhook-configuration.js'

export default defineResource(webhookConfigurationKind('MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', true))
