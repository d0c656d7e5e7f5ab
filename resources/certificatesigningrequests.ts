// CertificateSigningRequest (certificates.svc.io/v1, cluster scope): a PKCS#10 request for a
// certificate from a named signer; approved or denied through /approval, issued through /status.
import { Type } from '@sinclair/typebox'
import { defineResource, fieldError, type FieldError, type RequestContext, type SubresourceDefinition } from './define.js'
import { AGE_COLUMN, Int32, objectSchema, Timestamp } from './meta.js'
import { AtomicList, MapList } from './core-types.js'
import { GROUPS, SIGNERS } from './naming.js'
import { dnsSubdomainProblems, isBase64 } from './validation.js'
import { certificateProblem, parseCertificateRequest } from './certificate-request.js'
import { humanDuration } from './duration.js'
import { keepZero, message } from './protobuf.js'

const opt = Type.Optional

/** Every key usage a request may name (x509 key usages and extended key usages, as upstream spells them). */
export const KEY_USAGES = [
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment',
  'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing',
  'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing',
  'microsoft sgc', 'netscape sgc'
]

export const CONDITION_TYPES = { approved: 'Approved', denied: 'Denied', failed: 'Failed' } as const
const CONDITION_STATUSES = ['True', 'False', 'Unknown']
/** The shortest lifetime a request may ask for: ten minutes. */
export const MIN_EXPIRATION_SECONDS = 600

const schema = objectSchema(`${GROUPS.certificates}/v1`, 'CertificateSigningRequest', {
  spec: opt(Type.Object({
    request: Type.String({ format: 'byte', description: 'A PEM-encoded PKCS#10 certificate request (base64 in JSON and YAML).' }),
    signerName: Type.String({ description: 'The signer the request is for: <domain>/<path>.' }),
    expirationSeconds: opt(Int32({ description: 'The requested lifetime of the certificate; at least 600.' })),
    usages: opt(AtomicList(Type.String(), { description: 'Key usages the certificate is requested for.' })),
    username: opt(Type.String({ description: 'The requester; set by the server.' })),
    uid: opt(Type.String({ description: 'The requester\'s uid; set by the server.' })),
    groups: opt(AtomicList(Type.String(), { description: 'The requester\'s groups; set by the server.' })),
    extra: opt(Type.Record(Type.String(), AtomicList(Type.String()), { description: 'The requester\'s extra attributes; set by the server.' }))
  }, { additionalProperties: false, ...message('CertificateSigningRequestSpec', {
    request: 1,
    signerName: 7,
    expirationSeconds: keepZero(8),
    usages: 5,
    username: 2,
    uid: 3,
    groups: 4,
    extra: { number: 6, listMessage: 'ExtraValue' }
  }) })),
  status: opt(Type.Object({
    conditions: opt(MapList(Type.Object({
      type: Type.String(),
      status: Type.String(),
      reason: opt(Type.String()),
      message: opt(Type.String()),
      lastUpdateTime: opt(Type.Union([Timestamp(), Type.Null()])),
      lastTransitionTime: opt(Type.Union([Timestamp(), Type.Null()]))
    }, { additionalProperties: false, ...message('CertificateSigningRequestCondition', { type: 1, status: 6, reason: 2, message: 3, lastUpdateTime: 4, lastTransitionTime: 5 }) }), ['type'])),
    certificate: opt(Type.String({ format: 'byte', 'x-kubernetes-list-type': 'atomic' }))
  }, { additionalProperties: false, ...message('CertificateSigningRequestStatus', { conditions: 1, certificate: 2 }) }))
}, 'CertificateSigningRequest objects provide a mechanism to obtain x509 certificates by submitting a certificate signing request, and having it asynchronously approved and issued.', { spec: 2, status: 3 })

type Csr = Record<string, any>
type Condition = Record<string, any>

const conditionsOf = (csr: Csr): Condition[] => Array.isArray(csr.status?.conditions) ? csr.status.conditions : []
export const hasCondition = (csr: Csr, type: string): boolean => conditionsOf(csr).some(c => c.type === type && c.status === 'True')
const decode = (b64: unknown): string => typeof b64 === 'string' ? Buffer.from(b64, 'base64').toString('latin1') : ''

function validateSignerName (name: unknown, field: string): FieldError[] {
  if (typeof name !== 'string' || name === '') return [fieldError('Required', field, undefined, '')]
  const slash = name.indexOf('/')
  if (slash < 0) return [fieldError('Invalid', field, name, 'must be a fully qualified domain and path of the form \'example.com/signer-name\'')]
  const domain = name.slice(0, slash)
  const path = name.slice(slash + 1)
  const errors: FieldError[] = []
  for (const p of dnsSubdomainProblems(domain)) errors.push(fieldError('Invalid', field, name, `the domain portion of the signerName ${p}`))
  if (path === '') errors.push(fieldError('Invalid', field, name, 'the path portion of the signerName must not be empty'))
  else if (path.length > 253) errors.push(fieldError('TooLong', field, name, 'may not be more than 253 characters'))
  return errors
}

