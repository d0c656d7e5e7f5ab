// ValidatingWebhookConfiguration (admissionregistration.svc.io/v1, cluster scope): webhooks the
// ValidatingAdmissionWebhook plugin calls in parallel; any of them may refuse a request.
import { defineResource } from './define.js'
import { webhookConfigurationKind } from './webhook-configuration.js'

export default defineResource(webhookConfigurationKind('ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false))
