// The Status vocabulary every layer shares: API errors as the reference server renders them,
// and the field errors validation reports.
export type StatusReason =
  | 'BadRequest' | 'Unauthorized' | 'Forbidden' | 'NotFound' | 'AlreadyExists' | 'Conflict'
  | 'Gone' | 'Expired' | 'Invalid' | 'ServerTimeout' | 'Timeout' | 'TooManyRequests'
  | 'MethodNotAllowed' | 'NotAcceptable' | 'RequestEntityTooLarge' | 'UnsupportedMediaType'
  | 'InternalError' | 'ServiceUnavailable' | ''

export interface StatusCause { reason?: string, message?: string, field?: string }

export interface StatusDetails {
  name?: string
  group?: string
  kind?: string
  uid?: string
  causes?: StatusCause[]
  retryAfterSeconds?: number
}

export interface Status {
  kind: 'Status'
  apiVersion: 'v1'
  metadata: Record<string, never>
  status: 'Failure' | 'Success'
  message?: string
  reason?: StatusReason
  details?: StatusDetails
  code: number
}

export type FieldErrorType = 'Required' | 'Invalid' | 'TypeInvalid' | 'Forbidden' | 'Duplicate' | 'NotSupported' | 'TooLong' | 'TooMany' | 'NotFound' | 'Unknown'

/** One problem with one field of a request body, as k8s field.Error. */
export interface FieldError {
  type: FieldErrorType
  field: string
  value?: unknown
  detail?: string
  /** For NotSupported: the values that are. */
  supported?: string[]
}

/** A group and resource, as error messages name them (`configmaps`, `storageclasses.storage.example.io`). */
export interface GroupResource { group: string, resource: string }

/** An error a client sees: it carries the Status it renders as. */
export class ApiError extends Error {
  readonly status: Status
  /** Extra response headers (Retry-After). */
  readonly headers: Record<string, string>
  constructor (code: number, reason: StatusReason, message: string, details?: StatusDetails, headers: Record<string, string> = {}) {
    super(message)
    this.name = 'ApiError'
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }
    // An unknown reason is left out, as the reference server's JSON omits an empty one.
    if (reason === '') delete this.status.reason
    if (details !== undefined) this.status.details = details
    this.headers = headers
  }

  get code (): number { return this.status.code }
}

const qualified = (gr: GroupResource): string => gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`
const grDetails = (gr: GroupResource, name?: string): StatusDetails => {
  const d: StatusDetails = {}
  if (name !== undefined && name !== '') d.name = name
  if (gr.group !== '') d.group = gr.group
  d.kind = gr.resource
  return d
}

export const notFound = (gr: GroupResource, name: string): ApiError =>
  new ApiError(404, 'NotFound', `${qualified(gr)} "${name}" not found`, grDetails(gr, name))

/** A path no route serves. */
export const pathNotFound = (): ApiError => new ApiError(404, 'NotFound', 'the server could not find the requested resource', {})

export const alreadyExists = (gr: GroupResource, name: string): ApiError =>
  new ApiError(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, grDetails(gr, name))

export const conflict = (gr: GroupResource, name: string, why: string): ApiError =>
  new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`, grDetails(gr, name))

export const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again'

export const badRequest = (message: string): ApiError => new ApiError(400, 'BadRequest', message)

/**
 * fieldValidation=Strict refusing repeated and unknown fields: 400, in the words of the
 * reference's strict decoder. A body decoded as the object (create, update) names the kind it
 * could not be handled as; a patched object does not.
 */
export function strictDecodingError (duplicates: string[], unknown: string[], decodedAs?: { kind: string, version: string }): ApiError {
  const items = [...duplicates.map(f => `duplicate field "${f}"`), ...unknown.map(f => `unknown field "${f}"`)]
  const message = `strict decoding error: ${items.join(', ')}`
  return badRequest(decodedAs === undefined ? message : `${decodedAs.kind} in version "${decodedAs.version}" cannot be handled as a ${decodedAs.kind}: ${message}`)
}

export const unauthorized = (message = 'Unauthorized'): ApiError => new ApiError(401, 'Unauthorized', message)

export const forbidden = (gr: GroupResource, name: string, message: string): ApiError =>
  new ApiError(403, 'Forbidden', `${qualified(gr)}${name === '' ? '' : ` "${name}"`} is forbidden: ${message}`, grDetails(gr, name))

export const methodNotSupported = (gr: GroupResource | undefined, action: string): ApiError =>
  new ApiError(405, 'MethodNotAllowed',
    gr === undefined ? `the server does not allow this method on the requested resource` : `${action} is not supported on resources of kind "${qualified(gr)}"`,
    gr === undefined ? undefined : grDetails(gr))

export const notAcceptable = (supported: string[]): ApiError =>
  new ApiError(406, 'NotAcceptable', `only the following media types are accepted: ${supported.join(', ')}`)

