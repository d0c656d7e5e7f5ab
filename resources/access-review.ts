// What the access-review kinds share: their schemas, validation and how a review's spec becomes
// authorization attributes and its answer a status.
import { Type } from '@sinclair/typebox'
import { badRequest, invalid, type FieldError } from './status.js'
import type { AnyObject, VirtualContext } from './define.js'
import type { Attributes } from './authorization.js'
import type { UserInfo } from './user-info.js'
import { GROUPS } from './naming.js'
import { objectSchema } from './meta.js'
import { keepZero, message } from './protobuf.js'

const Str = () => Type.Optional(Type.String())

// The typed forms of the selectors a ResourceAttributes carries: JSON takes any object there;
// the protobuf form has these messages.
const SelectorRequirement = (name: string) => Type.Object({ key: Type.String(), operator: Type.String(), values: Type.Optional(Type.Array(Type.String())) }, message(name, { key: 1, operator: 2, values: 3 }))
const FieldSelectorAttributes = Type.Object({ rawSelector: Str(), requirements: Type.Optional(Type.Array(SelectorRequirement('FieldSelectorRequirement'))) }, message('FieldSelectorAttributes', { rawSelector: 1, requirements: 2 }))
const LabelSelectorAttributes = Type.Object({ rawSelector: Str(), requirements: Type.Optional(Type.Array(SelectorRequirement('meta.v1.LabelSelectorRequirement'))) }, message('LabelSelectorAttributes', { rawSelector: 1, requirements: 2 }))

export const ResourceAttributes = Type.Object({
  namespace: Str(), verb: Str(), group: Str(), version: Str(), resource: Str(), subresource: Str(), name: Str(),
  fieldSelector: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  labelSelector: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
}, { additionalProperties: false, ...message('ResourceAttributes', {
  namespace: 1,
  verb: 2,
  group: 3,
  version: 4,
  resource: 5,
  subresource: 6,
  name: 7,
  fieldSelector: { number: 8, schema: FieldSelectorAttributes },
  labelSelector: { number: 9, schema: LabelSelectorAttributes }
}) })

export const NonResourceAttributes = Type.Object({ path: Str(), verb: Str() }, { additionalProperties: false, ...message('NonResourceAttributes', { path: 1, verb: 2 }) })

export const SubjectAccessReviewStatus = Type.Object({
  allowed: Type.Boolean(),
  denied: Type.Optional(Type.Boolean()),
  reason: Type.Optional(Type.String()),
  evaluationError: Type.Optional(Type.String())
}, { additionalProperties: false, ...message('SubjectAccessReviewStatus', { allowed: keepZero(1), reason: 2, evaluationError: 3, denied: 4 }) })

/** Who a SubjectAccessReview asks about (SubjectAccessReview and LocalSubjectAccessReview). */
export const SubjectFields = {
  user: Str(),
  groups: Type.Optional(Type.Array(Type.String())),
  extra: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  uid: Str()
}

type Spec = { resourceAttributes?: AnyObject, nonResourceAttributes?: AnyObject, user?: string, groups?: string[], extra?: Record<string, string[]>, uid?: string }

const kindOf = (kind: string) => ({ group: GROUPS.authorization, kind })

/** The spec's field errors: exactly one of resourceAttributes and nonResourceAttributes. */
export function validateAttributesChoice (spec: Spec): FieldError[] {
  if (spec.resourceAttributes != null && spec.nonResourceAttributes != null) {
    return [{ type: 'Invalid', field: 'spec.nonResourceAttributes', value: spec.nonResourceAttributes, detail: 'cannot be specified in combination with resourceAttributes' }]
  }
  if (spec.resourceAttributes == null && spec.nonResourceAttributes == null) {
    return [{ type: 'Invalid', field: 'spec.resourceAttributes', value: null, detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' }]
  }
  return []
}

export function specOf (body: AnyObject): Spec {
  const spec = body.spec
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return {}
  for (const f of ['resourceAttributes', 'nonResourceAttributes', 'extra'] as const) {
    if (spec[f] != null && (typeof spec[f] !== 'object' || Array.isArray(spec[f]))) throw badRequest(`spec.${f} must be an object`)
  }
  if (spec.groups != null && (!Array.isArray(spec.groups) || spec.groups.some((g: unknown) => typeof g !== 'string'))) throw badRequest('spec.groups must be a list of strings')
  return spec as Spec
}

export function throwIfInvalid (kind: string, errors: FieldError[]): void {
  if (errors.length > 0) throw invalid(kindOf(kind), '', errors)
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '')

export function attributesOf (spec: Spec, user: UserInfo): Attributes {
  const r = spec.resourceAttributes
  if (r != null) {
    return {
      user, verb: str(r.verb), isResourceRequest: true, path: '', apiGroup: str(r.group), apiVersion: str(r.version),
      resource: str(r.resource), subresource: str(r.subresource), namespace: str(r.namespace), name: str(r.name)
    }
  }
  const n = spec.nonResourceAttributes ?? {}
  return { user, verb: str(n.verb), isResourceRequest: false, path: str(n.path), apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' }
}

/** Runs the chain and writes the answer as the reference server does (denied only when true). */
export async function review (body: AnyObject, spec: Spec, user: UserInfo, ctx: VirtualContext): Promise<AnyObject> {
  const verdict = await ctx.authorize(attributesOf(spec, user))
  const status: AnyObject = { allowed: verdict.decision === 'Allow' }
  if (verdict.decision === 'Deny') status.denied = true
  if (verdict.reason !== undefined && verdict.reason !== '') status.reason = verdict.reason
  return { metadata: { ...(body.metadata ?? {}) }, spec: body.spec, status }
}

/** The user a SubjectAccessReview asks about. */
export function subjectOf (spec: Spec): UserInfo {
  const user: UserInfo = { username: spec.user ?? '', groups: spec.groups ?? [] }
  if (spec.uid !== undefined) user.uid = spec.uid
  if (spec.extra !== undefined) user.extra = spec.extra
  return user
}

export function validateSubject (spec: Spec): FieldError[] {
  return (spec.user ?? '') === '' && (spec.groups ?? []).length === 0
    ? [{ type: 'Invalid', field: 'spec.user', value: spec.user ?? '', detail: 'at least one of user or group must be specified' }]
    : []
}

/** The object schema SubjectAccessReview and LocalSubjectAccessReview share. */
export const subjectAccessReviewSchema = (kind: string, description: string) => objectSchema(`${GROUPS.authorization}/v1`, kind, {
  spec: Type.Object({
    resourceAttributes: Type.Optional(ResourceAttributes),
    nonResourceAttributes: Type.Optional(NonResourceAttributes),
    ...SubjectFields
  }, { additionalProperties: false, ...message('SubjectAccessReviewSpec', { resourceAttributes: 1, nonResourceAttributes: 2, user: 3, groups: 4, extra: { number: 5, listMessage: 'ExtraValue' }, uid: 6 }) }),
  status: Type.Optional(SubjectAccessReviewStatus)
}, description, { spec: 2, status: 3 })
