// Job (batch/v1, namespaced): pods run to completion. Unless the user asks to choose the selector
// (manualSelector), the server gives the pods labels naming this Job's uid and name and selects
// them by the uid, so no two Jobs ever claim each other's pods. Its status, written by the job
// controller (or the controller managedBy names), is checked for transitions no client may make.
import { isDeepStrictEqual } from 'node:util'
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type AnyObject, type Column, type FieldError } from './define.js'
import { AGE_COLUMN, Int32, objectSchema, Timestamp } from './meta.js'
import { AtomicList, Condition, SetList, immutable, validateLabelSelector } from './core-types.js'
import { defaultPodTemplate, selectorMismatch, validateSelectorSelectsTemplate } from './pod-template.js'
import { labelSelectorMatches, labelSelectorText } from './label-selector.js'
import { podSpecWarnings } from './deprecation-warnings.js'
import { humanDuration, now } from './duration.js'
import { dnsLabelProblems } from './validation.js'
import { indexesFormat, indexesOverlap, isIndexed, JobSpec, validateJobSpecFields } from './job-validation.js'
import { OMITTED_VALUE } from './status.js'
import { keepZero, message } from './protobuf.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

/** The labels the server puts on a Job's pods (batch/v1 types.go), prefixed and as they were first spelled. */
export const JOB_LABELS = {
  jobName: 'batch.kubernetes.io/job-name',
  controllerUid: 'batch.kubernetes.io/controller-uid',
  legacyJobName: 'job-name',
  legacyControllerUid: 'controller-uid'
} as const

const JobStatus = Type.Object({
  conditions: opt(AtomicList(Condition(message('JobCondition', { type: keepZero(1), status: keepZero(2), lastProbeTime: 3, lastTransitionTime: 4, reason: 5, message: 6 })),
    { 'x-kubernetes-patch-merge-key': 'type', 'x-kubernetes-patch-strategy': 'merge' })),
  startTime: opt(Timestamp()),
  completionTime: opt(Timestamp()),
  active: opt(Int32()),
  succeeded: opt(Int32()),
  failed: opt(Int32()),
  terminating: opt(Int32()),
  completedIndexes: opt(Type.String()),
  failedIndexes: opt(Type.String()),
  uncountedTerminatedPods: opt(Type.Object({
    succeeded: opt(SetList(Type.String())),
    failed: opt(SetList(Type.String()))
  }, { ...struct, ...message('UncountedTerminatedPods', { succeeded: 1, failed: 2 }) })),
  ready: opt(Int32())
}, {
  ...struct,
  description: 'JobStatus represents the current state of a Job.',
  ...message('JobStatus', {
    conditions: 1,
    startTime: 2,
    completionTime: 3,
    active: 4,
    succeeded: 5,
    failed: 6,
    completedIndexes: 7,
    uncountedTerminatedPods: 8,
    ready: keepZero(9),
    failedIndexes: keepZero(10),
    terminating: keepZero(11)
  })
})

const schema = objectSchema('batch/v1', 'Job', {
  spec: opt(JobSpec),
  status: opt(JobStatus)
}, 'Job represents the configuration of a single job.', { spec: 2, status: 3 })

type Job = AnyObject

const INT32_MAX = 2147483647

/** SetDefaults_Job: run on every write, as the reference's decoder defaults every body. */
function defaultJob (job: Job): void {
  const spec = job.spec ??= {}
  if (spec.completions == null && spec.parallelism == null) {
    spec.completions = 1
    spec.parallelism = 1
  }
  spec.parallelism ??= 1
  spec.backoffLimit ??= spec.backoffLimitPerIndex != null ? INT32_MAX : 6
  const templateLabels = spec.template?.metadata?.labels
  if (templateLabels != null && Object.keys(templateLabels).length > 0 && Object.keys(job.metadata?.labels ?? {}).length === 0) {
    job.metadata.labels = { ...templateLabels }
  }
  spec.completionMode ??= 'NonIndexed'
  spec.suspend ??= false
  for (const rule of spec.podFailurePolicy?.rules ?? []) {
    for (const pattern of rule?.onPodConditions ?? []) if ((pattern.status ?? '') === '') pattern.status = 'True'
  }
  spec.podReplacementPolicy ??= spec.podFailurePolicy != null ? 'Failed' : 'TerminatingOrFailed'
  spec.manualSelector ??= false
  spec.template = defaultPodTemplate(spec.template)
}

