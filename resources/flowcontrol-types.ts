// What FlowSchema and PriorityLevelConfiguration share: their status conditions, which the
// server's priority-and-fairness configuration controller writes.
import { Type } from '@sinclair/typebox'
import type { AnyObject, FieldError } from './define.js'
import { Timestamp } from './meta.js'
import { MapList } from './core-types.js'
import { message } from './protobuf.js'

const opt = Type.Optional

/** The conditions list of either kind; `messageName` is its condition's protobuf message. */
export const flowcontrolConditions = (messageName: string) => MapList(Type.Object({
  type: Type.String({ description: 'The condition\'s type (Dangling for a FlowSchema whose priority level is missing).' }),
  status: opt(Type.String({ description: 'True, False or Unknown.' })),
  lastTransitionTime: opt(Type.Union([Timestamp(), Type.Null()])),
  reason: opt(Type.String()),
  message: opt(Type.String())
}, { additionalProperties: false, ...message(messageName, { type: 1, status: 2, lastTransitionTime: 3, reason: 4, message: 5 }) }), ['type'], {
  description: 'The current state of the object.'
})

/** Each condition needs a type, and no type may appear twice. */
export function validateConditions (conditions: AnyObject[] | undefined): FieldError[] {
  const errors: FieldError[] = []
  const seen = new Set<string>()
  ;(conditions ?? []).forEach((c, i) => {
    const type: string = c?.type ?? ''
    if (seen.has(type)) errors.push({ type: 'Duplicate', field: `status.conditions[${i}].type`, value: type })
    seen.add(type)
    if (type === '') errors.push({ type: 'Required', field: `status.conditions[${i}].type`, detail: 'must not be empty' })
  })
  return errors
}
