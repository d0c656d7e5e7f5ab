// Query options of each verb, parsed and validated as the reference server does: malformed
// values are 400, semantically invalid ones 422 with the options kind (ListOptions, ...).
import { badRequest, invalid, type FieldError } from '../../resources/status.js'
import { fieldManagerProblems } from '../../machinery/field-manager-names.js'
import { GROUPS } from '../../resources/naming.js'
import type { DeleteOptions, FieldValidation, WriteOptions } from '../../storage/resource-store.js'

export type { DeleteOptions, FieldValidation, WriteOptions } from '../../storage/resource-store.js'

export type Query = Record<string, string | string[] | undefined>

const one = (q: Query, name: string): string | undefined => {
  const v = q[name]
  return Array.isArray(v) ? v[0] : v
}

function bool (q: Query, name: string): boolean {
  const v = one(q, name)
  if (v === undefined || v === '') return v === '' && name === 'watch' ? false : false
  // The reference server's strconv.ParseBool spellings; the Python client sends "True".
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return true
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) return false
  throw badRequest(`invalid boolean value for ${name}: ${JSON.stringify(v)}`)
}

function int (q: Query, name: string): number | undefined {
  const v = one(q, name)
  if (v === undefined || v === '') return undefined
  if (!/^-?\d+$/.test(v)) throw badRequest(`invalid value for ${name}: ${JSON.stringify(v)}: must be an integer`)
  // An int64 as the reference server parses it; past that, never a rounded number.
  const n = BigInt(v)
  if (n > INT64_MAX || n < -INT64_MAX - 1n) throw badRequest(`invalid value for ${name}: strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`)
  return Number(v)
}

const INT64_MAX = 2n ** 63n - 1n

/** A DeleteOptions body field of the wrong JSON type, in the reference decoder's words. */
const undecodable = (field: string, value: unknown, goType: string): Error => {
  const jsonType = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value === 'number' ? `number ${String(value)}` : typeof value
  return badRequest(`json: cannot unmarshal ${jsonType} into Go struct field DeleteOptions.${field} of type ${goType}`)
}

/** Checks the JSON types of a DeleteOptions body: a field that cannot be decoded is 400, never ignored. */
function checkDeleteBodyTypes (body: Record<string, any>): void {
  const isInt64 = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 2 ** 63
  const present = (v: unknown): boolean => v !== undefined && v !== null
  if (present(body.gracePeriodSeconds) && !isInt64(body.gracePeriodSeconds)) throw undecodable('gracePeriodSeconds', body.gracePeriodSeconds, 'int64')
  if (present(body.propagationPolicy) && typeof body.propagationPolicy !== 'string') throw undecodable('propagationPolicy', body.propagationPolicy, 'v1.DeletionPropagation')
  if (present(body.orphanDependents) && typeof body.orphanDependents !== 'boolean') throw undecodable('orphanDependents', body.orphanDependents, 'bool')
  if (present(body.dryRun) && (!Array.isArray(body.dryRun) || body.dryRun.some((v: unknown) => typeof v !== 'string'))) throw undecodable('dryRun', body.dryRun, '[]string')
  const pre = body.preconditions
  if (!present(pre)) return
  if (typeof pre !== 'object' || Array.isArray(pre)) throw undecodable('preconditions', pre, 'v1.Preconditions')
  for (const f of ['uid', 'resourceVersion']) {
    if (present(pre[f]) && typeof pre[f] !== 'string') throw undecodable(`preconditions.${f}`, pre[f], f === 'uid' ? 'types.UID' : 'string')
  }
}

const optionsInvalid = (kind: string, errors: FieldError[]) => invalid({ group: GROUPS.meta, kind }, '', errors)

export interface ListOptions {
  watch: boolean
  resourceVersion?: string
  resourceVersionMatch?: 'Exact' | 'NotOlderThan'
  allowWatchBookmarks: boolean
  limit?: number
  continue?: string
  labelSelector?: string
  fieldSelector?: string
  timeoutSeconds?: number
  sendInitialEvents?: boolean
}

