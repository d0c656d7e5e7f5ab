// DefaultTolerationSeconds: a pod that does not tolerate the not-ready and unreachable NoExecute
// taints gets tolerations for them that last 300 s (or what the flags say), so its node's
// outage evicts it only after that long.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { NODE_TAINTS } from '../resources/naming.js'
import type { AnyObject } from '../resources/define.js'

const DEFAULT_SECONDS = 300

/** Whether a toleration covers a NoExecute taint with this key (an empty key or effect covers all). */
const covers = (t: AnyObject, key: string): boolean =>
  (t.key === key || t.key === undefined || t.key === '') && (t.effect === 'NoExecute' || t.effect === undefined || t.effect === '')

export default fp(async function defaultTolerationSeconds (fastify: FastifyInstance) {
  const opts = fastify.admission.options
  const defaults = [
    { key: NODE_TAINTS.notReady, seconds: opts.defaultNotReadyTolerationSeconds ?? DEFAULT_SECONDS },
    { key: NODE_TAINTS.unreachable, seconds: opts.defaultUnreachableTolerationSeconds ?? DEFAULT_SECONDS }
  ]
  fastify.admission.add({
    name: 'DefaultTolerationSeconds',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'pods' && a.object !== undefined,
    mutate (a) {
      const spec: AnyObject = a.object!.spec ??= {}
      const tolerations: AnyObject[] = spec.tolerations ?? []
      const missing = defaults.filter(d => !tolerations.some(t => covers(t, d.key)))
      if (missing.length === 0) return
      spec.tolerations = [...tolerations, ...missing.map(d => ({ key: d.key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: d.seconds }))]
    }
  })
}, { name: 'admission:default-toleration-seconds', dependencies: ['admission'] })
