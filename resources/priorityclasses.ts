// PriorityClass (scheduling.svc.io/v1, cluster scope): a name for a pod priority value, read by
// the Priority admission plugin. Two system classes exist in every cluster; other names with
// the `system-` prefix are reserved for them.
import { Type } from '@sinclair/typebox'
import { defineResource, type FieldError } from './define.js'
import { AGE_COLUMN, Int32, objectSchema } from './meta.js'
import { GROUPS } from './naming.js'
import { keepZero } from './protobuf.js'

/** The highest value a class that is not a system class may have. */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
/** A pod's priority when it names no class and no class is the global default. */
export const PRIORITY_WITHOUT_DEFAULT_CLASS = 0
export const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never']
const SYSTEM_PREFIX = 'system-'

/** The system classes, as the reference server creates them at start. */
export const SYSTEM_PRIORITY_CLASSES = [
  { name: 'system-node-critical', value: 2 * HIGHEST_USER_DEFINABLE_PRIORITY + 1000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2 * HIGHEST_USER_DEFINABLE_PRIORITY, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' }
] as const

const schema = objectSchema(`${GROUPS.scheduling}/v1`, 'PriorityClass', {
  value: Int32({ description: 'The priority pods of this class receive.' }),
  globalDefault: Type.Optional(Type.Boolean({ description: 'Whether pods without a class get this one; only one class may be the default.' })),
  description: Type.Optional(Type.String({ description: 'When this class should be used.' })),
  preemptionPolicy: Type.Optional(Type.String({ default: 'PreemptLowerPriority', description: 'PreemptLowerPriority or Never.' }))
}, 'PriorityClass defines mapping from a priority class name to the priority integer value.', { value: keepZero(2), globalDefault: 3, description: 4, preemptionPolicy: keepZero(5) })

type Class = Record<string, any>

function systemClassProblem (pc: Class): string | undefined {
  const known = SYSTEM_PRIORITY_CLASSES.find(c => c.name === pc.metadata?.name)
  if (known === undefined) return `name ${String(pc.metadata?.name)} is not a known system priority class`
  if (pc.value !== known.value) return `value of ${known.name} PriorityClass must be ${known.value}`
  if ((pc.globalDefault ?? false) !== false) return `globalDefault of ${known.name} PriorityClass must be false`
  return undefined
}

export default defineResource({
  group: GROUPS.scheduling,
  version: 'v1',
  kind: 'PriorityClass',
  plural: 'priorityclasses',
  singular: 'priorityclass',
  shortNames: ['pc'],
  scope: 'Cluster',
  schema,
  deleteReturns: 'Object',
  generation: false,
  strategy: {
    validate (pc) {
      const errors: FieldError[] = []
      const name: string = pc.metadata?.name ?? ''
      if (typeof pc.value !== 'number') errors.push({ type: 'Required', field: 'value' })
      if (name.startsWith(SYSTEM_PREFIX)) {
        const problem = systemClassProblem(pc)
        if (problem !== undefined) errors.push({ type: 'Forbidden', field: 'metadata.name', detail: `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${problem}` })
      } else if (pc.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
        errors.push({ type: 'Forbidden', field: 'value', detail: `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}` })
      }
      if (!PREEMPTION_POLICIES.includes(pc.preemptionPolicy ?? '')) errors.push({ type: 'NotSupported', field: 'preemptionPolicy', value: pc.preemptionPolicy, supported: PREEMPTION_POLICIES })
      return errors
    },
    validateUpdate (pc, old) {
      const errors: FieldError[] = []
      if (pc.value !== old.value) errors.push({ type: 'Forbidden', field: 'value', detail: 'may not be changed in an update.' })
      if (pc.preemptionPolicy !== old.preemptionPolicy) errors.push({ type: 'Invalid', field: 'preemptionPolicy', value: pc.preemptionPolicy, detail: 'field is immutable' })
      return errors
    }
  },
  columns: [
    { name: 'Value', type: 'integer', description: 'The priority of pods of this class', value: (c: Class) => c.value },
    { name: 'Global-Default', type: 'boolean', description: 'Whether pods without a class get this one', value: (c: Class) => c.globalDefault ?? false },
    AGE_COLUMN,
    { name: 'PreemptionPolicy', type: 'string', description: 'Whether pods of this class preempt lower ones', value: (c: Class) => c.preemptionPolicy ?? 'PreemptLowerPriority' }
  ],
  example: {
    metadata: { name: 'high-priority' },
    value: 1000000,
    description: 'For services that must not be preempted by batch work.'
  }
})
