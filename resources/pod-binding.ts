// pods/binding: how a scheduler places a pod. A Binding names the node; the pod takes it once
// (spec.nodeName set, the Binding's annotations added, the PodScheduled condition True), as the
// reference's BindingREST does it: refused with 409 when the pod is bound already, is being
// deleted, or still has scheduling gates.
import type { AnyObject, SubresourceDefinition } from './define.js'
import { badRequest, conflict, invalid, type FieldError } from './status.js'
import { validateAnnotations } from './validation.js'

const BINDING_ERRORS = { group: '', resource: 'pods/binding' }
const PODS = { group: '', resource: 'pods' }

/** ValidatePodBinding. */
function bindingProblems (binding: AnyObject): FieldError[] {
  const errors: FieldError[] = []
  const kind = binding.target?.kind ?? ''
  const node = binding.target?.name ?? ''
  if (typeof kind !== 'string') errors.push({ type: 'Invalid', field: 'target.kind', value: kind, detail: 'must be a string' })
  else if (kind !== '' && kind !== 'Node') errors.push({ type: 'NotSupported', field: 'target.kind', value: kind, supported: ['Node', '<empty>'] })
  if (typeof node !== 'string') errors.push({ type: 'Invalid', field: 'target.name', value: node, detail: 'must be a string' })
  else if (node === '') errors.push({ type: 'Required', field: 'target.name' })
  // A Binding is not checked against a schema on its way in: what it writes into the pod is checked here.
  const annotations = binding.metadata?.annotations ?? {}
  if (typeof annotations !== 'object' || Array.isArray(annotations) || Object.values(annotations).some(v => typeof v !== 'string')) {
    errors.push({ type: 'Invalid', field: 'metadata.annotations', value: annotations, detail: 'must be a map of strings' })
  } else errors.push(...validateAnnotations(annotations, 'metadata.annotations'))
  return errors
}

/** The pod bound to the Binding's node, or why it cannot be (the reference's setPodHostAndAnnotations). */
function bound (binding: AnyObject, pod: AnyObject): AnyObject {
  const name = String(pod.metadata.name)
  if (binding.metadata?.name !== name) throw badRequest('name in URL does not match name in Binding object')
  const problems = bindingProblems(binding)
  if (problems.length > 0) throw invalid({ group: '', kind: 'Binding' }, name, problems)
  const uid = binding.metadata?.uid ?? ''
  if (uid !== '' && uid !== pod.metadata.uid) throw conflict(PODS, name, `Precondition failed: UID in precondition: ${String(uid)}, UID in object meta: ${String(pod.metadata.uid)}`)
  const rv = binding.metadata?.resourceVersion ?? ''
  if (rv !== '' && rv !== pod.metadata.resourceVersion) throw conflict(PODS, name, `Precondition failed: ResourceVersion in precondition: ${String(rv)}, ResourceVersion in object meta: ${String(pod.metadata.resourceVersion)}`)
  if (pod.metadata.deletionTimestamp != null) throw conflict(BINDING_ERRORS, name, `pod ${name} is being deleted, cannot be assigned to a host`)
  if ((pod.spec?.nodeName ?? '') !== '') throw conflict(BINDING_ERRORS, name, `pod ${name} is already assigned to node ${JSON.stringify(pod.spec.nodeName)}`)
  if ((pod.spec?.schedulingGates ?? []).length > 0) throw conflict(BINDING_ERRORS, name, `pod ${name} has non-empty .spec.schedulingGates`)
  pod.spec = { ...pod.spec, nodeName: binding.target.name }
  const annotations = binding.metadata?.annotations ?? {}
  if (Object.keys(annotations).length > 0) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...annotations }
  const conditions: AnyObject[] = [...(pod.status?.conditions ?? [])]
  const at = conditions.findIndex(c => c.type === 'PodScheduled')
  const was = at === -1 ? undefined : conditions[at]
  const scheduled = {
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: was?.status === 'True' ? was.lastTransitionTime : new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')
  }
  if (at === -1) conditions.push(scheduled)
  else conditions[at] = scheduled
  pod.status = { ...(pod.status ?? {}), conditions }
  return pod
}

export const bindingSubresource: SubresourceDefinition = {
  requestKind: { apiVersion: 'v1', kind: 'Binding' },
  verbs: ['create'],
  changeParent: (binding, pod) => bound(binding, pod)
}
