// A Job's spec as batch/v1 has it (a Job's own, and the one a CronJob's job template holds),
// with the reference's validation of it (pkg/apis/batch/validation: validateJobSpec and the
// pod failure and success policies) and of the completed and failed index lists in a status.
import { Type } from '@sinclair/typebox'
import type { AnyObject, FieldError } from './define.js'
import { AtomicList, LabelSelector } from './core-types.js'
import { Int32, Int64, ObjectMeta } from './meta.js'
import { PodTemplateSpec, validatePodTemplate } from './pod-template.js'
import { keepZero, message } from './protobuf.js'
import { invalidEach, qualifiedNameProblems } from './validation.js'
import { validateDomainPrefixedPath } from './ingress-rules.js'
import { OMITTED_VALUE } from './status.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

const PodFailurePolicyRule = Type.Object({
  action: opt(Type.String({ description: 'What to do when the rule matches: FailJob, FailIndex, Ignore or Count.' })),
  onExitCodes: opt(Type.Object({
    containerName: opt(Type.String()),
    operator: opt(Type.String({ description: 'In or NotIn.' })),
    values: opt(Type.Array(Int32(), { 'x-kubernetes-list-type': 'set' }))
  }, { ...struct, ...message('PodFailurePolicyOnExitCodesRequirement', { containerName: keepZero(1), operator: keepZero(2), values: 3 }) })),
  onPodConditions: opt(AtomicList(Type.Object({
    type: opt(Type.String()),
    status: opt(Type.String())
  }, { ...struct, ...message('PodFailurePolicyOnPodConditionsPattern', { type: keepZero(1), status: keepZero(2) }) })))
}, { ...struct, ...message('PodFailurePolicyRule', { action: keepZero(1), onExitCodes: 2, onPodConditions: 3 }) })

const SuccessPolicyRule = Type.Object({
  succeededIndexes: opt(Type.String({ description: 'Indexes that must succeed, as intervals: "1,3-5,7".' })),
  succeededCount: opt(Int32())
}, { ...struct, ...message('SuccessPolicyRule', { succeededIndexes: keepZero(1), succeededCount: keepZero(2) }) })

export const JobSpec = Type.Object({
  parallelism: opt(Int32({ description: 'The most pods that run at once.' })),
  completions: opt(Int32({ description: 'How many pods must succeed.' })),
  activeDeadlineSeconds: opt(Int64()),
  podFailurePolicy: opt(Type.Object({ rules: opt(AtomicList(PodFailurePolicyRule)) }, { ...struct, ...message('PodFailurePolicy', { rules: 1 }) })),
  successPolicy: opt(Type.Object({ rules: opt(AtomicList(SuccessPolicyRule)) }, { ...struct, ...message('SuccessPolicy', { rules: 1 }) })),
  backoffLimit: opt(Int32()),
  backoffLimitPerIndex: opt(Int32()),
  maxFailedIndexes: opt(Int32()),
  selector: opt(LabelSelector),
  manualSelector: opt(Type.Boolean()),
  template: opt(PodTemplateSpec),
  ttlSecondsAfterFinished: opt(Int32()),
  completionMode: opt(Type.String({ description: 'NonIndexed or Indexed.' })),
  suspend: opt(Type.Boolean()),
  podReplacementPolicy: opt(Type.String({ description: 'TerminatingOrFailed or Failed.' })),
  managedBy: opt(Type.String())
}, {
  ...struct,
  description: 'JobSpec describes how the job execution will look like.',
  ...message('JobSpec', {
    parallelism: keepZero(1),
    completions: keepZero(2),
    activeDeadlineSeconds: keepZero(3),
    selector: 4,
    manualSelector: keepZero(5),
    template: 6,
    backoffLimit: keepZero(7),
    ttlSecondsAfterFinished: keepZero(8),
    completionMode: keepZero(9),
    suspend: keepZero(10),
    podFailurePolicy: 11,
    backoffLimitPerIndex: keepZero(12),
    maxFailedIndexes: keepZero(13),
    podReplacementPolicy: keepZero(14),
    managedBy: keepZero(15),
    successPolicy: 16
  })
})

export const JobTemplateSpec = Type.Object({
  metadata: opt(ObjectMeta),
  spec: opt(JobSpec)
}, { ...struct, description: 'JobTemplateSpec describes the data a Job should have when created from a template', ...message('JobTemplateSpec', { metadata: 1, spec: 2 }) })

type Obj = AnyObject

// ---- limits and values (pkg/apis/batch/validation) ---------------------------------------------

