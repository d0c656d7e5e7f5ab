// The start-up warning of the deprecated plugins (AlwaysAdmit, AlwaysDeny), in the reference
// server's words, logged only when the flags turned the plugin on.
import type { FastifyInstance } from 'fastify'

export function deprecationWarning (name: string): string {
  return `${name} admission controller is deprecated. Please remove this controller from your configuration files and scripts.`
}

export function warnDeprecatedWhenEnabled (fastify: FastifyInstance, name: string): void {
  if (fastify.admission.enabled().includes(name)) fastify.log.warn(deprecationWarning(name))
}
