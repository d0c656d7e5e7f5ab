// Priority: a new pod's priority and preemption policy come from the PriorityClass it names,
// else from the global default class, else 0; a pod naming a missing class is refused, and so
// is one that sets a different value itself. Only one class may be the global default.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { forbidden } from '../resources/status.js'
import { GROUPS } from '../resources/naming.js'
import { PRIORITY_WITHOUT_DEFAULT_CLASS } from '../resources/priorityclasses.js'
import type { AnyObject } from '../resources/define.js'
import type { AdmissionAttributes } from '../resources/admission.js'

const PODS = { group: '', resource: 'pods' }
const isPods = (a: AdmissionAttributes): boolean => a.resource.group === '' && a.resource.plural === 'pods' && a.subresource === ''
const isClasses = (a: AdmissionAttributes): boolean => a.resource.group === GROUPS.scheduling && a.resource.plural === 'priorityclasses'

/** The global default class; should a race have made several, the lowest value wins. */
async function defaultClass (a: AdmissionAttributes): Promise<AnyObject | undefined> {
  let found: AnyObject | undefined
  for (const pc of await a.listConsistent({ group: GROUPS.scheduling, resource: 'priorityclasses' })) {
    if (pc.globalDefault === true && (found === undefined || found.value > pc.value)) found = pc
  }
  return found
}

async function admitNewPod (a: AdmissionAttributes, spec: AnyObject): Promise<void> {
  let priority: number
  let policy: string | undefined
  if (typeof spec.priorityClassName !== 'string' || spec.priorityClassName === '') {
    const pc = await defaultClass(a)
    if (pc !== undefined) spec.priorityClassName = pc.metadata.name
    else delete spec.priorityClassName
    priority = pc?.value ?? PRIORITY_WITHOUT_DEFAULT_CLASS
    policy = pc === undefined ? 'PreemptLowerPriority' : pc.preemptionPolicy
  } else {
    const pc = await a.lookup({ group: GROUPS.scheduling, resource: 'priorityclasses' }, '', spec.priorityClassName)
    if (pc === undefined) throw forbidden(PODS, a.name, `no PriorityClass with name ${String(spec.priorityClassName)} was found`)
    priority = pc.value
    policy = pc.preemptionPolicy
  }
  if (typeof spec.priority === 'number' && spec.priority !== priority) {
    throw forbidden(PODS, a.name, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`)
  }
  spec.priority = priority
  if (policy === undefined) return
  if (typeof spec.preemptionPolicy === 'string' && spec.preemptionPolicy !== policy) {
    throw forbidden(PODS, a.name, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`)
  }
  spec.preemptionPolicy = policy
}

export default fp(async function priority (fastify: FastifyInstance) {
  fastify.admission.add({
    name: 'Priority',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.object !== undefined && (isPods(a) || isClasses(a)),
    async mutate (a) {
      if (!isPods(a)) return
      const spec: AnyObject = a.object!.spec ??= {}
      if (a.operation === 'CREATE') return await admitNewPod(a, spec)
      // Set on create: an update that leaves them out keeps them (validation refuses changes).
      const old: AnyObject = a.oldObject?.spec ?? {}
      if (spec.priority === undefined && old.priority !== undefined) spec.priority = old.priority
      if (spec.preemptionPolicy === undefined && old.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy
    },
    async validate (a) {
      if (!isClasses(a) || a.object!.globalDefault !== true) return
      const current = await defaultClass(a)
      if (current === undefined) return
      if (a.operation === 'CREATE' || current.metadata.name !== a.object!.metadata?.name) {
        throw forbidden({ group: GROUPS.scheduling, resource: 'priorityclasses' }, a.name, `PriorityClass ${String(current.metadata.name)} is marked as default. Only one default can exist`)
      }
    }
  })
}, { name: 'admission:priority', dependencies: ['admission'] })
