// TaintNodesByCondition: a new node starts with the not-ready NoSchedule taint, so nothing is
// scheduled onto it before it reports ready (the node lifecycle controller lifts the taint).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { NODE_TAINTS } from '../resources/naming.js'
import type { AnyObject } from '../resources/define.js'

export default fp(async function taintNodesByCondition (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'TaintNodesByCondition',
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'nodes' && a.object !== undefined,
    mutate (a) {
      const spec: AnyObject = a.object!.spec ??= {}
      const taints: AnyObject[] = spec.taints ?? []
      if (taints.some(t => t.key === NODE_TAINTS.notReady && t.effect === 'NoSchedule')) return
      spec.taints = [...taints, { key: NODE_TAINTS.notReady, effect: 'NoSchedule' }]
    }
  })
}, { name: 'admission:taint-nodes-by-condition', dependencies: ['admission'] })
