// AdmissionReview (admission.svc.io v1 and v1beta1): the request a webhook receives, with every
// field of the spec's table (its answer is read in answer.ts).
import type { AdmissionAttributes } from '../../resources/admission.js'
import { GROUPS } from '../../resources/naming.js'
import { admittedView, requestFormOf, toForm, viewKind, type ResourceForm } from '../../resources/resource-forms.js'
import { SUPPORTED_REVIEW_VERSIONS } from '../../resources/webhook-configuration.js'

type AnyObject = Record<string, any>

/** The first version of the webhook's list this server speaks. */
export function reviewVersion (webhook: AnyObject): string | undefined {
  return (webhook.admissionReviewVersions as string[] | undefined ?? []).find(v => (SUPPORTED_REVIEW_VERSIONS as readonly string[]).includes(v))
}

/** The operation's options, as the reference server sends them (a PATCH's become UpdateOptions). */
function options (a: AdmissionAttributes): AnyObject | null {
  const kind = a.operation === 'CREATE' ? 'CreateOptions' : a.operation === 'UPDATE' ? 'UpdateOptions' : a.operation === 'DELETE' ? 'DeleteOptions' : undefined
  if (kind === undefined) return null
  const o: AnyObject = { kind, apiVersion: `${GROUPS.meta}/v1` }
  if (a.dryRun) o.dryRun = ['All']
  if (a.operation !== 'DELETE' && a.fieldManager !== undefined) o.fieldManager = a.fieldManager
  return o
}

/** The request's objects already in the webhook's form (converted out of process, by a CRD's conversion webhook). */
export interface Shown { object: AnyObject | undefined, oldObject: AnyObject | undefined }

/** `form` is the one the webhook's rules matched: the request's own, or an equivalent one under matchPolicy Equivalent. */
export function reviewRequest (a: AdmissionAttributes, uid: string, version: string, form: ResourceForm = requestFormOf(a), shown?: Shown): AnyObject {
  const requested = requestFormOf(a)
  // Through a subresource served as another kind (a Scale) the objects are that kind's, in no form of the parent's.
  const view = admittedView(a)
  const kind = view !== undefined ? viewKind(view) : { group: form.group, version: form.version, kind: form.kind }
  const resource = { group: form.group, version: form.version, resource: form.resource }
  const object = shown !== undefined ? shown.object : a.object === undefined || view !== undefined ? a.object : toForm(a.object, form)
  const oldObject = shown !== undefined ? shown.oldObject : a.oldObject === undefined || view !== undefined ? a.oldObject : toForm(a.oldObject, form)
  const request: AnyObject = {
    uid,
    kind,
    resource,
    ...(a.subresource === '' ? {} : { subResource: a.subresource }),
    requestKind: view !== undefined ? viewKind(view) : { group: requested.group, version: requested.version, kind: requested.kind },
    requestResource: { group: requested.group, version: requested.version, resource: requested.resource },
    ...(a.subresource === '' ? {} : { requestSubResource: a.subresource }),
    ...(a.name === '' ? {} : { name: a.name }),
    ...(a.namespace === '' ? {} : { namespace: a.namespace }),
    operation: a.operation,
    userInfo: {
      username: a.user.username,
      ...(a.user.uid === undefined || a.user.uid === '' ? {} : { uid: a.user.uid }),
      ...(a.user.groups.length === 0 ? {} : { groups: a.user.groups }),
      ...(a.user.extra === undefined || Object.keys(a.user.extra).length === 0 ? {} : { extra: a.user.extra })
    },
    object: a.operation === 'DELETE' || object === undefined ? null : object,
    oldObject: a.operation === 'CREATE' || a.operation === 'CONNECT' || oldObject === undefined ? null : oldObject,
    dryRun: a.dryRun,
    options: options(a)
  }
  return { kind: 'AdmissionReview', apiVersion: `${GROUPS.admission}/${version}`, request }
}
