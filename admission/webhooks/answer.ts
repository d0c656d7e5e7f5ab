// A webhook's AdmissionReview answer, read as the reference server reads it: first decoded into
// its typed AdmissionReview (a field of the wrong type is a decoding error, as Go's JSON decoder
// words it), then verified (VerifyAdmissionResponse: uid, patch and patchType by version and by
// webhook type). Either failure is a call error, which the webhook's failurePolicy settles.
type AnyObject = Record<string, any>

export interface DenialStatus { code?: number, message?: string, reason?: string, details?: AnyObject }

export interface ReviewResponse {
  /** A missing or null `allowed` decodes to false: a denial. */
  allowed: boolean
  status?: DenialStatus
  /** The decoded bytes of `patch`; empty when there is none. */
  patch: Buffer
  /** '' when there is no patch; v1beta1 patches are JSONPatch. */
  patchType: string
  warnings: string[]
  auditAnnotations: Record<string, string>
}

/** Why an answer is not one; the dispatcher prefixes `failed calling webhook "<name>": `. */
export class CallError extends Error {}

const decodeError = (detail: string): CallError => new CallError(`failed to call webhook: ${detail}`)
const invalid = (detail: string): CallError => new CallError(`received invalid webhook response: ${detail}`)

/** The JSON kind Go's decoder names in a type error (numbers it could not fit carry their text). */
function jsonKind (v: unknown, withNumber: boolean): string {
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return withNumber ? `number ${String(v)}` : 'number'
  return typeof v === 'boolean' ? 'bool' : typeof v
}

const typeError = (v: unknown, struct: string, field: string, goType: string, withNumber = false): CallError =>
  decodeError(`json: cannot unmarshal ${jsonKind(v, withNumber)} into Go struct field ${struct}.${field} of type ${goType}`)

const isObject = (v: unknown): v is AnyObject => typeof v === 'object' && v !== null && !Array.isArray(v)
const absent = (v: unknown): v is null | undefined => v === undefined || v === null

function stringField (o: AnyObject, key: string, struct: string, path: string): string | undefined {
  const v = o[key]
  if (absent(v)) return undefined
  if (typeof v !== 'string') throw typeError(v, struct, `${path}.${key}`, 'string')
  return v
}