const MAX_PARALLELISM_FOR_INDEXED_JOB = 100_000
const MAX_FAILED_INDEXES_FOR_INDEXED_JOB = 100_000
const COMPLETIONS_SOFT_LIMIT = 100_000
const PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
const MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS = 10_000
const MAX_POD_FAILURE_POLICY_RULES = 20
const MAX_ON_EXIT_CODES_VALUES = 255
const MAX_ON_POD_CONDITIONS_PATTERNS = 20
const MAX_MANAGED_BY_LENGTH = 63
const MAX_SUCCEEDED_INDEXES_LENGTH = 64 * 1024
const MAX_SUCCESS_POLICY_RULES = 20

export const COMPLETION_MODES = ['NonIndexed', 'Indexed']
const POD_FAILURE_ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore']
const ON_EXIT_CODES_OPERATORS = ['In', 'NotIn']
const CONDITION_STATUSES = ['False', 'True', 'Unknown']
const POD_REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed']

/** Go's %q of a []string: `["a" "b"]`. */
const quotedList = (values: string[]): string => `[${values.map(v => JSON.stringify(v)).join(' ')}]`

const nonNegative = (value: unknown, field: string): FieldError[] =>
  typeof value === 'number' && value < 0 ? [{ type: 'Invalid', field, value, detail: 'must be greater than or equal to 0' }] : []

export const isIndexed = (spec: Obj | undefined): boolean => spec?.completionMode === 'Indexed'

/** validateJobSpec: what a Job's spec and a job template's spec share (no selector rules). */
export function validateJobSpecFields (spec: Obj, at: string): FieldError[] {
  const errors: FieldError[] = []
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    errors.push(...nonNegative(spec[f], `${at}.${f}`))
    if (f === 'maxFailedIndexes' && spec.maxFailedIndexes != null && spec.backoffLimitPerIndex == null) {
      errors.push({ type: 'Required', field: `${at}.backoffLimitPerIndex`, detail: 'when maxFailedIndexes is specified' })
    }
  }
  if (typeof spec.managedBy === 'string') {
    errors.push(...validateDomainPrefixedPath(spec.managedBy, `${at}.managedBy`))
    if (spec.managedBy.length > MAX_MANAGED_BY_LENGTH) errors.push({ type: 'TooLong', field: `${at}.managedBy`, value: spec.managedBy, detail: `may not be more than ${MAX_MANAGED_BY_LENGTH} bytes` })
  }
  errors.push(...validateCompletionMode(spec, at))
  if (spec.podFailurePolicy != null) errors.push(...validatePodFailurePolicy(spec, `${at}.podFailurePolicy`))
  if (spec.successPolicy != null) {
    if (!isIndexed(spec)) errors.push({ type: 'Invalid', field: `${at}.successPolicy`, value: spec.successPolicy, detail: 'requires indexed completion mode' })
    else errors.push(...validateSuccessPolicy(spec, `${at}.successPolicy`))
  }
  if (typeof spec.podReplacementPolicy === 'string') {
    const allowed = spec.podFailurePolicy != null ? ['Failed'] : POD_REPLACEMENT_POLICIES
    if (!allowed.includes(spec.podReplacementPolicy)) errors.push({ type: 'NotSupported', field: `${at}.podReplacementPolicy`, value: spec.podReplacementPolicy, supported: allowed })
  }
  errors.push(...validatePodTemplate(spec.template ?? {}, `${at}.template`))
  // A template without a restart policy is defaulted to Always, which a Job cannot use.
  const restart = spec.template?.spec?.restartPolicy ?? ''
  const restartField = `${at}.template.spec.restartPolicy`
  if (restart === 'Always' || restart === '') {
    errors.push({ type: 'Required', field: restartField, detail: 'valid values: "OnFailure", "Never"' })
  } else if (restart !== 'OnFailure' && restart !== 'Never') {
    errors.push({ type: 'NotSupported', field: restartField, value: restart, supported: ['OnFailure', 'Never'] })
  } else if (spec.podFailurePolicy != null && restart !== 'Never') {
    errors.push({ type: 'Invalid', field: restartField, value: restart, detail: 'only "Never" is supported when podFailurePolicy is specified' })
  }
  return errors
}

