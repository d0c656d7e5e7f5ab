// AdmissionReview (admission.svc.io v1 and v1beta1): the request a webhook receives, with every
// field of the spec's table, and the checks its answer must pass to count as an answer.
import type { AdmissionAttributes } from '../chain.js'
import { GROUPS } from '../../resources/naming.js'
import { SUPPORTED_REVIEW_VERSIONS } from '../../resources/webhook-configuration.js'

type AnyObject = Record<string, any>

export interface ReviewResponse {
  uid: string
  allowed: boolean
  status?: { code?: number, message?: string, reason?: string, details?: AnyObject }
  patch?: string
  patchType?: string
  warnings?: string[]
  auditAnnotations?: Record<string, string>
}

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

/** The object as the webhook registered for it: in an equivalent group, its apiVersion says so. */
export function convertedTo (obj: AnyObject | undefined, group: string, version: string): AnyObject | undefined {
  if (obj === undefined) return undefined
  const apiVersion = group === '' ? version : `${group}/${version}`
  return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion }
}

/** `group` is the one the webhook registered: the resource's own, or an equivalent one under matchPolicy Equivalent. */
export function reviewRequest (a: AdmissionAttributes, uid: string, version: string, group = a.resource.group): AnyObject {
  const r = a.resource
  const kind = { group, version: r.version, kind: r.kind }
  const resource = { group, version: r.version, resource: r.plural }
  const object = convertedTo(a.object, group, r.version)
  const oldObject = convertedTo(a.oldObject, group, r.version)
  const request: AnyObject = {
    uid,
    kind,
    resource,
    ...(a.subresource === '' ? {} : { subResource: a.subresource }),
    requestKind: { group: r.group, version: r.version, kind: r.kind },
    requestResource: { group: r.group, version: r.version, resource: r.plural },
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

/** The response of a review, or an Error saying why the answer is not one. */
export function reviewResponse (body: unknown, sent: AnyObject): ReviewResponse {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('the webhook answered something that is not an AdmissionReview')
  const review = body as AnyObject
  if (review.apiVersion !== sent.apiVersion || review.kind !== 'AdmissionReview') {
    throw new Error(`expected webhook response of ${String(sent.apiVersion)}, Kind=AdmissionReview, got ${String(review.apiVersion)}, Kind=${String(review.kind)}`)
  }
  const response = review.response as AnyObject | undefined
  if (typeof response !== 'object' || response === null) throw new Error('webhook response was absent')
  if (response.uid !== sent.request.uid) throw new Error(`expected response.uid="${String(sent.request.uid)}", got "${String(response.uid)}"`)
  if (typeof response.allowed !== 'boolean') throw new Error('webhook response.allowed must be a boolean')
  if (response.patch !== undefined && response.patch !== null) {
    if (response.patchType === undefined || response.patchType === null) throw new Error('webhook returned response.patch but not response.patchType')
    if (response.patchType !== 'JSONPatch') throw new Error(`webhook returned invalid response.patchType of "${String(response.patchType)}"`)
    if (typeof response.patch !== 'string') throw new Error('webhook returned a response.patch that is not base64 text')
  }
  if (response.warnings !== undefined && response.warnings !== null && (!Array.isArray(response.warnings) || response.warnings.some((w: unknown) => typeof w !== 'string'))) {
    throw new Error('webhook response.warnings must be a list of strings')
  }
  return response as ReviewResponse
}
