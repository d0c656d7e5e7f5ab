// Query options of each verb, parsed and validated as the reference server does: malformed
// values are 400, semantically invalid ones 422 with the options kind (ListOptions, ...).
import { badRequest, invalid, type FieldError } from '../../resources/status.js'
import { GROUPS } from '../../resources/naming.js'

type Query = Record<string, string | string[] | undefined>

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
  return Number(v)
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

export function parseListOptions (q: Query, forDeleteCollection = false): ListOptions {
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
  if (o.resourceVersion !== undefined && !/^\d+$/.test(o.resourceVersion)) {
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
  if (o.sendInitialEvents !== undefined && !o.watch) errors.push({ type: 'Forbidden', field: 'sendInitialEvents', detail: 'sendInitialEvents is forbidden for list' })
  if (o.sendInitialEvents !== undefined && o.watch) {
    if (o.resourceVersionMatch !== 'NotOlderThan') errors.push({ type: 'Forbidden', field: 'resourceVersionMatch', detail: "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" })
    if (!o.allowWatchBookmarks) errors.push({ type: 'Forbidden', field: 'allowWatchBookmarks', detail: 'allowWatchBookmarks must be true if sendInitialEvents = true' })
  }
  if (o.timeoutSeconds !== undefined && o.timeoutSeconds < 0) errors.push({ type: 'Invalid', field: 'timeoutSeconds', value: o.timeoutSeconds, detail: 'must be greater than or equal to 0' })
  if (errors.length > 0) throw optionsInvalid(forDeleteCollection ? 'DeleteOptions' : 'ListOptions', errors)
  return o
}

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore'

export interface WriteOptions {
  dryRun: boolean
  fieldManager?: string
  fieldValidation: FieldValidation
  force: boolean
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
  if (fieldManager !== undefined) {
    if (fieldManager.length > 128) errors.push({ type: 'TooLong', field: 'fieldManager', detail: 'may not be more than 128 bytes' })
    if (!/^[\x20-\x7e]*$/.test(fieldManager)) errors.push({ type: 'Invalid', field: 'fieldManager', value: fieldManager, detail: 'must only contain printable characters' })
  }
  const fv = one(q, 'fieldValidation') ?? ''
  if (!['', 'Strict', 'Warn', 'Ignore'].includes(fv)) {
    errors.push({ type: 'NotSupported', field: 'fieldValidation', value: fv, supported: ['', 'Ignore', 'Strict', 'Warn'] })
  }
  const force = kind === 'PatchOptions' ? bool(q, 'force') : false
  if (kind !== 'PatchOptions' && one(q, 'force') !== undefined) errors.push({ type: 'Forbidden', field: 'force', detail: 'may not be specified for non-apply patch' })
  if (errors.length > 0) throw optionsInvalid(kind, errors)
  return { dryRun, fieldManager: fieldManager || undefined, fieldValidation: (fv === '' ? 'Warn' : fv) as FieldValidation, force }
}

export interface DeleteOptions {
  dryRun: boolean
  gracePeriodSeconds?: number
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground'
  /** The deprecated spelling of Orphan (true) or Background (false); never set with propagationPolicy. */
  orphanDependents?: boolean
  preconditions?: { uid?: string, resourceVersion?: string }
}

const POLICIES = ['Foreground', 'Background', 'Orphan']

/** DeleteOptions from the query and, when present, the request body (the body wins). */
export function parseDeleteOptions (q: Query, body: Record<string, any> | undefined): DeleteOptions {
  const errors: FieldError[] = []
  if (body !== undefined && body.kind !== undefined && body.kind !== 'DeleteOptions') {
    throw badRequest(`expected DeleteOptions, got ${String(body.kind)}`)
  }
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