/** The strategy's generateSelector: labels for the pods and a selector of the uid, each only where the user set none. */
function generateSelector (job: Job): void {
  const spec = job.spec
  const meta = spec.template.metadata ??= {}
  const labels = meta.labels ??= {}
  for (const key of [JOB_LABELS.legacyJobName, JOB_LABELS.jobName]) if (!Object.hasOwn(labels, key)) labels[key] = job.metadata.name
  for (const key of [JOB_LABELS.legacyControllerUid, JOB_LABELS.controllerUid]) if (!Object.hasOwn(labels, key)) labels[key] = job.metadata.uid
  const selector = spec.selector ??= {}
  const matchLabels = selector.matchLabels ??= {}
  if (!Object.hasOwn(matchLabels, JOB_LABELS.controllerUid)) matchLabels[JOB_LABELS.controllerUid] = job.metadata.uid
}

/** ValidateHasLabel. */
function hasLabel (labels: Record<string, string> | undefined, key: string, expected: string): FieldError[] {
  const field = `spec.template.metadata.labels[${key}]`
  if (labels == null || !Object.hasOwn(labels, key)) return [{ type: 'Required', field, detail: `must be '${expected}'` }]
  return labels[key] === expected ? [] : [{ type: 'Invalid', field, value: labels, detail: `must be '${expected}'` }]
}

/**
 * validateGeneratedSelector: a generated selector and the template's labels are this Job's. The
 * prefixed labels are required of new Jobs and of Jobs that already had them.
 */
function validateGeneratedSelector (job: Job, requirePrefixed: boolean): FieldError[] {
  const spec = job.spec ?? {}
  if (spec.manualSelector === true || spec.selector == null) return []
  const errors: FieldError[] = []
  const uid: string = job.metadata?.uid ?? ''
  const name: string = job.metadata?.name ?? ''
  if (uid === '') errors.push({ type: 'Required', field: 'metadata.uid' })
  const labels = spec.template?.metadata?.labels
  errors.push(...hasLabel(labels, JOB_LABELS.legacyControllerUid, uid), ...hasLabel(labels, JOB_LABELS.legacyJobName, name))
  const expected: Record<string, string> = {}
  if (requirePrefixed) {
    errors.push(...hasLabel(labels, JOB_LABELS.controllerUid, uid), ...hasLabel(labels, JOB_LABELS.jobName, name))
    expected[JOB_LABELS.controllerUid] = uid
    expected[JOB_LABELS.jobName] = name
  }
  expected[JOB_LABELS.legacyControllerUid] = uid
  expected[JOB_LABELS.legacyJobName] = name
  if (!labelSelectorMatches(spec.selector, expected)) errors.push({ type: 'Invalid', field: 'spec.selector', value: spec.selector, detail: '`selector` not auto-generated' })
  return errors
}

/** ValidateJob without the generated-selector rule (whose options depend on the stored Job). */
function validateJob (job: Job): FieldError[] {
  const spec = job.spec ?? {}
  const errors = validateJobSpecFields(spec, 'spec')
  if (spec.selector == null) {
    errors.push({ type: 'Required', field: 'spec.selector' })
    // A missing selector selects nothing, so not the template's pods either.
    errors.push(selectorMismatch(spec.template, 'spec.template'))
  } else {
    errors.push(...validateLabelSelector(spec.selector, 'spec.selector'))
    errors.push(...validateSelectorSelectsTemplate(spec.selector, spec.template, 'spec.template'))
  }
  if (isIndexed(spec) && typeof spec.completions === 'number' && spec.completions > 0) {
    // Pods of an Indexed Job are named `<job>-<index>`: the last one must still be a DNS label.
    const hostname = `${String(job.metadata?.name ?? '')}-${spec.completions - 1}`
    if (dnsLabelProblems(hostname).length > 0) {
      errors.push({ type: 'Invalid', field: 'metadata.name', value: job.metadata?.name, detail: `will not able to create pod with invalid DNS label: ${hostname}` })
    }
  }
  return errors
}

/**
 * The template as validatePodTemplateUpdate compares it: while a Job is suspended and has never
 * started, its pods' scheduling directives, labels and annotations may still change.
 */
