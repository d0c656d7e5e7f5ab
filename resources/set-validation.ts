// What StatefulSet and DaemonSet check beyond the rules every replica-keeping workload shares
// (workload-validation.ts): the non-negative counts of a set's status, and its selector as
// LabelSelectorAsSelector reads it.
import { isDeepStrictEqual } from 'node:util'
import type { AnyObject, FieldError } from './define.js'
import { validateLabelSelector } from './core-types.js'
import { labelSelectorMatches } from './label-selector.js'
import { nonNegative } from './workload-validation.js'

/** Every count of `status` at `fields` zero or more. */
export const nonNegativeCounts = (status: AnyObject | undefined, fields: readonly string[]): FieldError[] =>
  fields.flatMap(f => nonNegative(status?.[f], `status.${f}`))

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

/** Equal as stored JSON: an absent field and one set to undefined are the same. */
export const sameJson = (a: unknown, b: unknown): boolean =>
  isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)))
