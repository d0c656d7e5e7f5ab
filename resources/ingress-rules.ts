// The networking group's validation rules, worded as the reference server words them: hosts
// (wildcards only as the first label), HTTP paths by path type, backends, port names and the
// domain-prefixed paths that name ingress controllers.
import { isIP } from 'node:net'
import type { FieldError } from './status.js'
import { dns1035LabelProblems, dnsSubdomainProblems, invalidEach, pathSegmentProblems, portNameProblems } from './validation.js'

export const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix']
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F']
const INVALID_PATH_SUFFIXES = ['/..', '/.']

const SUBDOMAIN_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'
const WILDCARD_FMT = `\\*\\.${SUBDOMAIN_FMT}`
const WILDCARD = new RegExp(`^${WILDCARD_FMT}$`)
const WILDCARD_MSG = `a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '${WILDCARD_FMT}')`


const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+"
const HTTP_PATH = new RegExp(`^${HTTP_PATH_FMT}$`)

/** A host with a `*` in it: `*.` then a DNS subdomain, nothing else. */
export function wildcardSubdomainProblems (value: string): string[] {
  const out: string[] = []
  if (value.length > 253) out.push('must be no more than 253 characters')
  if (!WILDCARD.test(value)) out.push(WILDCARD_MSG)
  return out
}

const validPort = (n: unknown): boolean => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 65535

/** `<DNS subdomain>/<path>`, as ingress controllers are named (`example.com/ingress-controller`). */
export function validateDomainPrefixedPath (value: string, field: string): FieldError[] {
  if (value === '') return [{ type: 'Required', field }]
  const slash = value.indexOf('/')
  const host = slash < 0 ? value : value.slice(0, slash)
  const path = slash < 0 ? '' : value.slice(slash + 1)
  if (slash < 0 || host === '' || path === '') return [{ type: 'Invalid', field, value, detail: 'must be a domain-prefixed path (such as "acme.io/foo")' }]
  const errors = invalidEach(field, host, dnsSubdomainProblems(host))
  if (!HTTP_PATH.test(path)) errors.push({ type: 'Invalid', field, value: path, detail: `Invalid path (regex used for validation is '${HTTP_PATH_FMT}')` })
  return errors
}

/** A rule's or a TLS entry's host: a DNS subdomain, or one with `*.` as its first label. */
export function hostProblems (host: string): string[] {
  return host.includes('*') ? wildcardSubdomainProblems(host) : dnsSubdomainProblems(host)
}

export function validateRuleHost (host: string, field: string): FieldError[] {
  const errors: FieldError[] = []
  if (isIP(host) !== 0) errors.push({ type: 'Invalid', field, value: host, detail: 'must be a DNS name, not an IP address' })
  errors.push(...invalidEach(field, host, hostProblems(host)))
  return errors
}

export function validateHttpPath (p: Record<string, any>, field: string): FieldError[] {
  const errors: FieldError[] = []
  if (p.pathType === undefined || p.pathType === null) return [{ type: 'Required', field: `${field}.pathType`, detail: 'pathType must be specified' }]
  const path: string = p.path ?? ''
  const at = `${field}.path`
  if (p.pathType === 'Exact' || p.pathType === 'Prefix') {
    if (!path.startsWith('/')) errors.push({ type: 'Invalid', field: at, value: path, detail: 'must be an absolute path' })
    for (const seq of INVALID_PATH_SEQUENCES) if (path.includes(seq)) errors.push({ type: 'Invalid', field: at, value: path, detail: `must not contain '${seq}'` })
    for (const suffix of INVALID_PATH_SUFFIXES) if (path.endsWith(suffix)) errors.push({ type: 'Invalid', field: at, value: path, detail: `cannot end with '${suffix}'` })
  } else if (p.pathType === 'ImplementationSpecific') {
    if (path !== '' && !path.startsWith('/')) errors.push({ type: 'Invalid', field: at, value: path, detail: 'must be an absolute path' })
  } else {
    errors.push({ type: 'NotSupported', field: `${field}.pathType`, value: p.pathType, supported: PATH_TYPES })
  }
  errors.push(...validateBackend(p.backend ?? {}, `${field}.backend`))
  return errors
}

/** A typed reference to an object in the same namespace (a resource backend, class parameters). */
export function validateTypedReference (ref: Record<string, any>, field: string): FieldError[] {
  const errors: FieldError[] = []
  if (typeof ref.apiGroup === 'string') errors.push(...invalidEach(`${field}.apiGroup`, ref.apiGroup, dnsSubdomainProblems(ref.apiGroup)))
  for (const part of ['kind', 'name'] as const) {
    const v = ref[part] ?? ''
    if (v === '') errors.push({ type: 'Required', field: `${field}.${part}` })
    else errors.push(...invalidEach(`${field}.${part}`, v, pathSegmentProblems(v)))
  }
  return errors
}

/** Exactly one of a Service (name, and a port number or name) or a resource. */
export function validateBackend (b: Record<string, any>, field: string): FieldError[] {
  const hasResource = b.resource !== undefined && b.resource !== null
  const hasService = b.service !== undefined && b.service !== null
  if (hasResource && hasService) return [{ type: 'Invalid', field, value: '', detail: 'cannot set both resource and service backends' }]
  if (hasResource) return validateTypedReference(b.resource, `${field}.resource`)
  if (!hasService) return [{ type: 'Invalid', field, value: '', detail: 'resource or service backend is required' }]
  const errors: FieldError[] = []
  const name: string = b.service.name ?? ''
  if (name === '') errors.push({ type: 'Required', field: `${field}.service.name` })
  else errors.push(...invalidEach(`${field}.service.name`, name, dns1035LabelProblems(name)))
  const portName: string = b.service.port?.name ?? ''
  const portNumber: number = b.service.port?.number ?? 0
  if (portName !== '' && portNumber !== 0) errors.push({ type: 'Invalid', field, value: '', detail: 'cannot set both port name & port number' })
  else if (portName !== '') errors.push(...invalidEach(`${field}.service.port.name`, portName, portNameProblems(portName)))
  else if (portNumber !== 0) {
    if (!validPort(portNumber)) errors.push({ type: 'Invalid', field: `${field}.service.port.number`, value: portNumber, detail: 'must be between 1 and 65535, inclusive' })
  } else errors.push({ type: 'Required', field, detail: 'port name or number is required' })
  return errors
}
