// DefaultIngressClass: an Ingress created without a class (neither spec.ingressClassName nor the
// legacy class annotation) gets the default IngressClass; with several defaults the Ingress is
// refused, as the spec has it (the reference server since 1.25 picks the newest instead).
// Updates are left alone.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { ANNOTATIONS, GROUPS } from '../resources/naming.js'
import type { AnyObject } from '../resources/define.js'

const INGRESSES = { group: GROUPS.networking, resource: 'ingresses' }
const isDefault = (c: AnyObject): boolean => c.metadata?.annotations?.[ANNOTATIONS.defaultIngressClass] === 'true'

export default fp(async function defaultIngressClass (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'DefaultIngressClass',
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && a.resource.group === GROUPS.networking && a.resource.plural === 'ingresses',
    async mutate (a) {
      const ingress = a.object
      if (ingress === undefined || typeof ingress.spec?.ingressClassName === 'string') return
      if (ingress.metadata?.annotations?.[ANNOTATIONS.ingressClass] !== undefined) return
      // A class created just before the Ingress counts: read up to the newest revision.
      const defaults = (await a.listConsistent({ group: GROUPS.networking, resource: 'ingressclasses' })).filter(isDefault)
      if (defaults.length > 1) {
        throw forbidden(INGRESSES, a.name, `Internal error occurred: ${defaults.length} default IngressClasses were found, only 1 allowed`)
      }
      if (defaults.length === 0) return
      ingress.spec ??= {}
      ingress.spec.ingressClassName = defaults[0]!.metadata.name
    }
  })
}, { name: 'admission:default-ingress-class', dependencies: ['admission'] })
