// SecurityContextDeny (deprecated, off by default): refuses pods that set the security context
// fields it guards (supplemental groups, SELinux options, the user to run as, the fs group),
// checked in the reference server's order, the first one found named.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'

const PODS = { group: '', resource: 'pods' }

/** The pod-level fields, with the names the reference server's messages give them. */
const POD_FIELDS = [['supplementalGroups', 'SupplementalGroups'], ['seLinuxOptions', 'SELinuxOptions'], ['runAsUser', 'RunAsUser'], ['fsGroup', 'FSGroup']] as const

/** The first guarded field the pod sets, in the reference server's words. */
function forbiddenField (spec: Readonly<AnyObject>): string | undefined {
  const pod: AnyObject | undefined = spec.securityContext
  if (pod !== undefined && pod !== null) {
    for (const [field, goName] of POD_FIELDS) {
      if (pod[field] !== undefined && pod[field] !== null) return `pod.Spec.SecurityContext.${goName} is forbidden`
    }
  }
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])] as AnyObject[]) {
    const sc: AnyObject | undefined = c.securityContext
    if (sc === undefined || sc === null) continue
    if (sc.seLinuxOptions !== undefined && sc.seLinuxOptions !== null) return 'SecurityContext.SELinuxOptions is forbidden'
    if (sc.runAsUser !== undefined && sc.runAsUser !== null) return 'SecurityContext.RunAsUser is forbidden'
  }
  return undefined
}

export default fp(async function securityContextDeny (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'SecurityContextDeny',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'pods' && a.object !== undefined,
    validate (a) {
      const why = forbiddenField(a.object!.spec ?? {})
      if (why !== undefined) throw forbidden(PODS, a.object!.metadata?.name ?? a.name, why)
    }
  })
}, { name: 'admission:security-context-deny', dependencies: ['admission'] })
