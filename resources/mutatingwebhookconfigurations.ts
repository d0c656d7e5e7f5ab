// MutatingWebhookConfiguration (admissionregistration.svc.io/v1, cluster scope): webhooks the
// MutatingAdmissionWebhook plugin calls, in order, and whose JSON patches it applies.
import { defineResource } from './define.js'
import { webhookConfigurationKind } from './webhook-configuration.js'

export default defineResource({
  ...webhookConfigurationKind('MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', true),
  example: {
    metadata: { name: 'sidecar-injector' },
    webhooks: [{
      name: 'sidecar-injector.example.com',
      clientConfig: { url: 'https://webhook.example.com/mutate' },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }],
      objectSelector: { matchLabels: { 'example.com/sidecar-injector': 'enabled' } },
      failurePolicy: 'Ignore',
      sideEffects: 'None',
      admissionReviewVersions: ['v1']
    }]
  }
})