function comparableTemplate (template: Job | undefined, other: Job | undefined, schedulingMutable: boolean): Job | undefined {
  if (!schedulingMutable || template == null) return template
  const t = structuredClone(template)
  const o = other ?? {}
  t.spec ??= {}
  const affinity = t.spec.affinity
  const newAffinity = o.spec?.affinity
  if (newAffinity == null && affinity != null) {
    delete affinity.nodeAffinity
    if (Object.keys(affinity).length === 0) delete t.spec.affinity
  } else if (newAffinity != null && affinity == null) {
    t.spec.affinity = newAffinity.nodeAffinity == null ? {} : { nodeAffinity: newAffinity.nodeAffinity }
  } else if (newAffinity != null && affinity != null) {
    if (newAffinity.nodeAffinity == null) delete affinity.nodeAffinity
    else affinity.nodeAffinity = newAffinity.nodeAffinity
  }
  const copy = (from: Job | undefined, to: Job, key: string): void => {
    if (from?.[key] === undefined) delete to[key]
    else to[key] = from[key]
  }
  for (const key of ['nodeSelector', 'tolerations', 'schedulingGates']) copy(o.spec, t.spec, key)
  t.metadata ??= {}
  for (const key of ['annotations', 'labels']) copy(o.metadata, t.metadata, key)
  return t
}

/** ValidateJobSpecUpdate beyond ValidateJobSpec. */
function validateSpecUpdate (spec: Job, old: Job, schedulingMutable: boolean): FieldError[] {
  const errors: FieldError[] = []
  if (isIndexed(spec) && !isDeepStrictEqual(spec.completions ?? null, old.completions ?? null)) {
    // Elastic Indexed Jobs: completions may change along with parallelism (a nil is refused already).
    if (spec.completions != null && spec.completions !== spec.parallelism) {
      errors.push({ type: 'Invalid', field: 'spec.completions', value: spec.completions, detail: 'can only be modified in tandem with spec.parallelism' })
    }
  } else if (!isIndexed(spec)) {
    errors.push(...immutable('spec.completions', spec.completions, old.completions))
  }
  errors.push(...immutable('spec.selector', spec.selector, old.selector))
  errors.push(...immutable('spec.template', spec.template, comparableTemplate(old.template, spec.template, schedulingMutable)))
  for (const f of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) {
    errors.push(...immutable(`spec.${f}`, spec[f], old[f]))
  }
  return errors
}

// ---- status -----------------------------------------------------------------------------------

const conditionTrue = (job: Job, type: string): boolean =>
  (job.status?.conditions ?? []).some((c: Job) => c?.type === type && c?.status === 'True')
const isComplete = (job: Job): boolean => conditionTrue(job, 'Complete')
const isFailed = (job: Job): boolean => conditionTrue(job, 'Failed')
const isFinished = (job: Job): boolean => isComplete(job) || isFailed(job)
const successCriteriaMet = (job: Job): boolean => conditionTrue(job, 'SuccessCriteriaMet')
const failureTarget = (job: Job): boolean => conditionTrue(job, 'FailureTarget')

/**
 * ValidateJobUpdateStatus with the options the 1.33 strategy gives (JobManagedBy on): most rules
 * apply only when the status fields they read change, so a controller can still write the rest
 * of a status that broke them before.
 */
