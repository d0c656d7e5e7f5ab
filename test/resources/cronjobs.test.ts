// CronJob (batch/v1): the schedule as robfig/cron's standard parser reads it (valid and invalid
// schedules with the parser's own words), time zones, the job template's rules, defaults,
// status through /status only, and the columns kubectl shows; and the parser's guarantees on
// any input (never throws, linear time).
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import { suiteApp, type Cause } from './suite.js'
import { goDurationError, scheduleError } from '../../resources/cron-schedule.js'
import { assertLinear } from '../hostile/linear-time.js'
import cronjobsKind from '../../resources/cronjobs.js'

const cronjobs = '/apis/batch/v1/namespaces/default/cronjobs'
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }
const mergePatch = { 'content-type': 'application/merge-patch+json' }

type Obj = Record<string, any>

function assertInvalid (res: LightMyRequestResponse, field: string, reason?: string, message?: string): void {
  assert.equal(res.statusCode, 422, res.body)
  const causes: Cause[] = res.json().details.causes
  const found = causes.some(c => c.field === field && (reason === undefined || c.reason === reason) && (message === undefined || c.message.includes(message)))
  assert.ok(found, `no ${reason ?? ''} cause for ${field} with "${message ?? ''}" in ${JSON.stringify(causes)}`)
}

const podTemplate = (spec: Obj = {}): Obj => ({ spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main', image: 'busybox:1.36' }], ...spec } })
const cronJob = (spec: Obj = {}, jobSpec: Obj = {}): Obj => ({ spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: podTemplate(), ...jobSpec } }, ...spec } })

/** Schedules robfig/cron v3's ParseStandard accepts. */
const VALID_SCHEDULES = [
  '* * * * *', '0 0 * * *', '*/5 * * * *', '0-59/15 * * * *', '5 4 * * sun', '0 22 * * 1-5', '0 0 1 jan,jul *', '0 0 1 JAN-DEC/2 *',
  '0 0 * * MON-FRI', '0 0 ? * *', '0 0 * * ?', '0,30 * * * *', '1,,2 * * * *', '0 0 31 12 6', '30/10 * * * *', '0 */2 1-15 * *',
  '*-5 * * * *', '+5 * * * *', ' 0  0 * * *\t', '@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly',
  '@every 1h30m', '@every 5m', '@every 1.5h', '@every -1s', '@every 0', '@every 1µs', '@every 500ms'
]

