// ValidatingWebhookConfiguration (admissionregistration.svc.io/v1, cluster scope): webhooks the
// ValidatingAdmissionWebhook plugin calls in parallel; any of them may refuse a request.
import { defineResource } from './define.js'
import { webhookConfigurationKind } from './webhook-configuration.js'

export default defineResource({
  ...webhookConfigurationKind('ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false),
  example: {
    metadata: { name: 'policy-checker' },
    webhooks: [{
      name: 'policy-checker.example.com',
      clientConfig: { url: 'https://webhook.example.com/validate' },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }],
      objectSelector: { matchLabels: { 'example.com/policy-checker': 'enabled' } },
      failurePolicy: 'Ignore',
      sideEffects: 'None',
      admissionReviewVersions: ['v1']
    }]
  }
})