function validateStatusUpdate (job: Job, old: Job): FieldError[] {
  const s: Job = job.status ?? {}
  const o: Job = old.status ?? {}
  const spec: Job = job.spec ?? {}
  const changed = (get: (j: Job) => unknown): boolean => !isDeepStrictEqual(get(old) ?? null, get(job) ?? null)
  const finishedChanged = isFinished(old) !== isFinished(job)
  const completeChanged = isComplete(old) !== isComplete(job)
  const failedChanged = isFailed(old) !== isFailed(job)
  const failureTargetChanged = failureTarget(old) !== failureTarget(job)
  const completedIndexesChanged = (o.completedIndexes ?? '') !== (s.completedIndexes ?? '')
  const failedIndexesChanged = changed(j => j.status?.failedIndexes)
  const activeChanged = (o.active ?? 0) !== (s.active ?? 0)
  const startChanged = changed(j => j.status?.startTime)
  const completionChanged = changed(j => j.status?.completionTime)
  const uncountedChanged = changed(j => j.status?.uncountedTerminatedPods)
  const terminatingChanged = changed(j => j.status?.terminating)
  const readyChanged = changed(j => j.status?.ready)
  const errors: FieldError[] = []
  const invalid = (field: string, value: unknown, detail: string): void => { errors.push({ type: 'Invalid', field: `status.${field}`, value, detail }) }

  for (const f of ['active', 'succeeded', 'failed', 'ready', 'terminating']) {
    if (typeof s[f] === 'number' && s[f] < 0) invalid(f, s[f], 'must be greater than or equal to 0')
  }
  const seen = new Set<string>()
  for (const part of ['succeeded', 'failed']) {
    ;(s.uncountedTerminatedPods?.[part] ?? []).forEach((uid: string, i: number) => {
      const field = `status.uncountedTerminatedPods.${part}[${i}]`
      if (uid === '') errors.push({ type: 'Invalid', field, value: uid, detail: 'must not be empty' })
      else if (seen.has(uid)) errors.push({ type: 'Duplicate', field, value: uid })
      else seen.add(uid)
    })
  }
  if ((completeChanged || failedChanged) && isComplete(job) && isFailed(job)) invalid('conditions', OMITTED_VALUE, 'cannot set Complete=True and Failed=true conditions')
  if ((completeChanged || failureTargetChanged) && isComplete(job) && failureTarget(job)) invalid('conditions', OMITTED_VALUE, 'cannot set Complete=True and FailureTarget=true conditions')
  if ((completeChanged || completionChanged) && s.completionTime != null && !isComplete(job)) invalid('completionTime', s.completionTime, 'cannot set completionTime when there is no Complete=True condition')
  if ((completeChanged || completionChanged) && s.completionTime == null && isComplete(job)) errors.push({ type: 'Required', field: 'status.completionTime', detail: 'completionTime is required for Complete jobs' })
  if ((startChanged || completionChanged) && s.startTime != null && s.completionTime != null && Date.parse(s.completionTime) < Date.parse(s.startTime)) {
    invalid('completionTime', s.completionTime, 'completionTime cannot be set before startTime')
  }
  if (finishedChanged && isFailed(job) && !failureTarget(job)) invalid('conditions', OMITTED_VALUE, 'cannot set Failed=True condition without the FailureTarget=true condition')
  if (finishedChanged && isComplete(job) && !successCriteriaMet(job)) invalid('conditions', OMITTED_VALUE, 'cannot set Complete=True condition without the SuccessCriteriaMet=true condition')
  if ((finishedChanged || activeChanged) && (s.active ?? 0) > 0 && isFinished(job)) invalid('active', s.active, 'active>0 is invalid for finished job')
  if ((finishedChanged || startChanged) && s.startTime == null && isFinished(job)) errors.push({ type: 'Required', field: 'status.startTime', detail: 'startTime is required for finished job' })
  const uncounted = (s.uncountedTerminatedPods?.failed ?? []).length + (s.uncountedTerminatedPods?.succeeded ?? []).length
  if ((finishedChanged || uncountedChanged) && isFinished(job) && uncounted > 0) invalid('uncountedTerminatedPods', s.uncountedTerminatedPods, 'uncountedTerminatedPods needs to be empty for finished job')
  if (completedIndexesChanged && typeof spec.completions === 'number') {
    const parsed = indexesFormat(s.completedIndexes ?? '', spec.completions)
    if (typeof parsed === 'string') invalid('completedIndexes', s.completedIndexes ?? '', `error parsing completedIndexes: ${parsed}`)
  }
  if (failedIndexesChanged && typeof spec.completions === 'number' && spec.backoffLimitPerIndex != null && s.failedIndexes != null) {
    const parsed = indexesFormat(s.failedIndexes, spec.completions)
    if (typeof parsed === 'string') invalid('failedIndexes', s.failedIndexes, `error parsing failedIndexes: ${parsed}`)
  }
  if (completedIndexesChanged && (s.completedIndexes ?? '') !== '' && !isIndexed(spec)) invalid('completedIndexes', s.completedIndexes, 'cannot set non-empty completedIndexes when non-indexed completion mode')
  if (failedIndexesChanged && spec.backoffLimitPerIndex == null && s.failedIndexes != null) invalid('failedIndexes', s.failedIndexes, 'cannot set non-null failedIndexes when backoffLimitPerIndex is null')
  if ((failedIndexesChanged || completedIndexesChanged) && typeof spec.completions === 'number' && s.failedIndexes != null) {
    const overlap = indexesOverlap(s.completedIndexes ?? '', s.failedIndexes, spec.completions)
    if (overlap !== undefined) invalid('failedIndexes', s.failedIndexes, overlap)
  }
  if ((finishedChanged || terminatingChanged) && (s.terminating ?? 0) > 0 && isFinished(job)) invalid('terminating', s.terminating, 'terminating>0 is invalid for finished job')
  if ((readyChanged || activeChanged) && s.ready != null && s.ready > (s.active ?? 0)) invalid('ready', s.ready, 'cannot set more ready pods than active')
  if (successCriteriaMet(job) && isFailed(job)) invalid('conditions', OMITTED_VALUE, 'cannot set SuccessCriteriaMet=True and Failed=true conditions')
  if (successCriteriaMet(job) && failureTarget(job)) invalid('conditions', OMITTED_VALUE, 'cannot set SuccessCriteriaMet=True and FailureTarget=true conditions')
  if (spec.successPolicy != null && !successCriteriaMet(job) && isComplete(job)) invalid('conditions', OMITTED_VALUE, 'cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True')

  for (const type of ['Failed', 'Complete', 'FailureTarget']) {
    if (conditionTrue(old, type) && !conditionTrue(job, type)) invalid('conditions', OMITTED_VALUE, `cannot disable the terminal ${type}=True condition`)
  }
  if ((s.failed ?? 0) < (o.failed ?? 0)) invalid('failed', s.failed ?? 0, 'cannot decrease the failed counter')
  // Elastic Indexed Jobs scaled down (completions kept equal to parallelism) may count fewer successes.
  const mayScaleDown = isIndexed(spec) && isDeepStrictEqual(spec.completions ?? null, spec.parallelism ?? null)
  if (!mayScaleDown && (s.succeeded ?? 0) < (o.succeeded ?? 0)) invalid('succeeded', s.succeeded ?? 0, 'cannot decrease the succeeded counter')
  if (s.completionTime != null && o.completionTime != null && s.completionTime !== o.completionTime) invalid('completionTime', s.completionTime, 'completionTime cannot be mutated')
  if (startChanged && o.startTime != null && spec.suspend !== true) errors.push({ type: 'Required', field: 'status.startTime', detail: 'startTime cannot be removed for unsuspended job' })
  if (successCriteriaMet(old) && !successCriteriaMet(job)) invalid('conditions', OMITTED_VALUE, 'cannot disable the SuccessCriteriaMet=True condition')
  if (isComplete(old) && !successCriteriaMet(old) && successCriteriaMet(job)) invalid('conditions', OMITTED_VALUE, 'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions')
  return errors
}