export function parseListOptions (q: Query, forDeleteCollection = false, watchList = true): ListOptions {
  const o: ListOptions = {
    watch: bool(q, 'watch'),
    resourceVersion: one(q, 'resourceVersion') || undefined,
    allowWatchBookmarks: bool(q, 'allowWatchBookmarks'),
    limit: int(q, 'limit'),
    continue: one(q, 'continue') || undefined,
    labelSelector: one(q, 'labelSelector'),
    fieldSelector: one(q, 'fieldSelector'),
    timeoutSeconds: int(q, 'timeoutSeconds')
  }
  const sie = one(q, 'sendInitialEvents')
  if (sie !== undefined) o.sendInitialEvents = bool(q, 'sendInitialEvents')
  const match = one(q, 'resourceVersionMatch')
  if (o.limit !== undefined && o.limit <= 0) o.limit = undefined
  const errors: FieldError[] = []
  // Past 2^53 a revision is no longer a number this server could have written (as store.get).
  if (o.resourceVersion !== undefined && (!/^\d+$/.test(o.resourceVersion) || !Number.isSafeInteger(Number(o.resourceVersion)))) {
    throw badRequest(`invalid resource version "${o.resourceVersion}"`)
  }
  if (match !== undefined && match !== '') {
    if (o.watch) {
      if (o.sendInitialEvents === undefined) errors.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' })
    } else {
      if (o.resourceVersion === undefined) errors.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden unless resourceVersion is provided' })
      if (o.continue !== undefined) errors.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden when continue is provided' })
    }
    if (match !== 'Exact' && match !== 'NotOlderThan') errors.push({ type: 'NotSupported', field: 'resourceVersionMatch', value: match, supported: ['Exact', 'NotOlderThan', ''] })
    else o.resourceVersionMatch = match
    if (match === 'Exact' && o.resourceVersion === '0') errors.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"' })
  }
  if (o.sendInitialEvents !== undefined && o.watch && !watchList) errors.push({ type: 'Forbidden', field: 'sendInitialEvents', detail: 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled' })
  if (o.sendInitialEvents !== undefined && !o.watch) errors.push({ type: 'Forbidden', field: 'sendInitialEvents', detail: 'sendInitialEvents is forbidden for list' })
  if (o.sendInitialEvents !== undefined && o.watch) {
    if (o.resourceVersionMatch !== 'NotOlderThan') errors.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" })
    if (!o.allowWatchBookmarks) errors.push({ type: 'Forbidden', field: 'allowWatchBookmarks', detail: 'allowWatchBookmarks must be true if sendInitialEvents = true' })
  }
  if (o.timeoutSeconds !== undefined && o.timeoutSeconds < 0) errors.push({ type: 'Invalid', field: 'timeoutSeconds', value: o.timeoutSeconds, detail: 'must be greater than or equal to 0' })
  if (errors.length > 0) throw optionsInvalid(forDeleteCollection ? 'DeleteOptions' : 'ListOptions', errors)
  return o
}

function dryRunOf (q: Query, kind: string): boolean {
  const raw = q.dryRun
  const values = raw === undefined ? [] : (Array.isArray(raw) ? raw : [raw])
  const errors: FieldError[] = []
  for (const v of values) if (v !== 'All' && v !== '') errors.push({ type: 'NotSupported', field: 'dryRun', value: v, supported: ['All'] })
  if (errors.length > 0) throw optionsInvalid(kind, errors)
  return values.includes('All')
}

/** CreateOptions, UpdateOptions, PatchOptions (`apply`: of an apply patch, which needs a manager and alone may force). */
export function parseWriteOptions (q: Query, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', apply = false): WriteOptions {
  const dryRun = dryRunOf(q, kind)
  const fieldManager = one(q, 'fieldManager')
  const errors: FieldError[] = []
  if (kind === 'PatchOptions' && !apply && one(q, 'force') !== undefined) errors.push({ type: 'Forbidden', field: 'force', detail: 'may not be specified for non-apply patch' })
  if (apply && (fieldManager === undefined || fieldManager === '')) errors.push({ type: 'Required', field: 'fieldManager', detail: 'is required for apply patch' })
  if (fieldManager !== undefined) errors.push(...fieldManagerProblems(fieldManager, 'fieldManager'))
  const fv = one(q, 'fieldValidation') ?? ''
  if (!['', 'Strict', 'Warn', 'Ignore'].includes(fv)) {
    errors.push({ type: 'NotSupported', field: 'fieldValidation', value: fv, supported: ['', 'Ignore', 'Strict', 'Warn'] })
  }
  const force = kind === 'PatchOptions' ? bool(q, 'force') : false
  if (kind !== 'PatchOptions' && one(q, 'force') !== undefined) errors.push({ type: 'Forbidden', field: 'force', detail: 'may not be specified for non-apply patch' })
  if (errors.length > 0) throw optionsInvalid(kind, errors)
  return { dryRun, fieldManager: fieldManager || undefined, fieldValidation: (fv === '' ? 'Warn' : fv) as FieldValidation, force }
}

const POLICIES = ['Foreground', 'Background', 'Orphan']

/** DeleteOptions from the query and, when present, the request body (the body wins). */
export function parseDeleteOptions (q: Query, body: Record<string, any> | undefined): DeleteOptions {
  const errors: FieldError[] = []
  if (body !== undefined && body.kind !== undefined && body.kind !== 'DeleteOptions') {
    throw badRequest(`expected DeleteOptions, got ${String(body.kind)}`)
  }
  if (body !== undefined) checkDeleteBodyTypes(body)
  let dryRun = dryRunOf(q, 'DeleteOptions')
  if (Array.isArray(body?.dryRun)) {
    for (const v of body!.dryRun) if (v !== 'All') errors.push({ type: 'NotSupported', field: 'dryRun', value: v, supported: ['All'] })
    dryRun = dryRun || body!.dryRun.includes('All')
  }
  const grace = body?.gracePeriodSeconds ?? int(q, 'gracePeriodSeconds')
  if (grace !== undefined && (typeof grace !== 'number' || !Number.isInteger(grace))) errors.push({ type: 'Invalid', field: 'gracePeriodSeconds', value: grace, detail: 'must be an integer' })
  const policy = body?.propagationPolicy ?? one(q, 'propagationPolicy')
  if (policy !== undefined && policy !== null && !POLICIES.includes(policy)) {
    errors.push({ type: 'NotSupported', field: 'propagationPolicy', value: policy, supported: [...POLICIES, 'nil'] })
  }
  let orphanDependents: unknown = body?.orphanDependents ?? (one(q, 'orphanDependents') === undefined ? undefined : bool(q, 'orphanDependents'))
  if (orphanDependents === null) orphanDependents = undefined
  if (orphanDependents !== undefined && typeof orphanDependents !== 'boolean') errors.push({ type: 'Invalid', field: 'orphanDependents', value: orphanDependents, detail: 'must be a boolean' })
  if (orphanDependents !== undefined && policy !== undefined && policy !== null) {
    errors.push({ type: 'Invalid', field: 'propagationPolicy', value: policy, detail: 'orphanDependents and deletionPropagation cannot be both set' })
  }
  if (errors.length > 0) throw optionsInvalid('DeleteOptions', errors)
  return {
    dryRun,
    gracePeriodSeconds: grace,
    propagationPolicy: policy ?? undefined,
    orphanDependents: orphanDependents as boolean | undefined,
    preconditions: body?.preconditions ?? undefined
  }
}

/** `pretty` asks for indented JSON. */
export const wantsPretty = (q: Query): boolean => {
  const v = one(q, 'pretty')
  return v !== undefined && v !== 'false' && v !== '0'
}

export const includeObjectOf = (q: Query): 'None' | 'Metadata' | 'Object' => {
  const v = one(q, 'includeObject')
  if (v === undefined || v === '') return 'Metadata'
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v
  throw badRequest(`includeObject: Unsupported value: ${JSON.stringify(v)}`)
}
