// CronJob (batch/v1, namespaced): a Job made from a template on a schedule. The schedule is
// checked as the reference checks it (robfig/cron's standard parser, resources/cron-schedule.ts),
// the time zone against the IANA database; the template's spec is a Job's, but its selector is
// always the server's to generate.
import { Type } from '@sinclair/typebox'
import { defineResource, statusSubresource, type AnyObject, type FieldError } from './define.js'
import { AGE_COLUMN, Int32, Int64, objectSchema, Timestamp } from './meta.js'
import { AtomicList, ObjectReference } from './core-types.js'
import { defaultPodTemplate } from './pod-template.js'
import { humanDuration, now } from './duration.js'
import { JobTemplateSpec, validateJobTemplateSpec } from './job-validation.js'
import { jobSpecWarnings, nameWarnings, SELECTOR_DESCRIPTION, templateColumns } from './jobs.js'
import { isKnownTimeZone, scheduleError } from './cron-schedule.js'
import { keepZero, message } from './protobuf.js'

const opt = Type.Optional
const struct = { additionalProperties: false }

const schema = objectSchema('batch/v1', 'CronJob', {
  spec: opt(Type.Object({
    schedule: opt(Type.String({ description: 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.' })),
    timeZone: opt(Type.String({ description: 'The time zone name for the given schedule (an IANA time zone database name).' })),
    startingDeadlineSeconds: opt(Int64()),
    concurrencyPolicy: opt(Type.String({ description: 'Allow, Forbid or Replace.', default: 'Allow' })),
    suspend: opt(Type.Boolean({ default: false })),
    jobTemplate: opt(JobTemplateSpec),
    successfulJobsHistoryLimit: opt(Int32({ default: 3 })),
    failedJobsHistoryLimit: opt(Int32({ default: 1 }))
  }, {
    ...struct,
    description: 'CronJobSpec describes how the job execution will look like and when it will actually run.',
    ...message('CronJobSpec', {
      schedule: keepZero(1),
      startingDeadlineSeconds: keepZero(2),
      concurrencyPolicy: 3,
      suspend: keepZero(4),
      jobTemplate: 5,
      successfulJobsHistoryLimit: keepZero(6),
      failedJobsHistoryLimit: keepZero(7),
      timeZone: keepZero(8)
    })
  })),
  status: opt(Type.Object({
    active: opt(AtomicList(ObjectReference)),
    lastScheduleTime: opt(Timestamp()),
    lastSuccessfulTime: opt(Timestamp())
  }, { ...struct, description: 'CronJobStatus represents the current state of a cron job.', ...message('CronJobStatus', { active: 1, lastScheduleTime: 4, lastSuccessfulTime: 5 }) }))
}, 'CronJob represents the configuration of a single cron job.', { spec: 2, status: 3 })

type CronJob = AnyObject

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace']

/** The job controller appends `-<11 digits>` to the name of each Job, and a Job's name is a DNS label. */
const MAX_NAME_LENGTH = 63 - 11

// The IANA naming rules (https://data.iana.org/time-zones/theory.html#naming), with the digits
// and `+` of legacy names tolerated.
const TIME_ZONE_PART = /^[A-Za-z.\-_0-9+]{1,14}$/

/** validateTimeZone. */
function validateTimeZone (timeZone: unknown): FieldError[] {
  if (typeof timeZone !== 'string') return []
  const field = 'spec.timeZone'
  if (timeZone === '') return [{ type: 'Invalid', field, value: timeZone, detail: 'timeZone must be nil or non-empty string' }]
  for (const part of timeZone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !TIME_ZONE_PART.test(part)) return [{ type: 'Invalid', field, value: timeZone, detail: `unknown time zone ${timeZone}` }]
  }
  const errors: FieldError[] = []
  if (timeZone.toLowerCase() === 'local') errors.push({ type: 'Invalid', field, value: timeZone, detail: 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones' })
  // Go's time.LoadLocation takes "Local" (and "UTC") as its own names; any other must be in the database.
  if (timeZone !== 'Local' && timeZone !== 'UTC' && !isKnownTimeZone(timeZone)) errors.push({ type: 'Invalid', field, value: timeZone, detail: `unknown time zone ${timeZone}` })
  return errors
}

/** validateScheduleFormat: a TZ in the schedule is kept only on CronJobs that already had one. */
function validateSchedule (schedule: string, timeZone: unknown, allowTZ: boolean): FieldError[] {
  const field = 'spec.schedule'
  const errors: FieldError[] = []
  const problem = scheduleError(schedule)
  if (problem !== undefined) errors.push({ type: 'Invalid', field, value: schedule, detail: problem })
  if (allowTZ && schedule.includes('TZ') && timeZone != null) errors.push({ type: 'Invalid', field, value: schedule, detail: 'cannot use both timeZone field and TZ or CRON_TZ in schedule' })
  else if (!allowTZ && schedule.includes('TZ')) errors.push({ type: 'Invalid', field, value: schedule, detail: 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead' })
  return errors
}

/** validateCronJobSpec; `old` is the stored spec on update. */
function validateSpec (spec: CronJob, old: CronJob | undefined): FieldError[] {
  const errors: FieldError[] = []
  const schedule = spec.schedule ?? ''
  if (schedule === '') errors.push({ type: 'Required', field: 'spec.schedule' })
  else errors.push(...validateSchedule(schedule, spec.timeZone, old !== undefined && String(old.schedule ?? '').includes('TZ')))
  if (typeof spec.startingDeadlineSeconds === 'number' && spec.startingDeadlineSeconds < 0) {
    errors.push({ type: 'Invalid', field: 'spec.startingDeadlineSeconds', value: spec.startingDeadlineSeconds, detail: 'must be greater than or equal to 0' })
  }
  // A time zone already stored is not checked again: the database may have dropped it since.
  if (old === undefined || (old.timeZone ?? null) !== (spec.timeZone ?? null)) errors.push(...validateTimeZone(spec.timeZone))
  const policy = spec.concurrencyPolicy ?? ''
  if (policy === '') errors.push({ type: 'Required', field: 'spec.concurrencyPolicy' })
  else if (!CONCURRENCY_POLICIES.includes(policy)) errors.push({ type: 'NotSupported', field: 'spec.concurrencyPolicy', value: policy, supported: CONCURRENCY_POLICIES })
  errors.push(...validateJobTemplateSpec(spec.jobTemplate, 'spec.jobTemplate'))
  for (const f of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) {
    if (typeof spec[f] === 'number' && spec[f] < 0) errors.push({ type: 'Invalid', field: `spec.${f}`, value: spec[f], detail: 'must be greater than or equal to 0' })
  }
  return errors
}

/** SetDefaults_CronJob leaves the job template's spec alone; only its pod template is defaulted. */
function defaultCronJob (cj: CronJob): void {
  const spec = cj.spec ??= {}
  if (spec.concurrencyPolicy === '') spec.concurrencyPolicy = 'Allow'
  const template = spec.jobTemplate ??= {}
  const jobSpec = template.spec ??= {}
  jobSpec.template = defaultPodTemplate(jobSpec.template)
}

const jobTemplateWarnings = (cj: CronJob): string[] => jobSpecWarnings(cj.spec?.jobTemplate?.spec, 'spec.jobTemplate.spec')

export default defineResource({
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
  plural: 'cronjobs',
  singular: 'cronjob',
  shortNames: ['cj'],
  categories: ['all'],
  scope: 'Namespaced',
  schema,
  subresources: { status: statusSubresource() },
  strategy: {
    prepareForCreate: defaultCronJob,
    prepareForUpdate: defaultCronJob,
    // The spec's rules differ on update (a stored TZ or time zone is kept): no rule is common to both.
    validateCreate (cj) {
      const name = String(cj.metadata?.name ?? '')
      const errors = validateSpec(cj.spec ?? {}, undefined)
      if (name.length > MAX_NAME_LENGTH) errors.push({ type: 'Invalid', field: 'metadata.name', value: name, detail: `must be no more than ${MAX_NAME_LENGTH} characters` })
      return errors
    },
    validateUpdate: (cj, old) => validateSpec(cj.spec ?? {}, old.spec ?? {}),
    warningsOnCreate: (cj) => [...nameWarnings(cj.metadata?.name), ...jobTemplateWarnings(cj)],
    warningsOnUpdate (cj, old) {
      const warnings = cj.metadata?.generation !== old.metadata?.generation ? jobTemplateWarnings(cj) : []
      // The reference names the field `spec.spec.schedule` in this warning.
      if (String(cj.spec?.schedule ?? '').includes('TZ')) warnings.push('cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details')
      return warnings
    }
  },
  columns: [
    { name: 'Schedule', type: 'string', description: 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.', value: (c: CronJob) => c.spec?.schedule ?? '' },
    { name: 'Timezone', type: 'string', description: 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones', value: (c: CronJob) => c.spec?.timeZone ?? '<none>' },
    { name: 'Suspend', type: 'boolean', description: 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.', value: (c: CronJob) => typeof c.spec?.suspend === 'boolean' ? (c.spec.suspend ? 'True' : 'False') : '<unset>' },
    { name: 'Active', type: 'integer', description: 'A list of pointers to currently running jobs.', value: (c: CronJob) => (c.status?.active ?? []).length },
    { name: 'Last Schedule', type: 'string', description: 'Information when was the last time the job was successfully scheduled.', value: (c: CronJob) => typeof c.status?.lastScheduleTime === 'string' ? humanDuration(now() - Date.parse(c.status.lastScheduleTime)) : '<none>' },
    AGE_COLUMN,
    ...templateColumns(c => c.spec?.jobTemplate?.spec?.template, c => c.spec?.jobTemplate?.spec?.selector, SELECTOR_DESCRIPTION)
  ],
  podTemplate: c => c.spec?.jobTemplate?.spec?.template,
  example: {
    metadata: { name: 'hello' },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'hello', image: 'busybox:1.36', command: ['date'] }] } } } }
    },
    status: { lastScheduleTime: '2026-01-01T00:05:00Z', active: [{ kind: 'Job', namespace: 'default', name: 'hello-29000005', apiVersion: 'batch/v1' }] }
  }
})

