// ValidatingAdmissionWebhook: every matching validating webhook called at once; the first
// rejection (in configuration order) fails the request.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { AdmissionOptions } from '../../resources/admission.js'
import { createDispatcher } from './dispatcher.js'
import { addWarnings } from './warnings.js'

const PLUGIN = 'ValidatingAdmissionWebhook'

export default fp(async function validatingAdmissionWebhook (fastify: FastifyInstance, opts: AdmissionOptions) {
  const d = createDispatcher(fastify, { plugin: PLUGIN, type: 'validating', plural: 'validatingwebhookconfigurations', webhookServiceAddresses: opts.webhookServiceAddresses })
  fastify.admission.add({
    name: PLUGIN,
    // Every write asks each plugin: with no configuration stored, not even a look-up is made.
    handles: () => d.anyConfigured(),
    async validate (a) {
      const matches = await d.matching(a)
      if (matches.length === 0) return
      // Each call gets its own warnings list so that the headers keep configuration order.
      const warnings = matches.map(() => [] as string[])
      const results = await Promise.allSettled(matches.map((m, i) => d.call(m, a, 0, i, warnings[i])))
      for (const w of warnings) addWarnings(a.warnings, w)
      const failed = results.find(r => r.status === 'rejected')
      if (failed !== undefined) throw (failed as PromiseRejectedResult).reason
    }
  })
}, { name: 'admission:validating-webhook', dependencies: ['admission'] })
