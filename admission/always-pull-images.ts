// AlwaysPullImages (off by default): every container of a new or updated pod pulls its image,
// so a pod cannot use an image another pod's credentials brought onto the node.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import type { AnyObject } from '../resources/define.js'

const containerLists = [['initContainers', 'initContainers'], ['containers', 'containers'], ['ephemeralContainers', 'ephemeralContainers']] as const
const images = (pod: AnyObject | undefined): string[] => containerLists.flatMap(([list]) => ((pod?.spec?.[list] ?? []) as AnyObject[]).map(c => c.image as string))

/** An update that brings no image the pod did not have already is left alone (status, labels). */
const bringsNoNewImage = (obj: AnyObject, old: AnyObject | undefined): boolean => {
  const before = new Set(images(old))
  return images(obj).every(i => before.has(i))
}

export default fp(async function alwaysPullImages (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'AlwaysPullImages',
    // The ephemeralcontainers subresource adds containers too.
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && (a.subresource === '' || a.subresource === 'ephemeralcontainers') &&
      a.resource.group === '' && a.resource.plural === 'pods' && a.object !== undefined &&
      !(a.operation === 'UPDATE' && bringsNoNewImage(a.object, a.oldObject)),
    mutate (a) {
      const spec: AnyObject = a.object!.spec ?? {}
      for (const [list] of containerLists) for (const c of spec[list] ?? []) c.imagePullPolicy = 'Always'
    },
    validate (a) {
      const spec: AnyObject = a.object!.spec ?? {}
      for (const [list, field] of containerLists) {
        for (const [i, c] of ((spec[list] ?? []) as AnyObject[]).entries()) {
          if (c.imagePullPolicy !== 'Always') {
            throw forbidden({ group: '', resource: 'pods' }, a.name, `spec.${field}[${i}].imagePullPolicy: Unsupported value: "${String(c.imagePullPolicy)}": supported values: "Always"`)
          }
        }
      }
    }
  })
}, { name: 'admission:always-pull-images', dependencies: ['admission'] })