// ---- warnings and columns ---------------------------------------------------------------------

const COMPLETIONS_SOFT_LIMIT = 100_000
const PARALLELISM_SOFT_LIMIT_FOR_UNLIMITED_COMPLETIONS = 10_000

/** WarningsForJobSpec: a very large Indexed Job, and the pod template's deprecated content. */
export function jobSpecWarnings (spec: Job | undefined, at: string): string[] {
  const warnings: string[] = []
  if (isIndexed(spec) && (spec?.completions ?? 0) > COMPLETIONS_SOFT_LIMIT && (spec?.parallelism ?? 0) > PARALLELISM_SOFT_LIMIT_FOR_UNLIMITED_COMPLETIONS) {
    warnings.push(`${at}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail`)
  }
  if (spec?.template != null) warnings.push(...podSpecWarnings(spec.template.spec, spec.template.metadata, `${at}.template`))
  return warnings
}

/** The reference's warning for a Job or CronJob whose name is no DNS label (its pods' hostnames derive from it). */
export function nameWarnings (name: string | undefined): string[] {
  const problems = dnsLabelProblems(name ?? '')
  return problems.length === 0 ? [] : [`metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${problems.join(' ')}]`]
}

/** The wide columns a workload shows: its template's containers and images, and its selector. */
export function templateColumns (template: (obj: AnyObject) => AnyObject | undefined, selector: (obj: AnyObject) => AnyObject | undefined, selectorDescription: string): Column[] {
  const containers = (obj: AnyObject): AnyObject[] => template(obj)?.spec?.containers ?? []
  return [
    { name: 'Containers', type: 'string', priority: 1, description: 'Names of each container in the template.', value: o => containers(o).map(c => c?.name ?? '').join(',') },
    { name: 'Images', type: 'string', priority: 1, description: 'Images referenced by each container in the template.', value: o => containers(o).map(c => c?.image ?? '').join(',') },
    { name: 'Selector', type: 'string', priority: 1, description: selectorDescription, value: o => labelSelectorText(selector(o)) || '<none>' }
  ]
}

