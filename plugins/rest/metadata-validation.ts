// The metadata rules every kind shares (ObjectMeta validation), ahead of the kind's own.
import type { FieldError } from '../../resources/status.js'
import { GC_FINALIZERS, type AnyObject, type Resource } from '../../resources/define.js'
import { validateAnnotations, validateLabels, dnsLabelProblems, dnsSubdomainProblems, pathSegmentProblems, qualifiedNameProblems, invalidEach } from '../../resources/validation.js'

export function validateMetadata (resource: Resource, obj: AnyObject, isCreate: boolean): FieldError[] {
  const meta = obj.metadata ?? {}
  const errors: FieldError[] = []
  if (typeof meta.name !== 'string' || meta.name === '') {
    errors.push({ type: 'Required', field: 'metadata.name', detail: isCreate ? 'name or generateName is required' : undefined })
  } else {
    const rule = resource.nameRule
    if (typeof rule === 'function') {
      for (const p of rule(meta.name)) errors.push({ type: p.type, field: 'metadata.name', value: meta.name, detail: p.detail })
    } else {
      const problems = rule === 'DNSLabel' ? dnsLabelProblems(meta.name)
        : rule === 'PathSegment' ? pathSegmentProblems(meta.name) : dnsSubdomainProblems(meta.name)
      errors.push(...invalidEach('metadata.name', meta.name, problems))
    }
  }
  if (resource.namespaced && (typeof meta.namespace !== 'string' || meta.namespace === '')) errors.push({ type: 'Required', field: 'metadata.namespace' })
  errors.push(...validateLabels(meta.labels ?? undefined, 'metadata.labels'))
  errors.push(...validateAnnotations(meta.annotations ?? undefined, 'metadata.annotations'))
  errors.push(...validateOwnerReferences(meta.ownerReferences ?? [], 'metadata.ownerReferences'))
  ;(meta.finalizers ?? []).forEach((f: string, i: number) => {
    errors.push(...invalidEach(`metadata.finalizers[${i}]`, f, qualifiedNameProblems(f)))
  })
  const finalizers: string[] = Array.isArray(meta.finalizers) ? meta.finalizers : []
  if (finalizers.includes(GC_FINALIZERS.orphan) && finalizers.includes(GC_FINALIZERS.foreground)) {
    errors.push({ type: 'Invalid', field: 'metadata.finalizers', value: finalizers, detail: `finalizer ${GC_FINALIZERS.orphan} and ${GC_FINALIZERS.foreground} cannot be both set` })
  }
  return errors
}

/** Kinds that may not own objects (BannedOwners): events come and go and must not take dependents with them. */
const BANNED_OWNERS = new Set(['/v1, Kind=Event'])

/** A group/version string as schema.ParseGroupVersion reads it; undefined when it has more than one '/'. */
function parseGroupVersion (apiVersion: string): { group: string, version: string } | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' }
  const parts = apiVersion.split('/')
  if (parts.length > 2) return undefined
  return parts.length === 1 ? { group: '', version: apiVersion } : { group: parts[0]!, version: parts[1]! }
}

/** ValidateOwnerReferences: its paths name the list, not the entry, as the reference's do. */
function validateOwnerReferences (owners: AnyObject[], field: string): FieldError[] {
  const errors: FieldError[] = []
  let firstController = ''
  for (const o of owners) {
    const apiVersion = String(o.apiVersion ?? '')
    const kind = String(o.kind ?? '')
    const gv = parseGroupVersion(apiVersion) ?? { group: '', version: '' }
    if (gv.version === '') errors.push({ type: 'Invalid', field: `${field}.apiVersion`, value: apiVersion, detail: 'version must not be empty' })
    if (kind === '') errors.push({ type: 'Invalid', field: `${field}.kind`, value: kind, detail: 'must not be empty' })
    if ((o.name ?? '') === '') errors.push({ type: 'Invalid', field: `${field}.name`, value: o.name ?? '', detail: 'must not be empty' })
    if ((o.uid ?? '') === '') errors.push({ type: 'Invalid', field: `${field}.uid`, value: o.uid ?? '', detail: 'must not be empty' })
    const gvk = `${gv.group}/${gv.version}, Kind=${kind}`
    if (BANNED_OWNERS.has(gvk)) errors.push({ type: 'Invalid', field, value: o, detail: `${gvk} is disallowed from being an owner` })
    if (o.controller === true) {
      const current = `${kind}/${String(o.name ?? '')}`
      if (firstController !== '') {
        errors.push({ type: 'Invalid', field, value: owners, detail: `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}` })
      } else firstController = current
    }
  }
  return errors
}
