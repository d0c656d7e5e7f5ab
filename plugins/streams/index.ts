// The streams plugin: the --kubelet-* settings every stream subresource dials with, and upgrade
// requests routed through the pipeline like any other (rest/connect.ts carries them).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { acceptUpgrades } from './upgrade.js'
import type { NodeAgentOptions } from './backend.js'

export type { NodeAgentOptions } from './backend.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** --kubelet-client-certificate, --kubelet-client-key, --kubelet-certificate-authority, --kubelet-preferred-address-types, --kubelet-timeout. */
    nodeAgent: NodeAgentOptions
  }
}

export default fp(async function streams (fastify: FastifyInstance, opts: NodeAgentOptions) {
  fastify.decorate('nodeAgent', { ...opts })
  acceptUpgrades(fastify)
}, { name: 'streams' })
