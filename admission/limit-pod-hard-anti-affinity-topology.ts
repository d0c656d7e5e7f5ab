// LimitPodHardAntiAffinityTopology (off by default): required pod anti-affinity may only spread
// pods across hosts, so one pod cannot keep a whole zone or region to itself.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { HOSTNAME_LABEL } from '../resources/naming.js'
import type { AnyObject } from '../resources/define.js'

export default fp(async function limitPodHardAntiAffinityTopology (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'LimitPodHardAntiAffinityTopology',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'pods' && a.object !== undefined,
    validate (a) {
      const terms: AnyObject[] = a.object!.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []
      for (const term of terms) {
        if (term.topologyKey !== HOSTNAME_LABEL) {
          throw forbidden({ group: '', resource: 'pods' }, a.name, `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${String(term.topologyKey)} but only key ${HOSTNAME_LABEL} is allowed`)
        }
      }
    }
  })
}, { name: 'admission:limit-pod-hard-anti-affinity-topology', dependencies: ['admission'] })