function validateSpec (csr: Csr): FieldError[] {
  const spec = csr.spec ?? {}
  const errors: FieldError[] = []
  if (typeof spec.request !== 'string' || spec.request === '') errors.push(fieldError('Required', 'spec.request', undefined, ''))
  else if (!isBase64(spec.request)) errors.push(fieldError('Invalid', 'spec.request', '<request data>', 'must be base64-encoded'))
  else {
    const parsed = parseCertificateRequest(decode(spec.request))
    if ('error' in parsed) errors.push(fieldError('Invalid', 'spec.request', '<request data>', parsed.error))
  }
  errors.push(...validateSignerName(spec.signerName, 'spec.signerName'))
  if (spec.signerName === SIGNERS.legacyUnknown) errors.push(fieldError('Invalid', 'spec.signerName', spec.signerName, 'the legacy signerName is not allowed via this API version'))
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds < MIN_EXPIRATION_SECONDS) {
    errors.push(fieldError('Invalid', 'spec.expirationSeconds', spec.expirationSeconds, `may not specify a duration less than ${MIN_EXPIRATION_SECONDS} seconds (10 minutes)`))
  }
  const usages: unknown[] = spec.usages ?? []
  if (usages.length === 0) errors.push(fieldError('Required', 'spec.usages', undefined, 'usages must be provided'))
  const seen = new Set<unknown>()
  usages.forEach((u, i) => {
    if (!KEY_USAGES.includes(u as string)) errors.push({ type: 'NotSupported', field: `spec.usages[${i}]`, value: u, supported: KEY_USAGES })
    else if (seen.has(u)) errors.push(fieldError('Duplicate', `spec.usages[${i}]`, u))
    seen.add(u)
  })
  return errors
}

function validateStatus (csr: Csr): FieldError[] {
  const errors: FieldError[] = []
  const seen = new Set<string>()
  conditionsOf(csr).forEach((c, i) => {
    const field = `status.conditions[${i}]`
    if (typeof c.type !== 'string' || c.type === '') errors.push(fieldError('Required', `${field}.type`, undefined, ''))
    else if (seen.has(c.type)) errors.push(fieldError('Duplicate', `${field}.type`, c.type))
    seen.add(c.type)
    if (typeof c.status !== 'string' || c.status === '') errors.push(fieldError('Required', `${field}.status`, undefined, ''))
    else if ((Object.values(CONDITION_TYPES) as string[]).includes(c.type)) {
      if (c.status !== 'True') errors.push({ type: 'NotSupported', field: `${field}.status`, value: c.status, supported: ['True'] })
    } else if (!CONDITION_STATUSES.includes(c.status)) errors.push({ type: 'NotSupported', field: `${field}.status`, value: c.status, supported: CONDITION_STATUSES })
  })
  if (seen.has(CONDITION_TYPES.approved) && seen.has(CONDITION_TYPES.denied)) {
    errors.push(fieldError('Invalid', 'status.conditions', CONDITION_TYPES.approved, 'Approved and Denied conditions are mutually exclusive'))
  }
  const certificate = csr.status?.certificate
  if (typeof certificate === 'string' && certificate !== '') {
    const problem = isBase64(certificate) ? certificateProblem(decode(certificate)) : 'must be base64-encoded'
    if (problem !== undefined) errors.push(fieldError('Invalid', 'status.certificate', '<certificate data>', problem))
    else if (!seen.has(CONDITION_TYPES.approved)) errors.push(fieldError('Invalid', 'status.certificate', '<certificate data>', 'certificate can only be set if an Approved condition is present'))
  }
  return errors
}

function validateStatusUpdate (csr: Csr, old: Csr): FieldError[] {
  const errors: FieldError[] = []
  for (const type of Object.values(CONDITION_TYPES)) {
    if (hasCondition(old, type) && !hasCondition(csr, type)) errors.push(fieldError('Forbidden', 'status.conditions', undefined, `updates may not remove a condition of type "${type}"`))
  }
  const before = old.status?.certificate ?? ''
  if (before !== '' && (csr.status?.certificate ?? '') !== before) errors.push(fieldError('Forbidden', 'status.certificate', undefined, 'updates may not modify existing certificate content'))
  return errors
}

/** Conditions with their times filled: a new or changed one now, an unchanged one as it was. */
function stampConditions (conditions: Condition[] | undefined, old: Condition[]): Condition[] | undefined {
  if (!Array.isArray(conditions)) return conditions
  const now = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')
  return conditions.map(c => {
    const before = old.find(o => o.type === c.type)
    const out = { ...c }
    if (out.lastUpdateTime === undefined || out.lastUpdateTime === null) out.lastUpdateTime = now
    if (out.lastTransitionTime === undefined || out.lastTransitionTime === null) {
      out.lastTransitionTime = before !== undefined && before.status === c.status && before.lastTransitionTime != null ? before.lastTransitionTime : now
    }
    return out
  })
}

const isApprovalCondition = (c: Condition): boolean => c.type === CONDITION_TYPES.approved || c.type === CONDITION_TYPES.denied