export const SELECTOR_DESCRIPTION = 'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors'

function statusText (job: Job): string {
  if (conditionTrue(job, 'Complete')) return 'Complete'
  if (conditionTrue(job, 'Failed')) return 'Failed'
  if (job.metadata?.deletionTimestamp != null) return 'Terminating'
  if (conditionTrue(job, 'Suspended')) return 'Suspended'
  if (conditionTrue(job, 'FailureTarget')) return 'FailureTarget'
  return 'Running'
}

function completionsText (job: Job): string {
  const succeeded = job.status?.succeeded ?? 0
  if (job.spec?.completions != null) return `${succeeded}/${job.spec.completions as number}`
  const parallelism = job.spec?.parallelism ?? 0
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism as number}` : `${succeeded}/1`
}

function durationText (job: Job): string {
  const start = job.status?.startTime
  if (start == null) return ''
  const end = job.status?.completionTime
  return humanDuration((end == null ? now() : Date.parse(end)) - Date.parse(start))
}

const hadPrefixedLabels = (old: Job): boolean => {
  const labels = old.spec?.template?.metadata?.labels ?? {}
  return Object.hasOwn(labels, JOB_LABELS.jobName) && Object.hasOwn(labels, JOB_LABELS.controllerUid)
}

export default defineResource({
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  plural: 'jobs',
  singular: 'job',
  categories: ['all'],
  scope: 'Namespaced',
  schema,
  subresources: { status: statusSubresource() },
  // batch/v1 Jobs orphan their pods unless told otherwise, for compatibility (the strategy's DefaultGarbageCollectionPolicy).
  defaultPropagationPolicy: 'Orphan',
  strategy: {
    prepareForCreate (job) {
      defaultJob(job)
      if (job.spec!.manualSelector !== true) generateSelector(job)
      // The reference defaults the Job again as it reads it back from storage, so a Job created
      // without labels answers with its pods' generated ones.
      defaultJob(job)
    },
    prepareForUpdate (job) { defaultJob(job) },
    // ValidateJob's first rule depends on the stored Job, so each path runs all of it in order.
    validateCreate: (job) => [...validateGeneratedSelector(job, true), ...validateJob(job)],
    validateUpdate (job, old) {
      // Scheduling directives stay mutable only for a Job suspended before it ever started.
      const schedulingMutable = old.spec?.suspend === true && old.status?.startTime == null
      return [
        ...validateGeneratedSelector(job, hadPrefixedLabels(old)),
        ...validateJob(job),
        ...validateSpecUpdate(job.spec ?? {}, old.spec ?? {}, schedulingMutable),
        ...validateStatusUpdate(job, old)
      ]
    },
    warningsOnCreate: (job) => [...nameWarnings(job.metadata?.name), ...jobSpecWarnings(job.spec, 'spec')],
    warningsOnUpdate: (job, old) => job.metadata?.generation !== old.metadata?.generation ? jobSpecWarnings(job.spec, 'spec') : []
  },
  columns: [
    { name: 'Status', type: 'string', description: 'Status of the job.', value: statusText },
    { name: 'Completions', type: 'string', description: 'The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.', value: completionsText },
    { name: 'Duration', type: 'string', description: 'Time required to complete the job.', value: durationText },
    AGE_COLUMN,
    ...templateColumns(j => j.spec?.template, j => j.spec?.selector, SELECTOR_DESCRIPTION)
  ],
  podTemplate: j => j.spec?.template,
  fieldSelectors: { 'status.successful': j => String(j.status?.succeeded ?? 0) },
  example: {
    metadata: { name: 'pi' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5.34.0', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'] }] } } },
    status: { active: 1, ready: 0, terminating: 0, startTime: '2026-01-01T00:00:00Z', uncountedTerminatedPods: {} }
  }
})
