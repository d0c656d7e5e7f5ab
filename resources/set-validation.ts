// Rules StatefulSet and DaemonSet share with the reference's apps validation: int-or-percent
// fields of rolling updates, the pod template a set's pods come from, the non-negative counts of
// its status, and the table cells of its template's containers.
import { isDeepStrictEqual } from 'node:util'
import type { AnyObject, FieldError } from './define.js'
import { validateLabelSelector } from './core-types.js'
import { labelSelectorMatches } from './label-selector.js'

const PERCENT = /^[0-9]+%$/
const PERCENT_MESSAGE = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
export const NEGATIVE_MESSAGE = 'must be greater than or equal to 0'

/** ValidateNonnegativeField: nothing for an absent value (Go's zero). */
export const nonNegative = (value: unknown, field: string): FieldError[] =>
  typeof value === 'number' && value < 0 ? [{ type: 'Invalid', field, value, detail: NEGATIVE_MESSAGE }] : []

/** Every count of `status` at `fields` zero or more. */
export const nonNegativeCounts = (status: AnyObject | undefined, fields: readonly string[]): FieldError[] =>
  fields.flatMap(f => nonNegative(status?.[f], `status.${f}`))

/** ValidatePositiveIntOrPercent: a count of zero or more, or a percent string. */
export function validateIntOrPercent (value: unknown, field: string): FieldError[] {
  if (typeof value === 'string') return PERCENT.test(value) ? [] : [{ type: 'Invalid', field, value, detail: PERCENT_MESSAGE }]
  if (typeof value === 'number') return nonNegative(value, field)
  return value == null ? [] : [{ type: 'Invalid', field, value, detail: "must be an integer or percentage (e.g '5%')" }]
}

/** The percent of a valid percent string, undefined for anything else. */
const percentOf = (value: unknown): number | undefined =>
  typeof value === 'string' && PERCENT.test(value) ? Number(value.slice(0, -1)) : undefined

/** getIntOrPercentValue: the percent, the integer, or a string's integer value (0 when it has none, as Go's Atoi). */
export function intOrPercentValue (value: unknown): number {
  const percent = percentOf(value)
  if (percent !== undefined) return percent
  if (typeof value === 'number') return value
  return typeof value === 'string' && /^[+-]?\d+$/.test(value) ? Number(value) : 0
}

/** IsNotMoreThan100Percent. */
export const notOver100Percent = (value: unknown, field: string): FieldError[] =>
  (percentOf(value) ?? 0) > 100 ? [{ type: 'Invalid', field, value, detail: 'must not be greater than 100%' }] : []

/** Whether LabelSelectorAsSelector would turn the selector into a selector (an invalid one it refuses). */
export const selectorConvertible = (selector: AnyObject | undefined | null, at: string): boolean =>
  validateLabelSelector(selector ?? undefined, at).length === 0

/**
 * Whether a selector as LabelSelectorAsSelector makes it selects `labels`: none selects nothing,
 * one without requirements everything.
 */
export function selectorSelects (selector: AnyObject | undefined | null, labels: Record<string, string> | undefined): boolean {
  if (selector == null) return false
  return labelSelectorMatches(selector, labels ?? {})
}

/** The rules every set's template has beside its own: pods that always restart and run without deadline. */
export function validateTemplateRestarts (template: AnyObject | undefined, kind: string): FieldError[] {
  const errors: FieldError[] = []
  const restartPolicy = template?.spec?.restartPolicy ?? ''
  if (restartPolicy !== 'Always') errors.push({ type: 'NotSupported', field: 'spec.template.spec.restartPolicy', value: restartPolicy, supported: ['Always'] })
  if (template?.spec?.activeDeadlineSeconds != null) {
    errors.push({ type: 'Forbidden', field: 'spec.template.spec.activeDeadlineSeconds', detail: `activeDeadlineSeconds in ${kind} is not Supported` })
  }
  return errors
}

/** IsDecremented on status.collisionCount: a count once raised stays. */
export function collisionCountKept (status: AnyObject | undefined, old: AnyObject | undefined): FieldError[] {
  const now = status?.collisionCount
  const was = old?.collisionCount
  if (typeof was !== 'number') return []
  if (typeof now === 'number' && now >= was) return []
  return [{ type: 'Invalid', field: 'status.collisionCount', value: typeof now === 'number' ? now : 0, detail: 'cannot be decremented' }]
}

/** Equal as stored JSON: an absent field and one set to undefined are the same. */
export const sameJson = (a: unknown, b: unknown): boolean =>
  isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)))

/** The wide columns a set shows of its template's containers, as the reference's layoutContainerCells. */
export function containerColumns<T extends AnyObject> (template: (obj: T) => AnyObject | undefined) {
  const containers = (obj: T): AnyObject[] => template(obj)?.spec?.containers ?? []
  return [
    { name: 'Containers', type: 'string' as const, priority: 1 as const, description: 'Names of each container in the template.', value: (obj: T) => containers(obj).map(c => c.name ?? '').join(',') },
    { name: 'Images', type: 'string' as const, priority: 1 as const, description: 'Images referenced by each container in the template.', value: (obj: T) => containers(obj).map(c => c.image ?? '').join(',') }
  ]
}