export const unsupportedMediaType = (contentType: string, supported: string[]): ApiError =>
  new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')}`,
    { causes: [{ reason: 'UnexpectedServerResponse', message: contentType }] })

export const entityTooLarge = (): ApiError =>
  new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728')

export const gone = (message: string): ApiError => new ApiError(410, 'Gone', message)

export const expired = (message: string): ApiError => new ApiError(410, 'Expired', message)

export const tooLargeResourceVersion = (requested: number, current: number): ApiError =>
  new ApiError(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`,
    { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
    { 'retry-after': '1' })

export const internalError = (message = 'an error on the server has prevented the request from succeeding'): ApiError =>
  new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] })

export const serviceUnavailable = (message: string): ApiError => new ApiError(503, 'ServiceUnavailable', message)

export const timeout = (message: string): ApiError => new ApiError(504, 'Timeout', message)

/** A value printed as the reference's Go code prints it (`%#v`), where JSON would differ. */
export class GoValue {
  constructor (readonly text: string) {}
}

/** A map of strings (labels) as Go's %#v prints a map[string]string: keys sorted; nil for none. */
export const goStringMap = (m: Record<string, string> | undefined | null): GoValue =>
  new GoValue(m == null ? 'map[string]string(nil)' : `map[string]string{${Object.keys(m).sort().map(k => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`).join(', ')}}`)

const quote = (v: unknown): string => {
  if (v === undefined) return 'null'
  if (typeof v === 'string') return JSON.stringify(v)
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v)
  if (v instanceof GoValue) return v.text
  return JSON.stringify(v)
}

/**
 * The value of a field error that names no value (the reference's field.OmitValueType): the
 * text is the error type and the detail alone (`Invalid value: detail`).
 */
export const OMITTED_VALUE: unique symbol = Symbol('omitted value')

/** The k8s text of one field error: `Invalid value: "x": detail`. */
export function fieldErrorText (e: FieldError): string {
  if (e.value === OMITTED_VALUE && e.type !== 'Required' && e.type !== 'Forbidden' && e.type !== 'TooLong' && e.type !== 'Unknown') {
    const name = fieldErrorText({ ...e, value: undefined, detail: undefined, supported: undefined }).split(':')[0]!
    return `${name}${e.detail ? `: ${e.detail}` : ''}`
  }
  switch (e.type) {
    case 'Required': return `Required value${e.detail ? `: ${e.detail}` : ''}`
    case 'Forbidden': return `Forbidden${e.detail ? `: ${e.detail}` : ''}`
    case 'Duplicate': return `Duplicate value: ${quote(e.value)}`
    case 'NotFound': return `Not found: ${quote(e.value)}`
    case 'TooLong': return `Too long: ${e.detail ?? 'value is too long'}`
    // The reference shows the actual count when it knows it (field.TooMany).
    case 'TooMany': return `Too many: ${typeof e.value === 'number' ? `${e.value}: ` : ''}${e.detail ?? 'too many items'}`
    case 'NotSupported': {
      const supported = e.supported === undefined ? '' : `: supported values: ${e.supported.map(s => JSON.stringify(s)).join(', ')}`
      return `Unsupported value: ${quote(e.value)}${supported}`
    }
    case 'Invalid':
    case 'TypeInvalid': return `Invalid value: ${quote(e.value)}${e.detail ? `: ${e.detail}` : ''}`
    case 'Unknown': return `unknown field "${e.field}"`
  }
}

const causeReason: Record<FieldErrorType, string> = {
  Required: 'FieldValueRequired',
  Invalid: 'FieldValueInvalid',
  TypeInvalid: 'FieldValueTypeInvalid',
  Forbidden: 'FieldValueForbidden',
  Duplicate: 'FieldValueDuplicate',
  NotSupported: 'FieldValueNotSupported',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
  NotFound: 'FieldValueNotFound',
  Unknown: 'FieldValueInvalid'
}

/** 422 Invalid with one cause per field, as k8s NewInvalid renders it (`ConfigMap "x" is invalid: ...`). */
export function invalid (kind: { group: string, kind: string }, name: string, errors: FieldError[]): ApiError {
  const texts = errors.map(e => `${e.field}: ${fieldErrorText(e)}`)
  const summary = texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`
  const details: StatusDetails = {}
  if (name !== '') details.name = name
  if (kind.group !== '') details.group = kind.group
  details.kind = kind.kind
  details.causes = errors.map(e => ({ reason: causeReason[e.type], message: fieldErrorText(e), field: e.field }))
  const qualifiedKind = kind.group === '' ? kind.kind : `${kind.kind}.${kind.group}`
  return new ApiError(422, 'Invalid', `${qualifiedKind} ${JSON.stringify(name)} is invalid: ${summary}`, details)
}

export const fieldError = (type: FieldErrorType, field: string, value?: unknown, detail?: string): FieldError =>
  ({ type, field, value, detail })
