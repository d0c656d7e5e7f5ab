// Validation rules shared by many kinds, worded as the reference server words them.
import { isDeepStrictEqual } from 'node:util'
import type { FieldError } from './status.js'
import { isIPv6 } from 'node:net'
import { parseGoUrl } from './go-url.js'

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/

const LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
const SUBDOMAIN_MSG = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const QUALIFIED_MSG = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
const LABEL_VALUE_MSG = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
const CONFIG_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"

/** Problems with a DNS-1123 label (at most 63 characters), as message strings. */
export function dnsLabelProblems (value: string): string[] {
  const out: string[] = []
  if (value.length > 63) out.push('must be no more than 63 characters')
  if (!DNS1123_LABEL.test(value)) out.push(LABEL_MSG)
  return out
}

export function dnsSubdomainProblems (value: string): string[] {
  const out: string[] = []
  if (value.length > 253) out.push('must be no more than 253 characters')
  if (!DNS1123_SUBDOMAIN.test(value)) out.push(SUBDOMAIN_MSG)
  return out
}

/** Names that only have to be usable as one path segment (RBAC objects). */
export function pathSegmentProblems (value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`]
  for (const bad of ['/', '%']) if (value.includes(bad)) return [`may not contain '${bad}'`]
  return []
}

/** A qualified name (`prefix/name`), as label and annotation keys are. */
export function qualifiedNameProblems (value: string): string[] {
  const parts = value.split('/')
  let name = value
  const out: string[] = []
  if (parts.length === 2) {
    const [prefix, rest] = parts as [string, string]
    name = rest
    if (prefix.length === 0) out.push('prefix part must be non-empty')
    else for (const p of dnsSubdomainProblems(prefix)) out.push(`prefix part ${p}`)
  } else if (parts.length > 2) {
    return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
  }
  if (name.length === 0) out.push('name part must be non-empty')
  else {
    if (name.length > 63) out.push('name part must be no more than 63 characters')
    if (!QUALIFIED_NAME.test(name)) out.push(QUALIFIED_MSG)
  }
  return out
}

export function labelValueProblems (value: string): string[] {
  const out: string[] = []
  if (value.length > 63) out.push('must be no more than 63 characters')
  if (!LABEL_VALUE.test(value)) out.push(LABEL_VALUE_MSG)
  return out
}

export function configKeyProblems (key: string): string[] {
  const out: string[] = []
  if (key.length > 253) out.push('must be no more than 253 characters')
  if (!CONFIG_KEY.test(key)) out.push(CONFIG_KEY_MSG)
  if (key === '.') out.push("must not be '.'")
  else if (key === '..') out.push("must not be '..'")
  else if (key.startsWith('..')) out.push("must not start with '..'")
  return out
}

/** One FieldError per problem, in the reference server's shape. */
export const invalidEach = (field: string, value: unknown, problems: string[]): FieldError[] =>
  problems.map(detail => ({ type: 'Invalid', field, value, detail }))

export function validateLabels (labels: Record<string, string> | undefined, field: string): FieldError[] {
  const out: FieldError[] = []
  for (const [k, v] of Object.entries(labels ?? {})) {
    out.push(...invalidEach(field, k, qualifiedNameProblems(k)))
    out.push(...invalidEach(`${field}[${k}]`, v, labelValueProblems(v)))
  }
  return out
}

const TOTAL_ANNOTATION_SIZE = 256 * 1024

export function validateAnnotations (annotations: Record<string, string> | undefined, field: string): FieldError[] {
  const out: FieldError[] = []
  let size = 0
  for (const [k, v] of Object.entries(annotations ?? {})) {
    out.push(...invalidEach(field, k, qualifiedNameProblems(k.toLowerCase())))
    size += Buffer.byteLength(k) + Buffer.byteLength(v)
  }
  if (size > TOTAL_ANNOTATION_SIZE) out.push({ type: 'TooLong', field, detail: `must have at most ${TOTAL_ANNOTATION_SIZE} bytes` })
  return out
}

/** Keys of data maps (ConfigMap, Secret). */
export function validateConfigKeys (map: Record<string, unknown> | undefined, field: string): FieldError[] {
  const out: FieldError[] = []
  for (const k of Object.keys(map ?? {})) out.push(...invalidEach(`${field}[${k}]`, k, configKeyProblems(k)))
  return out
}

export const isDnsLabel = (v: string): boolean => dnsLabelProblems(v).length === 0
export const isDnsSubdomain = (v: string): boolean => dnsSubdomainProblems(v).length === 0

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Standard base64 with padding (RFC 4648 section 4), as byte fields are encoded in JSON. */
export const isBase64 = (v: string): boolean => BASE64.test(v)

/** Decoded size of a base64 string without decoding it. */
export const base64Size = (v: string): number => Math.floor(v.length * 3 / 4) - (v.endsWith('==') ? 2 : v.endsWith('=') ? 1 : 0)

/** Field errors for byte-valued maps whose values are not valid base64. */
export function validateBase64Values (map: Record<string, string> | undefined, field: string): FieldError[] {
  const out: FieldError[] = []
  for (const [k, v] of Object.entries(map ?? {})) {
    if (!isBase64(v)) out.push({ type: 'Invalid', field: `${field}[${k}]`, value: '<value omitted>', detail: 'illegal base64 data' })
  }
  return out
}

/** The reference server's limit on the total size of a ConfigMap's or Secret's data. */
export const MAX_DATA_SIZE = 1024 * 1024

export const IMMUTABLE_DETAIL = 'field is immutable when `immutable` is set'

/** Immutable data maps and the flag itself, shared by ConfigMap and Secret. */
export function validateImmutable (obj: { immutable?: boolean }, old: { immutable?: boolean }, dataFields: string[]): FieldError[] {
  if (old.immutable !== true) return []
  const errors: FieldError[] = []
  if (obj.immutable !== true) errors.push({ type: 'Forbidden', field: 'immutable', detail: IMMUTABLE_DETAIL })
  for (const f of dataFields) {
    if (!isDeepStrictEqual((obj as Record<string, unknown>)[f] ?? {}, (old as Record<string, unknown>)[f] ?? {})) {
      errors.push({ type: 'Forbidden', field: f, detail: IMMUTABLE_DETAIL })
    }
  }
  return errors
}

const DNS1035_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?'
const DNS1035 = new RegExp(`^${DNS1035_FMT}$`)
const DNS1035_MSG = `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_FMT}')`

