// ExtendedResourceToleration (off by default): a pod that requests an extended resource (a
// device such as `example.com/gpu`) tolerates the NoSchedule taint of that name, so nodes that
// have the device can be tainted to keep other pods off.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { GROUP_SUFFIX } from '../resources/naming.js'
import { qualifiedNameProblems } from '../resources/validation.js'
import type { AnyObject } from '../resources/define.js'

/** Not a native resource (those have no prefix or the vendor's), not a quota name, and a valid name. */
export const isExtendedResourceName = (name: string): boolean =>
  name.includes('/') && !name.includes(`${GROUP_SUFFIX}/`) && !name.startsWith('requests.') && qualifiedNameProblems(`requests.${name}`).length === 0

const same = (a: AnyObject, b: AnyObject): boolean =>
  a.key === b.key && a.operator === b.operator && (a.value ?? '') === (b.value ?? '') && (a.effect ?? '') === (b.effect ?? '')

export default fp(async function extendedResourceToleration (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'ExtendedResourceToleration',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'pods' && a.object !== undefined,
    mutate (a) {
      const spec: AnyObject = a.object!.spec ?? {}
      const names = new Set<string>()
      for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])] as AnyObject[]) {
        for (const name of Object.keys(c.resources?.requests ?? {})) if (isExtendedResourceName(name)) names.add(name)
      }
      for (const key of [...names].sort()) {
        const wanted = { key, operator: 'Exists', effect: 'NoSchedule' }
        const tolerations: AnyObject[] = spec.tolerations ?? []
        // One of the same key, operator, value and effect is replaced by the plain one.
        const at = tolerations.findIndex(t => same(t, wanted))
        if (at < 0) spec.tolerations = [...tolerations, wanted]
        else tolerations[at] = wanted
      }
    }
  })
}, { name: 'admission:extended-resource-toleration', dependencies: ['admission'] })