/** /approval changes only the conditions; the certificate stays as stored. */
const approval: SubresourceDefinition<any> = {
  merge (incoming, existing) {
    const status: Csr = { ...(existing.status ?? {}), conditions: stampConditions(incoming.status?.conditions, conditionsOf(existing)) }
    if (status.conditions === undefined) delete status.conditions
    return { ...existing, status }
  }
}

/** /status sets the certificate and the signer's conditions (Failed); Approved and Denied stay as stored. */
const status: SubresourceDefinition<any> = {
  merge (incoming, existing) {
    const signerConditions = (incoming.status?.conditions ?? []).filter((c: Condition) => !isApprovalCondition(c))
    const conditions = [...conditionsOf(existing).filter(isApprovalCondition), ...(stampConditions(signerConditions, conditionsOf(existing)) ?? [])]
    const next: Csr = { ...(incoming.status ?? {}), conditions }
    if (conditions.length === 0) delete next.conditions
    return { ...existing, status: next }
  }
}

/** The requester is whoever sent the create, never what the body claims. */
function setRequester (csr: Csr, ctx: RequestContext): void {
  const spec = csr.spec ??= {}
  delete spec.username
  delete spec.uid
  delete spec.groups
  delete spec.extra
  const user = ctx.user
  if (user === undefined) return
  if (user.username !== '') spec.username = user.username
  if (user.uid !== undefined && user.uid !== '') spec.uid = user.uid
  if (user.groups.length > 0) spec.groups = [...user.groups]
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) spec.extra = structuredClone(user.extra)
}

/** The Condition column: Approved, Denied or Failed (comma-joined), else Pending; `,Issued` once signed. */
export function conditionText (csr: Csr): string {
  const types = conditionsOf(csr).filter(c => (Object.values(CONDITION_TYPES) as string[]).includes(c.type) && c.status === 'True').map(c => c.type as string)
  const text = types.length === 0 ? 'Pending' : types.join(',')
  return (csr.status?.certificate ?? '') !== '' ? `${text},Issued` : text
}

export default defineResource({
  group: GROUPS.certificates,
  version: 'v1',
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  singular: 'certificatesigningrequest',
  shortNames: ['csr'],
  scope: 'Cluster',
  schema,
  nameRule: 'PathSegment',
  subresources: { approval, status },
  strategy: {
    prepareForCreate (csr, ctx) {
      delete (csr as Csr).status
      setRequester(csr, ctx)
    },
    prepareForUpdate (csr, old) {
      csr.spec = old.spec
    },
    validate: (csr) => [...validateSpec(csr), ...validateStatus(csr)],
    validateUpdate: (csr, old) => validateStatusUpdate(csr, old)
  },
  columns: [
    AGE_COLUMN,
    { name: 'SignerName', type: 'string', description: 'The signer the request is for', value: (c: Csr) => c.spec?.signerName ?? '' },
    { name: 'Requestor', type: 'string', description: 'The user who made the request', value: (c: Csr) => c.spec?.username ?? '' },
    { name: 'RequestedDuration', type: 'string', description: 'The lifetime the request asks for', value: (c: Csr) => c.spec?.expirationSeconds === undefined ? '<none>' : humanDuration(c.spec.expirationSeconds * 1000) },
    { name: 'Condition', type: 'string', description: 'Approved, Denied, Failed or Pending, and Issued once signed', value: conditionText }
  ],
  fieldSelectors: { 'spec.signerName': (c: Csr) => c.spec?.signerName },
  example: {
    metadata: { name: 'example-serving' },
    spec: {
      request: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlJQkNUQ0JzUUlCQURBZU1Sd3dHZ1lEVlFRRERCTmxlR0Z0Y0d4bExtUmxabUYxYkhRdWMzWmpNRmt3RXdZSApLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFbllXZ2x2VkI3S1lxdU1NdmVRMTFDV2xFb3BUNzlNM1ZZT1RJCkg0RGdsUDJJYndZL3JraWNMV082Y1hPdTBlR1Q5MFBsS2srMmhGY2dnTVRiK0VwK3RhQXhNQzhHQ1NxR1NJYjMKRFFFSkRqRWlNQ0F3SGdZRFZSMFJCQmN3RllJVFpYaGhiWEJzWlM1a1pXWmhkV3gwTG5OMll6QUtCZ2dxaGtqTwpQUVFEQWdOSEFEQkVBaUEvdXhyOWRpN1ZkV2pDb0VlYmFmZ0JxRHFFa2hpbkw3Mnd3MGNuS0djRDdBSWdUMnpzClNSeEZtYUN6TlR3WW5ISTFpYzdqVlU4Y2VVRTlkUEtQMnFMRDVJVT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==',
      signerName: 'example.com/serving',
      usages: ['digital signature', 'key encipherment', 'server auth']
    },
    status: { conditions: [{ type: 'Failed', status: 'True', reason: 'SignerUnavailable', message: 'the example signer is not running' }] }
  }
})