/** A DNS-1035 label (starts with a letter), as Services are named. */
export function dns1035LabelProblems (value: string): string[] {
  const out: string[] = []
  if (value.length > 63) out.push('must be no more than 63 characters')
  if (!DNS1035.test(value)) out.push(DNS1035_MSG)
  return out
}

/** An IANA service name, as ports are named. */
export function portNameProblems (port: string): string[] {
  const out: string[] = []
  if (port.length > 15) out.push('must be no more than 15 characters')
  if (!/^[-a-z0-9]+$/.test(port)) out.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)')
  if (!/[a-z]/.test(port)) out.push('must contain at least one letter (a-z)')
  if (port.includes('--')) out.push('must not contain consecutive hyphens')
  if (port.startsWith('-') || port.endsWith('-')) out.push('must not begin or end with a hyphen')
  return out
}

const WEBHOOK_URL_FORM = '; desired format: https://host[/path]'

/** ValidateWebhookURL: an https URL with a host, and no user information, query or fragment. */
export function validateWebhookURL (field: string, raw: string, forceHttps: boolean): FieldError[] {
  const parsed = parseGoUrl(raw)
  if (parsed.error !== undefined) return [{ type: 'Required', field, detail: `url must be a valid URL: ${parsed.error}${WEBHOOK_URL_FORM}` }]
  const u = parsed.url
  const errors: FieldError[] = []
  if (forceHttps && u.scheme !== 'https') errors.push({ type: 'Invalid', field, value: u.scheme, detail: `'https' is the only allowed URL scheme${WEBHOOK_URL_FORM}` })
  if (u.host === '') errors.push({ type: 'Invalid', field, value: u.host, detail: `host must be specified${WEBHOOK_URL_FORM}` })
  if (u.user !== undefined) errors.push({ type: 'Invalid', field, value: u.user, detail: 'user information is not permitted in the URL' })
  if (u.fragment !== '') errors.push({ type: 'Invalid', field, value: u.fragment, detail: 'fragments are not permitted in the URL' })
  if (u.rawQuery !== '') errors.push({ type: 'Invalid', field, value: u.rawQuery, detail: 'query parameters are not permitted in the URL' })
  return errors
}

/**
 * ValidateWebhookService: a service reference's name, namespace, port, and a path whose
 * segments are DNS subdomains. `path` undefined is a path left out.
 */
export function validateWebhookService (field: string, namespace: string, name: string, path: string | undefined, port: number): FieldError[] {
  const errors: FieldError[] = []
  if (name === '') errors.push({ type: 'Required', field: `${field}.name` })
  if (namespace === '') errors.push({ type: 'Required', field: `${field}.namespace` })
  if (!Number.isInteger(port) || port < 1 || port > 65535) errors.push({ type: 'Invalid', field: `${field}.port`, value: port, detail: 'port is not valid: must be between 1 and 65535, inclusive' })
  if (path === undefined || path === '/' || path === '') return errors
  const at = `${field}.path`
  if (path === '//') return [...errors, { type: 'Invalid', field: at, value: path, detail: 'segment[0] may not be empty' }]
  if (!path.startsWith('/')) errors.push({ type: 'Invalid', field: at, value: path, detail: "must start with a '/'" })
  let toCheck = path.slice(1)
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1)
  toCheck.split('/').forEach((step, i) => {
    if (step === '') errors.push({ type: 'Invalid', field: at, value: path, detail: `segment[${i}] may not be empty` })
    else for (const p of dnsSubdomainProblems(step)) errors.push({ type: 'Invalid', field: at, value: path, detail: `segment[${i}]: ${p}` })
  })
  return errors
}

const CIDR_MSG = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'

/** An IPv4 address as Go's parser before 1.17 read it (k8s.io/utils ParseIPSloppy): octets may have leading zeros. */
const isSloppyIPv4 = (text: string): boolean => {
  const octets = text.split('.')
  return octets.length === 4 && octets.every(o => /^\d+$/.test(o) && Number(o) <= 255)
}

/**
 * IsValidCIDR as the reference server's fields with historical values read it
 * (netutils.ParseCIDRSloppy): an address, `/`, and a decimal prefix length that fits it.
 */
export function cidrProblems (value: string): string[] {
  const slash = value.indexOf('/')
  if (slash < 0) return [CIDR_MSG]
  const address = value.slice(0, slash)
  const length = value.slice(slash + 1)
  const bits = isSloppyIPv4(address) ? 32 : !address.includes('%') && isIPv6(address) ? 128 : 0
  if (bits === 0 || !/^\d+$/.test(length) || Number(length) > bits) return [CIDR_MSG]
  return []
}