function validateCompletionMode (spec: Obj, at: string): FieldError[] {
  const errors: FieldError[] = []
  const mode = spec.completionMode
  if (typeof mode === 'string') {
    if (!COMPLETION_MODES.includes(mode)) errors.push({ type: 'NotSupported', field: `${at}.completionMode`, value: mode, supported: COMPLETION_MODES })
    if (mode === 'Indexed') {
      const { completions, parallelism, maxFailedIndexes, backoffLimitPerIndex } = spec
      if (completions == null) errors.push({ type: 'Required', field: `${at}.completions`, detail: 'when completion mode is Indexed' })
      if (parallelism != null && parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB) {
        errors.push({ type: 'Invalid', field: `${at}.parallelism`, value: parallelism, detail: `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed` })
      }
      if (completions != null && maxFailedIndexes != null && maxFailedIndexes > completions) {
        errors.push({ type: 'Invalid', field: `${at}.maxFailedIndexes`, value: maxFailedIndexes, detail: 'must be less than or equal to completions' })
      }
      if (maxFailedIndexes != null && maxFailedIndexes > MAX_FAILED_INDEXES_FOR_INDEXED_JOB) {
        errors.push({ type: 'Invalid', field: `${at}.maxFailedIndexes`, value: maxFailedIndexes, detail: `must be less than or equal to ${MAX_FAILED_INDEXES_FOR_INDEXED_JOB}` })
      }
      if (completions != null && completions > COMPLETIONS_SOFT_LIMIT && backoffLimitPerIndex != null) {
        const high = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`
        if (maxFailedIndexes == null) errors.push({ type: 'Required', field: `${at}.maxFailedIndexes`, detail: `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}` })
        if (parallelism != null && parallelism > PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS) {
          errors.push({ type: 'Invalid', field: `${at}.parallelism`, value: parallelism, detail: `must be less than or equal to ${PARALLELISM_LIMIT_FOR_HIGH_COMPLETIONS} ${high}` })
        }
        if (maxFailedIndexes != null && maxFailedIndexes > MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS) {
          errors.push({ type: 'Invalid', field: `${at}.maxFailedIndexes`, value: maxFailedIndexes, detail: `must be less than or equal to ${MAX_FAILED_INDEXES_LIMIT_FOR_HIGH_COMPLETIONS} ${high}` })
        }
      }
    }
  }
  if (mode == null || mode === 'NonIndexed') {
    if (spec.backoffLimitPerIndex != null) errors.push({ type: 'Invalid', field: `${at}.backoffLimitPerIndex`, value: spec.backoffLimitPerIndex, detail: 'requires indexed completion mode' })
    if (spec.maxFailedIndexes != null) errors.push({ type: 'Invalid', field: `${at}.maxFailedIndexes`, value: spec.maxFailedIndexes, detail: 'requires indexed completion mode' })
  }
  return errors
}

function validatePodFailurePolicy (spec: Obj, at: string): FieldError[] {
  const errors: FieldError[] = []
  const rules: Obj[] = spec.podFailurePolicy.rules ?? []
  if (rules.length > MAX_POD_FAILURE_POLICY_RULES) errors.push({ type: 'TooMany', field: `${at}.rules`, value: rules.length, detail: `must have at most ${MAX_POD_FAILURE_POLICY_RULES} items` })
  const podSpec = spec.template?.spec ?? {}
  const containerNames = new Set<string>([...(podSpec.containers ?? []), ...(podSpec.initContainers ?? [])].map((c: Obj) => c?.name))
  rules.forEach((rule, i) => {
    const ruleAt = `${at}.rules[${i}]`
    const action = rule.action ?? ''
    if (action === '') errors.push({ type: 'Required', field: `${ruleAt}.action`, detail: `valid values: ${quotedList(POD_FAILURE_ACTIONS)}` })
    else if (action === 'FailIndex') {
      if (spec.backoffLimitPerIndex == null) errors.push({ type: 'Invalid', field: `${ruleAt}.action`, value: action, detail: 'requires the backoffLimitPerIndex to be set' })
    } else if (!POD_FAILURE_ACTIONS.includes(action)) errors.push({ type: 'NotSupported', field: `${ruleAt}.action`, value: action, supported: POD_FAILURE_ACTIONS })
    const patterns: Obj[] = rule.onPodConditions ?? []
    if (rule.onExitCodes != null) errors.push(...validateOnExitCodes(rule.onExitCodes, `${ruleAt}.onExitCodes`, containerNames))
    if (patterns.length > 0) errors.push(...validateOnPodConditions(patterns, `${ruleAt}.onPodConditions`))
    if (rule.onExitCodes != null && patterns.length > 0) errors.push({ type: 'Invalid', field: ruleAt, value: OMITTED_VALUE, detail: 'specifying both OnExitCodes and OnPodConditions is not supported' })
    if (rule.onExitCodes == null && patterns.length === 0) errors.push({ type: 'Invalid', field: ruleAt, value: OMITTED_VALUE, detail: 'specifying one of OnExitCodes and OnPodConditions is required' })
  })
  return errors
}

function validateOnPodConditions (patterns: Obj[], at: string): FieldError[] {
  const errors: FieldError[] = []
  if (patterns.length > MAX_ON_POD_CONDITIONS_PATTERNS) errors.push({ type: 'TooMany', field: at, value: patterns.length, detail: `must have at most ${MAX_ON_POD_CONDITIONS_PATTERNS} items` })
  patterns.forEach((p, j) => {
    const type = p.type ?? ''
    errors.push(...invalidEach(`${at}[${j}].type`, type, qualifiedNameProblems(type)))
    const status = p.status ?? ''
    if (status === '') errors.push({ type: 'Required', field: `${at}[${j}].status`, detail: `valid values: ${quotedList(CONDITION_STATUSES)}` })
    else if (!CONDITION_STATUSES.includes(status)) errors.push({ type: 'NotSupported', field: `${at}[${j}].status`, value: status, supported: CONDITION_STATUSES })
  })
  return errors
}

function validateOnExitCodes (req: Obj, at: string, containerNames: Set<string>): FieldError[] {
  const errors: FieldError[] = []
  const operator = req.operator ?? ''
  if (operator === '') errors.push({ type: 'Required', field: `${at}.operator`, detail: `valid values: ${quotedList(ON_EXIT_CODES_OPERATORS)}` })
  else if (!ON_EXIT_CODES_OPERATORS.includes(operator)) errors.push({ type: 'NotSupported', field: `${at}.operator`, value: operator, supported: ON_EXIT_CODES_OPERATORS })
  if (typeof req.containerName === 'string' && !containerNames.has(req.containerName)) {
    errors.push({ type: 'Invalid', field: `${at}.containerName`, value: req.containerName, detail: 'must be one of the container or initContainer names in the pod template' })
  }
  const values: number[] = req.values ?? []
  if (values.length === 0) errors.push({ type: 'Invalid', field: `${at}.values`, value: values, detail: 'at least one value is required' })
  else if (values.length > MAX_ON_EXIT_CODES_VALUES) errors.push({ type: 'TooMany', field: `${at}.values`, value: values.length, detail: `must have at most ${MAX_ON_EXIT_CODES_VALUES} items` })
  const seen = new Set<number>()
  let ordered = true
  values.forEach((v, j) => {
    if (operator === 'In' && v === 0) errors.push({ type: 'Invalid', field: `${at}.values[${j}]`, value: v, detail: 'must not be 0 for the In operator' })
    if (seen.has(v)) errors.push({ type: 'Duplicate', field: `${at}.values[${j}]`, value: v })
    seen.add(v)
    if (j > 0 && values[j - 1]! > v) ordered = false
  })
  if (!ordered) errors.push({ type: 'Invalid', field: `${at}.values`, value: values, detail: 'must be ordered' })
  return errors
}

function validateSuccessPolicy (spec: Obj, at: string): FieldError[] {
  const errors: FieldError[] = []
  const rules: Obj[] = spec.successPolicy.rules ?? []
  if (rules.length === 0) errors.push({ type: 'Required', field: `${at}.rules`, detail: 'at least one rules must be specified when the successPolicy is specified' })
  if (rules.length > MAX_SUCCESS_POLICY_RULES) errors.push({ type: 'TooMany', field: `${at}.rules`, value: rules.length, detail: `must have at most ${MAX_SUCCESS_POLICY_RULES} items` })
  // An Indexed Job without completions is refused already; its rules are measured against none.
  const completions: number = spec.completions ?? 0
  rules.forEach((rule, i) => {
    const ruleAt = `${at}.rules[${i}]`
    if (rule.succeededCount == null && rule.succeededIndexes == null) errors.push({ type: 'Required', field: ruleAt, detail: 'at least one of succeededCount or succeededIndexes must be specified' })
    let total = 0
    if (typeof rule.succeededIndexes === 'string') {
      const f = `${ruleAt}.succeededIndexes`
      if (rule.succeededIndexes.length > MAX_SUCCEEDED_INDEXES_LENGTH) errors.push({ type: 'TooLong', field: f, value: rule.succeededIndexes, detail: `may not be more than ${MAX_SUCCEEDED_INDEXES_LENGTH} bytes` })
      const parsed = indexesFormat(rule.succeededIndexes, completions)
      if (typeof parsed === 'string') errors.push({ type: 'Invalid', field: f, value: rule.succeededIndexes, detail: `error parsing succeededIndexes: ${parsed}` })
      else total = parsed
    }
    if (typeof rule.succeededCount === 'number') {
      const f = `${ruleAt}.succeededCount`
      errors.push(...nonNegative(rule.succeededCount, f))
      if (rule.succeededCount > completions) errors.push({ type: 'Invalid', field: f, value: rule.succeededCount, detail: `must be less than or equal to ${completions} (the number of specified completions)` })
      if (rule.succeededIndexes != null && rule.succeededCount > total) {
        errors.push({ type: 'Invalid', field: f, value: rule.succeededCount, detail: `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)` })
      }
    }
  })
  return errors
}

/** What a job template holds beyond a Job's own spec rules (ValidateJobTemplateSpec): no selector of its own. */
export function validateJobTemplateSpec (template: Obj | undefined, at: string): FieldError[] {
  const spec = template?.spec ?? {}
  const errors = validateJobSpecFields(spec, `${at}.spec`)
  if (spec.selector != null) errors.push({ type: 'Invalid', field: `${at}.spec.selector`, value: spec.selector, detail: '`selector` will be auto-generated' })
  if (spec.manualSelector === true) errors.push({ type: 'NotSupported', field: `${at}.spec.manualSelector`, value: true, supported: ['nil', 'false'] })
  return errors
}

// ---- index lists ("1,3-5,7") -----------------------------------------------------------------

const DECIMAL = /^[+-]?[0-9]+$/

/** strconv.Atoi: the integer, or undefined where Go refuses it. */
function atoi (s: string): number | undefined {
  if (!DECIMAL.test(s)) return undefined
  const n = BigInt(s)
  return n > 9223372036854775807n || n < -9223372036854775808n ? undefined : Number(n)
}

/** One interval of an index list: its bounds, or the reference's complaint. */
function indexInterval (interval: string, completions: number): [number, number] | string {
  const limits = interval.split('-')
  if (limits.length > 2) return `the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`
  const x = atoi(limits[0]!)
  if (x === undefined) return `cannot convert string to integer for index: ${JSON.stringify(limits[0])}`
  if (x >= completions) return `too large index: ${JSON.stringify(limits[0])}`
  if (limits.length === 1) return [x, x]
  const y = atoi(limits[1]!)
  if (y === undefined) return `cannot convert string to integer for index: ${JSON.stringify(limits[1])}`
  if (y >= completions) return `too large index: ${JSON.stringify(limits[1])}`
  if (x >= y) return `non-increasing order, previous: ${x}, current: ${y}`
  return [x, y]
}

/** validateIndexesFormat: how many indexes the list names, or why it is malformed. */
export function indexesFormat (indexes: string, completions: number): number | string {
  if (indexes === '') return 0
  let last: number | undefined
  let total = 0
  for (const interval of indexes.split(',')) {
    const parsed = indexInterval(interval, completions)
    if (typeof parsed === 'string') return parsed
    const [x, y] = parsed
    if (last !== undefined && last >= x) return `non-increasing order, previous: ${last}, current: ${x}`
    total += y - x + 1
    last = y
  }
  return total
}

/** validateFailedIndexesNotOverlapCompleted: the first index both lists name, as the reference words it. */
export function indexesOverlap (completed: string, failed: string, completions: number): string | undefined {
  if (completed === '' || failed === '') return undefined
  const c = completed.split(',')
  const f = failed.split(',')
  let ci = 0
  let fi = 0
  let cr = indexInterval(c[0]!, completions)
  let fr = indexInterval(f[0]!, completions)
  while (ci < c.length && fi < f.length) {
    // A malformed interval is skipped here; the format check reports it.
    if (typeof cr === 'string') {
      if (++ci < c.length) cr = indexInterval(c[ci]!, completions)
    } else if (typeof fr === 'string') {
      if (++fi < f.length) fr = indexInterval(f[fi]!, completions)
    } else {
      if (cr[0] <= fr[1] && fr[0] <= cr[1]) return `failedIndexes and completedIndexes overlap at index: ${Math.max(cr[0], fr[0])}`
      if (cr[0] <= fr[0]) {
        if (++ci < c.length) cr = indexInterval(c[ci]!, completions)
      } else if (++fi < f.length) fr = indexInterval(f[fi]!, completions)
    }
  }
  return undefined
}
