// The forms one stored kind is served in: its own group and version, its older versions, other
// groups' forms of it (core Event as events.svc.io Event), each also under the upstream spelling
// of its group. A request comes through one form; admission webhooks name forms in their rules,
// and under matchPolicy Equivalent a rule on any form of the kind matches a request through another.
import type { AdmissionAttributes } from './admission.js'
import type { AnyObject, ConvertedVersion, Resource, SubresourceView } from './define.js'
import { upstreamTwin } from './naming.js'

export interface ResourceForm {
  group: string
  version: string
  /** The plural, as every form of a kind shares it. */
  resource: string
  kind: string
  /** How the stored object reads in this form, when it is another group's form (not just another name or version). */
  conversion?: Pick<ConvertedVersion, 'fromStored' | 'toStored'>
  /**
   * The form is a version the kind converts out of process (a CRD's conversion webhook): the
   * object admission holds, in the stored version, is shown in it through `convertVersions`.
   */
  outOfProcess?: true
}

const apiVersionOf = (f: ResourceForm): string => f.group === '' ? f.version : `${f.group}/${f.version}`

/** Every form of the kind, its own first, each followed by its upstream spelling where the group has one. */
export function formsOf (r: Resource): ResourceForm[] {
  const own = (group: string, version: string, kind: string, conversion?: ResourceForm['conversion']): ResourceForm[] => {
    const form: ResourceForm = { group, version, resource: r.plural, kind, ...(conversion === undefined ? {} : { conversion }) }
    const twin = upstreamTwin(group)
    return twin === group ? [form] : [form, { ...form, group: twin }]
  }
  const older = (r.olderVersions ?? []).flatMap(v => own(r.group, v.version, r.kind))
  return [
    ...own(r.group, r.version, r.kind),
    ...(r.convertVersions === undefined ? older : older.map(f => ({ ...f, outOfProcess: true as const }))),
    ...(r.servedAs ?? []).flatMap(c => own(c.group, c.version, c.kind, c))
  ]
}

/** The form a request came through (its own when it names none, or one the kind lacks). */
export function requestFormOf (a: Pick<AdmissionAttributes, 'resource' | 'requestedAs'>): ResourceForm {
  const forms = formsOf(a.resource)
  const asked = a.requestedAs
  return (asked === undefined ? undefined : forms.find(f => f.group === asked.group && f.version === asked.version)) ?? forms[0]!
}

/**
 * The objects of a request in a form the kind converts out of process (a CRD's conversion
 * webhook): converted together, in order; undefined stays undefined.
 */
export async function inOutOfProcessForm (r: Resource, form: ResourceForm, objects: Array<AnyObject | undefined>): Promise<Array<AnyObject | undefined>> {
  const present = objects.filter((o): o is AnyObject => o !== undefined && o !== null)
  const converted = present.length === 0 ? [] : await r.convertVersions!(present, apiVersionOf(form))
  let next = 0
  return objects.map(o => o === undefined || o === null ? o : converted[next++])
}

/** The object of a form converted out of process, back into the stored kind. */
export async function fromOutOfProcessForm (r: Resource, obj: AnyObject): Promise<AnyObject> {
  const [stored] = await r.convertVersions!([obj], r.apiVersion)
  return stored!
}

/** A stored object as the form reads it. */
export function toForm (obj: AnyObject, form: ResourceForm): AnyObject {
  const apiVersion = apiVersionOf(form)
  if (form.conversion === undefined) return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion }
  const { apiVersion: _a, kind: _k, ...fields } = form.conversion.fromStored(obj)
  return { apiVersion, kind: form.kind, ...fields }
}

/** An object of the form, back into the stored kind. */
export function fromForm (obj: AnyObject, form: ResourceForm, stored: Resource): AnyObject {
  if (form.conversion === undefined) return { ...obj, apiVersion: stored.apiVersion }
  const { apiVersion: _a, kind: _k, ...fields } = form.conversion.toStored(obj)
  return { apiVersion: stored.apiVersion, kind: stored.kind, ...fields }
}

/**
 * The kind a write through a subresource served as another kind is admitted as (a Scale, as the
 * reference admits `<kind>/scale`): admission sees and may change that object, not the parent.
 */
export function admittedView (a: Pick<AdmissionAttributes, 'resource' | 'subresource'>): SubresourceView | undefined {
  return a.subresource === '' ? undefined : a.resource.subresources[a.subresource]?.view
}

/** A view's group, version and kind, from its apiVersion. */
export function viewKind (view: Pick<SubresourceView, 'apiVersion' | 'kind'>): { group: string, version: string, kind: string } {
  const slash = view.apiVersion.lastIndexOf('/')
  return { group: slash < 0 ? '' : view.apiVersion.slice(0, slash), version: view.apiVersion.slice(slash + 1), kind: view.kind }
}
