// AlwaysDeny (deprecated, off by default): refuses every create, update, delete and connect, in
// both phases as the reference plugin does. The server's own in-process writes (its start-up
// objects and controllers, upstream's loopback client and controller manager) pass: the
// reference server, refused those, exits when its bootstrap hooks time out, which would leave
// this plugin nothing to refuse.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { CONTROLLER_USER } from '../resources/naming.js'
import { APISERVER_USER } from '../resources/user-info.js'
import type { AdmissionAttributes } from '../resources/admission.js'

const SERVER_ITSELF = new Set([APISERVER_USER.username, CONTROLLER_USER.username])

const deny = (a: AdmissionAttributes): never => {
  throw forbidden({ group: a.resource.group, resource: a.resource.plural }, a.name, 'admission control is denying all modifications')
}

export default fp(async function alwaysDeny (fastify: FastifyInstance) {
  fastify.admission.add({ name: 'AlwaysDeny', handles: (a) => !SERVER_ITSELF.has(a.user.username), mutate: deny, validate: deny })
}, { name: 'admission:always-deny', dependencies: ['admission'] })