function int32Field (o: AnyObject, key: string, struct: string, path: string): number | undefined {
  const v = o[key]
  if (absent(v)) return undefined
  if (typeof v !== 'number') throw typeError(v, struct, `${path}.${key}`, 'int32')
  if (!Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw typeError(v, struct, `${path}.${key}`, 'int32', true)
  return v
}

/** metav1.StatusDetails as its Go type decodes it: the details reach the client's Status as they are. */
function statusDetails (v: unknown): AnyObject | undefined {
  const path = 'response.status.details'
  if (absent(v)) return undefined
  if (!isObject(v)) throw typeError(v, 'Status', path, 'v1.StatusDetails')
  for (const key of ['name', 'group', 'kind', 'uid']) stringField(v, key, 'StatusDetails', path)
  int32Field(v, 'retryAfterSeconds', 'StatusDetails', path)
  if (!absent(v.causes)) {
    if (!Array.isArray(v.causes)) throw typeError(v.causes, 'StatusDetails', `${path}.causes`, '[]v1.StatusCause')
    for (const c of v.causes) {
      if (absent(c)) continue
      if (!isObject(c)) throw typeError(c, 'StatusDetails', `${path}.causes`, 'v1.StatusCause')
      for (const key of ['reason', 'message', 'field']) stringField(c, key, 'StatusCause', `${path}.causes`)
    }
  }
  return v
}

/** metav1.Status as its Go type decodes it: code is an int32. */
function denialStatus (v: unknown): DenialStatus | undefined {
  if (absent(v)) return undefined
  if (!isObject(v)) throw typeError(v, 'AdmissionResponse', 'response.status', 'v1.Status')
  const code = int32Field(v, 'code', 'Status', 'response.status')
  const message = stringField(v, 'message', 'Status', 'response.status')
  const reason = stringField(v, 'reason', 'Status', 'response.status')
  stringField(v, 'status', 'Status', 'response.status')
  return { code, message, reason, details: statusDetails(v.details) }
}

function stringMap (v: unknown, field: string): Record<string, string> {
  if (absent(v)) return {}
  if (!isObject(v)) throw typeError(v, 'AdmissionResponse', `response.${field}`, 'map[string]string')
  const out: Record<string, string> = {}
  for (const [k, value] of Object.entries(v)) {
    if (!absent(value) && typeof value !== 'string') throw typeError(value, 'AdmissionResponse', `response.${field}`, 'string')
    Object.defineProperty(out, k, { value: value ?? '', enumerable: true, writable: true, configurable: true })
  }
  return out
}

function stringList (v: unknown, field: string): string[] {
  if (absent(v)) return []
  if (!Array.isArray(v)) throw typeError(v, 'AdmissionResponse', `response.${field}`, '[]string')
  return v.map(w => {
    if (!absent(w) && typeof w !== 'string') throw typeError(w, 'AdmissionResponse', `response.${field}`, 'string')
    return w ?? ''
  })
}

const BASE64 = /[A-Za-z0-9+/]/

/** Base64 as Go's StdEncoding decodes a []byte field: padded, line breaks skipped, nothing else. */
function base64Bytes (text: string): Buffer {
  let quantum = 0
  let i = 0
  for (; i < text.length && text[i] !== '='; i++) {
    const c = text[i]!
    if (c === '\r' || c === '\n') continue
    if (!BASE64.test(c)) throw decodeError(`illegal base64 data at input byte ${i}`)
    quantum = (quantum + 1) % 4
  }
  if (i < text.length) {
    // Padding completes a quantum of two or three characters, and only line breaks may follow it.
    const rest = text.slice(i).replace(/[\r\n]/g, '')
    if (quantum < 2 || rest !== '='.repeat(4 - quantum)) throw decodeError(`illegal base64 data at input byte ${i}`)
  } else if (quantum !== 0) throw decodeError(`illegal base64 data at input byte ${text.length - quantum}`)
  return Buffer.from(text, 'base64')
}

/**
 * The answer to the review `sent`, or a CallError. `mutating`: a patch is expected (and, in
 * v1, must come with its type); a validating webhook's v1 answer may carry neither.
 */
export function reviewResponse (body: unknown, sent: AnyObject, mutating: boolean): ReviewResponse {
  if (!isObject(body)) throw decodeError('the webhook answered something that is not an AdmissionReview')
  if (body.apiVersion !== sent.apiVersion || body.kind !== 'AdmissionReview') {
    throw invalid(`expected webhook response of ${String(sent.apiVersion)}, Kind=AdmissionReview, got ${String(body.apiVersion)}, Kind=${String(body.kind)}`)
  }
  const r = body.response
  if (absent(r)) throw invalid('webhook response was absent')
  if (!isObject(r)) throw typeError(r, 'AdmissionReview', 'response', 'AdmissionResponse')
  const uid = stringField(r, 'uid', 'AdmissionResponse', 'response') ?? ''
  if (!absent(r.allowed) && typeof r.allowed !== 'boolean') throw typeError(r.allowed, 'AdmissionResponse', 'response.allowed', 'bool')
  const patchText = stringField(r, 'patch', 'AdmissionResponse', 'response')
  const patchType = stringField(r, 'patchType', 'AdmissionResponse', 'response')
  const answer: ReviewResponse = {
    allowed: r.allowed === true,
    status: denialStatus(r.status),
    patch: patchText === undefined ? Buffer.alloc(0) : base64Bytes(patchText),
    patchType: '',
    warnings: stringList(r.warnings, 'warnings'),
    auditAnnotations: stringMap(r.auditAnnotations, 'auditAnnotations')
  }
  const v1beta1 = String(sent.apiVersion).endsWith('/v1beta1')
  if (v1beta1) {
    // The reference never checked a v1beta1 answer's uid or patch type: a patch is a JSON patch.
    if (!mutating) answer.patch = Buffer.alloc(0)
    else if (answer.patch.length > 0) answer.patchType = 'JSONPatch'
    return answer
  }
  if (uid !== sent.request.uid) throw invalid(`expected response.uid="${String(sent.request.uid)}", got "${uid}"`)
  if (!mutating) {
    if (answer.patch.length > 0) throw invalid('validating webhook may not return response.patch')
    if (patchType !== undefined) throw invalid('validating webhook may not return response.patchType')
    return answer
  }
  if (answer.patch.length > 0 && patchType === undefined) throw invalid('webhook returned response.patch but not response.patchType')
  if (answer.patch.length === 0 && patchType !== undefined) throw invalid('webhook returned response.patchType but not response.patch')
  if (patchType === '') throw invalid('webhook returned invalid response.patchType of ""')
  answer.patchType = patchType ?? ''
  return answer
}