/** Schedules it refuses, with its error text (what follows `spec.schedule: Invalid value: "...": `). */
const INVALID_SCHEDULES: Array<[string, string]> = [
  ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
  ['* * * * * *', 'expected exactly 5 fields, found 6: [* * * * * *]'],
  ['   ', 'expected exactly 5 fields, found 0: []'],
  [' @daily', 'expected exactly 5 fields, found 1: [@daily]'],
  ['0-60 * * * *', 'end of range (60) above maximum (59): 0-60'],
  ['0 24 * * *', 'end of range (24) above maximum (23): 24'],
  ['0 0 0 * *', 'beginning of range (0) below minimum (1): 0'],
  ['0 0 32 * *', 'end of range (32) above maximum (31): 32'],
  ['0 0 * 13 *', 'end of range (13) above maximum (12): 13'],
  ['0 0 * 0 *', 'beginning of range (0) below minimum (1): 0'],
  ['0 0 * * 7', 'end of range (7) above maximum (6): 7'],
  ['5-1 * * * *', 'beginning of range (5) beyond end of range (1): 5-1'],
  ['*/0 * * * *', 'step of range should be a positive number: */0'],
  ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
  ['1/2/3 * * * *', 'too many slashes: 1/2/3'],
  ['a * * * *', 'failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax'],
  ['-1 * * * *', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
  ['*/-1 * * * *', 'negative number (-1) not allowed: -1'],
  ['*/x * * * *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
  ['99999999999999999999 * * * *', 'failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range'],
  ['0 0 * january *', 'failed to parse int from january: strconv.Atoi: parsing "january": invalid syntax'],
  ['0 0 * * sunday', 'failed to parse int from sunday: strconv.Atoi: parsing "sunday": invalid syntax'],
  ['0 0 * jan-foo *', 'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax'],
  ['mon * * * *', 'failed to parse int from mon: strconv.Atoi: parsing "mon": invalid syntax'],
  ['@every', 'unrecognized descriptor: @every'],
  ['@daily ', 'unrecognized descriptor: @daily '],
  ['@reboot', 'unrecognized descriptor: @reboot'],
  ['@every 1', 'failed to parse duration @every 1: time: missing unit in duration "1"'],
  ['@every 1x', 'failed to parse duration @every 1x: time: unknown unit "x" in duration "1x"'],
  ['@every 1h 30m', 'failed to parse duration @every 1h 30m: time: unknown unit "h " in duration "1h 30m"'],
  ['@every x', 'failed to parse duration @every x: time: invalid duration "x"'],
  ['@every ', 'failed to parse duration @every : time: invalid duration ""'],
  ['@every 99999999999h', 'failed to parse duration @every 99999999999h: time: invalid duration "99999999999h"']
]

interface Case { name: string, body: Obj, cronName?: string, field?: string, reason?: string, message?: string }

const cases: Case[] = [
  ...VALID_SCHEDULES.map((schedule): Case => ({ name: `the schedule ${JSON.stringify(schedule)}`, body: cronJob({ schedule }) })),
  ...INVALID_SCHEDULES.map(([schedule, text]): Case => ({ name: `the schedule ${JSON.stringify(schedule)}`, body: cronJob({ schedule }), field: 'spec.schedule', reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(schedule)}: ${text}` })),
  { name: 'no schedule', body: cronJob({ schedule: '' }), field: 'spec.schedule', reason: 'FieldValueRequired' },
  { name: 'TZ= in the schedule', body: cronJob({ schedule: 'TZ=UTC 0 0 * * *' }), field: 'spec.schedule', message: 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead' },
  { name: 'CRON_TZ= in the schedule', body: cronJob({ schedule: 'CRON_TZ=Europe/Paris 0 0 * * *' }), field: 'spec.schedule', message: 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead' },
  { name: 'an unknown TZ= in the schedule', body: cronJob({ schedule: 'TZ=Mars/Olympus 0 0 * * *' }), field: 'spec.schedule', message: 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus' },
  { name: 'a time zone', body: cronJob({ timeZone: 'America/New_York' }) },
  { name: 'the time zone Etc/UTC', body: cronJob({ timeZone: 'Etc/UTC' }) },
  { name: 'the time zone UTC', body: cronJob({ timeZone: 'UTC' }) },
  { name: 'an empty time zone', body: cronJob({ timeZone: '' }), field: 'spec.timeZone', message: 'timeZone must be nil or non-empty string' },
  { name: 'the time zone Local', body: cronJob({ timeZone: 'Local' }), field: 'spec.timeZone', message: 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones' },
  { name: 'the time zone local', body: cronJob({ timeZone: 'local' }), field: 'spec.timeZone', message: 'unknown time zone local' },
  { name: 'an unknown time zone', body: cronJob({ timeZone: 'Mars/Olympus' }), field: 'spec.timeZone', reason: 'FieldValueInvalid', message: 'Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus' },
  { name: 'a time zone in the wrong case', body: cronJob({ timeZone: 'america/new_york' }), field: 'spec.timeZone', message: 'unknown time zone america/new_york' },
  { name: 'a time zone part over 14 characters', body: cronJob({ timeZone: 'America/Argentina_Buenos_Aires' }), field: 'spec.timeZone', message: 'unknown time zone America/Argentina_Buenos_Aires' },
  { name: 'a time zone with ..', body: cronJob({ timeZone: '../etc/passwd' }), field: 'spec.timeZone', message: 'unknown time zone ../etc/passwd' },
  { name: 'a time zone part starting with -', body: cronJob({ timeZone: 'Etc/-5' }), field: 'spec.timeZone', message: 'unknown time zone Etc/-5' },
  { name: 'an unknown concurrencyPolicy', body: cronJob({ concurrencyPolicy: 'Sometimes' }), field: 'spec.concurrencyPolicy', reason: 'FieldValueNotSupported', message: 'supported values: "Allow", "Forbid", "Replace"' },
  { name: 'concurrencyPolicy Forbid', body: cronJob({ concurrencyPolicy: 'Forbid' }) },
  { name: 'a negative startingDeadlineSeconds', body: cronJob({ startingDeadlineSeconds: -1 }), field: 'spec.startingDeadlineSeconds', message: 'must be greater than or equal to 0' },
  { name: 'a negative successfulJobsHistoryLimit', body: cronJob({ successfulJobsHistoryLimit: -1 }), field: 'spec.successfulJobsHistoryLimit', message: 'must be greater than or equal to 0' },
  { name: 'a negative failedJobsHistoryLimit', body: cronJob({ failedJobsHistoryLimit: -1 }), field: 'spec.failedJobsHistoryLimit', message: 'must be greater than or equal to 0' },
  { name: 'zero history limits', body: cronJob({ successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 0 }) },
  { name: 'a job template restarting Always', body: cronJob({}, { template: podTemplate({ restartPolicy: 'Always' }) }), field: 'spec.jobTemplate.spec.template.spec.restartPolicy', reason: 'FieldValueRequired', message: 'valid values: "OnFailure", "Never"' },
  { name: 'a job template without containers', body: cronJob({}, { template: podTemplate({ containers: [] }) }), field: 'spec.jobTemplate.spec.template.spec.containers', reason: 'FieldValueRequired' },
  { name: 'a job template with a selector', body: cronJob({}, { selector: { matchLabels: { app: 'x' } } }), field: 'spec.jobTemplate.spec.selector', message: '`selector` will be auto-generated' },
  { name: 'a job template with manualSelector', body: cronJob({}, { manualSelector: true }), field: 'spec.jobTemplate.spec.manualSelector', reason: 'FieldValueNotSupported', message: 'Unsupported value: true: supported values: "nil", "false"' },
  { name: 'a job template with manualSelector false', body: cronJob({}, { manualSelector: false }) },
  { name: 'a job template with negative parallelism', body: cronJob({}, { parallelism: -1 }), field: 'spec.jobTemplate.spec.parallelism', message: 'must be greater than or equal to 0' },
  { name: 'an Indexed job template without completions', body: cronJob({}, { completionMode: 'Indexed' }), field: 'spec.jobTemplate.spec.completions', reason: 'FieldValueRequired' },
  { name: 'a name of 52 characters', cronName: 'c'.repeat(52), body: cronJob() },
  { name: 'a name of 53 characters', cronName: 'c'.repeat(53), body: cronJob(), field: 'metadata.name', reason: 'FieldValueInvalid', message: 'must be no more than 52 characters' }
]

describe('batch/v1 CronJob', () => {
  const app = suiteApp()
  let n = 0
  const create = (body: Obj, name = `c${++n}`) => app().request({ method: 'POST', url: cronjobs, payload: { metadata: { name }, ...body } })
  const patch = (name: string, body: Obj, sub = '') => app().request({ method: 'PATCH', url: `${cronjobs}/${name}${sub}`, headers: mergePatch, payload: body })

  for (const c of cases) {
    it(`${c.field === undefined ? 'accepts' : 'rejects'} ${c.name}`, async () => {
      const res = await create(c.body, c.cronName)
      if (c.field === undefined) assert.equal(res.statusCode, 201, res.body)
      else assertInvalid(res, c.field, c.reason, c.message)
    })
  }

  it('defaults as SetDefaults_CronJob, and the job template\'s pod template only', async () => {
    const res = await create(cronJob(), 'defaults')
    assert.equal(res.statusCode, 201, res.body)
    const spec = res.json().spec
    assert.equal(spec.concurrencyPolicy, 'Allow')
    assert.equal(spec.suspend, false)
    assert.equal(spec.successfulJobsHistoryLimit, 3)
    assert.equal(spec.failedJobsHistoryLimit, 1)
    assert.equal(spec.timeZone, undefined)
    // SetDefaults_Job is not a CronJob's: the job template's spec keeps what the user wrote.
    const jobSpec = spec.jobTemplate.spec
    for (const f of ['parallelism', 'completions', 'backoffLimit', 'completionMode', 'suspend', 'manualSelector', 'selector', 'podReplacementPolicy']) assert.equal(jobSpec[f], undefined, f)
    assert.equal(jobSpec.template.spec.dnsPolicy, 'ClusterFirst')
    assert.equal(jobSpec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent')
    assert.equal(jobSpec.template.metadata?.labels, undefined)
  })

  it('refuses a TZ added to the schedule on update', async () => {
    await create(cronJob(), 'add-tz')
    const ok = await patch('add-tz', { spec: { schedule: '0 0 * * *' } })
    assert.equal(ok.statusCode, 200, ok.body)
    assertInvalid(await patch('add-tz', { spec: { schedule: 'TZ=UTC 0 0 * * *' } }), 'spec.schedule', 'FieldValueInvalid', 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead')
  })

  it('keeps a TZ the stored schedule already had, but not beside a timeZone', () => {
    // Only CronJobs stored before the rule existed hold one, so the strategy is asked directly.
    const ctx = {} as Parameters<NonNullable<typeof cronjobsKind.strategy.validateUpdate>>[2]
    const stored: Obj = { metadata: { name: 'legacy' }, ...cronJob({ schedule: 'TZ=UTC 0 0 * * *', concurrencyPolicy: 'Allow' }, { template: podTemplate({ dnsPolicy: 'ClusterFirst' }) }) }
    const kept = structuredClone(stored)
    kept.spec.schedule = 'TZ=UTC 0 1 * * *'
    assert.deepEqual(cronjobsKind.strategy.validateUpdate!(kept, stored, ctx), [])
    const both = structuredClone(kept)
    both.spec.timeZone = 'UTC'
    assert.deepEqual(cronjobsKind.strategy.validateUpdate!(both, stored, ctx).map(e => e.detail), ['cannot use both timeZone field and TZ or CRON_TZ in schedule'])
  })

  it('lets a long name stay on update: the 52-character rule is for new CronJobs', async () => {
    await create(cronJob(), 'short')
    const ok = await patch('short', { spec: { suspend: true } })
    assert.equal(ok.statusCode, 200, ok.body)
    assert.equal(ok.json().metadata.generation, 2)
  })

  it('checks a time zone again only when it changes', async () => {
    await create(cronJob({ timeZone: 'Europe/Berlin' }), 'zoned')
    assertInvalid(await patch('zoned', { spec: { timeZone: 'Mars/Olympus' } }), 'spec.timeZone', 'FieldValueInvalid', 'unknown time zone Mars/Olympus')
    const ok = await patch('zoned', { spec: { timeZone: 'Asia/Tokyo', schedule: '@hourly' } })
    assert.equal(ok.statusCode, 200, ok.body)
  })

  it('takes status only through /status', async () => {
    const active = [{ kind: 'Job', namespace: 'default', name: 'st-1', apiVersion: 'batch/v1' }]
    await create({ ...cronJob(), status: { active } }, 'st')
    const main = await patch('st', { status: { active } })
    assert.equal(main.statusCode, 200, main.body)
    assert.equal(main.json().status, undefined)
    const res = await patch('st', { status: { active, lastScheduleTime: new Date(Date.now() - 300_000).toISOString() } }, '/status')
    assert.equal(res.statusCode, 200, res.body)
    assert.deepEqual(res.json().status.active, active)
  })

  it('warns of a name that is no DNS label', async () => {
    const res = await create(cronJob(), 'dotted.cron')
    assert.equal(res.statusCode, 201, res.body)
    assert.match(String(res.headers.warning), /metadata\.name: this is used in Pod names and hostnames/)
  })

  it('shows a cronjob as kubectl does: schedule, time zone, suspend, active, last schedule', async () => {
    await create(cronJob({ timeZone: 'Europe/Paris', suspend: true }), 'paris')
    const t = (await app().request({ method: 'GET', url: cronjobs, headers: TABLE })).json()
    assert.deepEqual(t.columnDefinitions.map((c: Obj) => [c.name, c.type, c.priority]), [
      ['Name', 'string', 0], ['Schedule', 'string', 0], ['Timezone', 'string', 0], ['Suspend', 'boolean', 0], ['Active', 'integer', 0],
      ['Last Schedule', 'string', 0], ['Age', 'string', 0], ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1]
    ])
    const row = (name: string) => t.rows.find((r: Obj) => r.cells[0] === name).cells
    assert.deepEqual(row('paris').slice(0, 6), ['paris', '*/5 * * * *', 'Europe/Paris', 'True', 0, '<none>'])
    assert.deepEqual(row('paris').slice(7), ['main', 'busybox:1.36', '<none>'])
    assert.deepEqual(row('st').slice(1, 6), ['*/5 * * * *', '<none>', 'False', 1, '5m'])
  })

  it('is cj in the all category, and serves cronjobs/status', async () => {
    const discovery = (await app().request({ method: 'GET', url: '/apis/batch/v1' })).json()
    const r = discovery.resources.find((x: Obj) => x.name === 'cronjobs')
    assert.deepEqual(r.shortNames, ['cj'])
    assert.deepEqual(r.categories, ['all'])
    assert.ok(discovery.resources.some((x: Obj) => x.name === 'cronjobs/status'))
  })
})

describe('the cron schedule parser', () => {
  it('never throws, and answers a string or nothing, on any input', () => {
    const cronish = fc.stringMatching(/^[0-9*?,\-/ @a-zA-Z=_.µ]{0,40}$/)
    fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: 'grapheme', maxLength: 30 }), cronish), s => {
      const r = scheduleError(s)
      assert.ok(r === undefined || typeof r === 'string')
      const d = goDurationError(s)
      assert.ok(d === undefined || typeof d === 'string')
    }), { numRuns: 3000 })
  })

  it('accepts what it composes from valid ranges', () => {
    const minute = fc.integer({ min: 0, max: 59 })
    fc.assert(fc.property(minute, minute, fc.integer({ min: 1, max: 60 }), (a, b, step) => {
      const [lo, hi] = a <= b ? [a, b] : [b, a]
      assert.equal(scheduleError(`${lo}-${hi}/${step} * * * *`), undefined)
    }))
  })

  const inputs: Record<string, (n: number) => string> = {
    'a long field of commas': n => `${'1,'.repeat(n)} * * * *`,
    'many fields': n => '* '.repeat(n),
    'a long list of ranges': n => `${'1-2/3,'.repeat(n)}4 * * * *`,
    'many hyphens': n => `${'1-'.repeat(n)} * * * *`,
    'many slashes': n => `${'*/'.repeat(n)} * * * *`,
    'a long number': n => `${'9'.repeat(n)} * * * *`,
    'a long @every duration': n => `@every ${'1h'.repeat(n)}`,
    'a long @every fraction': n => `@every 1.${'5'.repeat(n)}h`,
    'a long TZ= name': n => `TZ=${'a'.repeat(n)} * * * * *`,
    'a long run of spaces': n => `${' '.repeat(n)}x`
  }
  for (const [what, input] of Object.entries(inputs)) {
    it(`runs in linear time: ${what}`, () => assertLinear(what, input, scheduleError))
  }
})
