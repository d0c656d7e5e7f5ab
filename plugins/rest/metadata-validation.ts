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
  ;(meta.finalizers ?? []).forEach((f: string, i: number) => {
    errors.push(...invalidEach(`metadata.finalizers[${i}]`, f, qualifiedNameProblems(f)))
  })
  const finalizers: string[] = Array.isArray(meta.finalizers) ? meta.finalizers : []
  if (finalizers.includes(GC_FINALIZERS.orphan) && finalizers.includes(GC_FINALIZERS.foreground)) {
    errors.push({ type: 'Invalid', field: 'metadata.finalizers', value: finalizers, detail: `finalizer ${GC_FINALIZERS.orphan} and ${GC_FINALIZERS.foreground} cannot be both set` })
  }
  const owners: AnyObject[] = meta.ownerReferences ?? []
  owners.forEach((o: AnyObject, i: number) => {
    for (const f of ['apiVersion', 'kind', 'name', 'uid']) {
      if (typeof o[f] !== 'string' || o[f] === '') errors.push({ type: 'Required', field: `metadata.ownerReferences[${i}].${f}` })
    }
  })
  const [first, ...others] = owners.filter(o => o?.controller === true).map(o => `${String(o.kind)}/${String(o.name)}`)
  for (const other of others) {
    errors.push({ type: 'Invalid', field: 'metadata.ownerReferences', value: owners, detail: `Only one reference can have Controller set to true. Found "true" in references for ${first} and ${other}` })
  }
  return errors
}
