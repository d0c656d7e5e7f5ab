// AlwaysDeny (deprecated, off by default): refuses every create, update, delete and connect, in
// both phases as the reference plugin does.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import type { AdmissionAttributes } from './chain.js'
import { warnDeprecatedWhenEnabled } from './deprecated-plugin.js'

const deny = (a: AdmissionAttributes): never => {
  throw forbidden({ group: a.resource.group, resource: a.resource.plural }, a.name, 'admission control is denying all modifications')
}

export default fp(async function alwaysDeny (fastify: FastifyInstance) {
  fastify.admission.add({ name: 'AlwaysDeny', handles: () => true, mutate: deny, validate: deny })
  warnDeprecatedWhenEnabled(fastify, 'AlwaysDeny')
}, { name: 'admission:always-deny', dependencies: ['admission'] })
