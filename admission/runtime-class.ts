// RuntimeClass (on by default): a new pod naming a RuntimeClass gets the class's pod overhead and
// its scheduling constraints (nodeSelector merged, a conflicting value refused; tolerations
// merged). A pod naming a missing class is refused, and so is one whose overhead is not the
// class's, checked again after every mutating plugin has run.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { GROUPS } from '../resources/naming.js'
import { compareQuantities } from '../resources/quantity.js'
import type { AnyObject } from '../resources/define.js'
import type { AdmissionAttributes } from '../resources/admission.js'
import { mergeTolerations } from './tolerations.js'

const PODS = { group: '', resource: 'pods' }

const refuse = (a: AdmissionAttributes, why: string): Error => forbidden(PODS, a.name, why)

async function classOf (a: AdmissionAttributes, spec: AnyObject): Promise<Readonly<AnyObject> | undefined> {
  const name: unknown = spec.runtimeClassName
  if (typeof name !== 'string') return undefined
  const rc = await a.lookup({ group: GROUPS.node, resource: 'runtimeclasses' }, '', name)
  if (rc === undefined) throw refuse(a, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`)
  return rc
}

/** Both absent, or the same names with equal quantities (`1` equals `1000m`). */
function sameOverhead (a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  const names = Object.keys(a)
  return names.length === Object.keys(b).length && names.every(n => b[n] !== undefined && compareQuantities(a[n], b[n]) === 0)
}

const OVERHEAD_MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"

function setOverhead (a: AdmissionAttributes, spec: AnyObject, rc: Readonly<AnyObject>): void {
  const fixed: Record<string, string> | undefined = rc.overhead?.podFixed
  if (rc.overhead === undefined) return
  if (spec.overhead !== undefined && !sameOverhead(fixed, spec.overhead)) throw refuse(a, OVERHEAD_MISMATCH)
  if (fixed === undefined) delete spec.overhead
  else spec.overhead = { ...fixed }
}

function setScheduling (a: AdmissionAttributes, spec: AnyObject, rc: Readonly<AnyObject>): void {
  const scheduling: Readonly<AnyObject> | undefined = rc.scheduling
  if (scheduling === undefined) return
  const classSelector: Record<string, string> = scheduling.nodeSelector ?? {}
  if (spec.nodeSelector === undefined) {
    if (scheduling.nodeSelector !== undefined) spec.nodeSelector = { ...classSelector }
  } else {
    for (const [key, value] of Object.entries(classSelector)) {
      const own: unknown = spec.nodeSelector[key]
      if (own !== undefined && own !== value) {
        throw refuse(a, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${value}; pod.spec.nodeSelector[${key}] = ${String(own)}`)
      }
      spec.nodeSelector[key] = value
    }
  }
  const tolerations = mergeTolerations(spec.tolerations ?? [], structuredClone(scheduling.tolerations ?? []))
  if (tolerations.length > 0 || spec.tolerations !== undefined) spec.tolerations = tolerations
}

export default fp(async function runtimeClass (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'RuntimeClass',
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && a.resource.group === '' && a.resource.plural === 'pods' && a.object !== undefined,
    async mutate (a) {
      const spec: AnyObject = a.object!.spec ??= {}
      const rc = await classOf(a, spec)
      if (rc === undefined) return
      setOverhead(a, spec, rc)
      setScheduling(a, spec, rc)
    },
    async validate (a) {
      const spec: AnyObject = a.object!.spec ?? {}
      const rc = await classOf(a, spec)
      if (rc?.overhead !== undefined) {
        if (!sameOverhead(rc.overhead.podFixed, spec.overhead)) throw refuse(a, OVERHEAD_MISMATCH)
      } else if (spec.overhead !== undefined) {
        throw refuse(a, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead')
      }
    }
  })
}, { name: 'admission:runtime-class', dependencies: ['admission'] })
