// A kind as the path addresses it, when that is not the stored form: an upstream group alias or
// an older version (the apiVersion rewritten on the way in and out), or another group's form of
// the kind (the object converted both ways, checked against the form's own schema).
import { badRequest, invalid, strictDecodingError } from '../../resources/status.js'
import type { AnyObject, Resource } from '../../resources/define.js'
import { checkAgainstSchema } from '../../machinery/schema-check.js'
import type { RequestInfo } from '../request-info.js'
import type { FieldValidation, ListOptions } from './options.js'
import { decodeRequestObject } from './request-body.js'
import type { RestCall } from './rest-call.js'
import type { Caller } from './store.js'
import { checkTypeMeta } from './type-meta.js'
import type { ConvertedServing } from './resource-registry.js'

/**
 * The apiVersion the path stands for when it is not the stored kind's: a kind reached through an
 * upstream group alias (clients that hard-code upstream paths) takes and answers that group's
 * apiVersion, an older version its own, a converted form the form's.
 */
export function aliasOf (info: RequestInfo, stored: Resource, served: Resource, converted: ConvertedServing | undefined): string | undefined {
  if (info.pathGroup === '' && info.apiVersion === stored.version && converted === undefined) return undefined
  return `${info.pathGroup === '' ? served.group : info.pathGroup}/${info.apiVersion}`
}

/** A stored object's JSON as the path's form answers it. */
export function answerJson (call: RestCall, json: string): string {
  const { converted, alias } = call
  if (converted === undefined) return alias === undefined ? json : json.replace(`"apiVersion":${JSON.stringify(call.stored.apiVersion)}`, `"apiVersion":${JSON.stringify(alias)}`)
  const { apiVersion: _a, kind: _k, ...fields } = converted.conversion.fromStored(JSON.parse(json) as AnyObject)
  return JSON.stringify({ apiVersion: alias, kind: call.served.kind, ...fields })
}

/** An object body, its apiVersion in the path's spelling read as the kind's own. */
export function decodeServed (call: RestCall, kind: string): AnyObject {
  const obj = decodeRequestObject(call.request, kind)
  if (call.alias !== undefined && obj.apiVersion === call.alias) obj.apiVersion = call.converted === undefined ? call.stored.apiVersion : call.served.apiVersion
  return obj
}

/**
 * An object in the served form, into the stored one: its type meta and fields checked against
 * the served form's schema first (so unknown fields are named as the client wrote them).
 */
export function toStored (call: RestCall, obj: AnyObject, fv: FieldValidation, c: Caller, name: string): AnyObject {
  const { converted, served } = call
  if (converted === undefined) return obj
  checkTypeMeta(obj, served, call.alias ?? served.apiVersion)
  const check = checkAgainstSchema(served.schema, obj, fv !== 'Strict')
  if (fv === 'Strict' && (check.unknown.length > 0 || (c.strict?.duplicates.length ?? 0) > 0)) throw strictDecodingError(c.strict?.duplicates ?? [], check.unknown, c.strict?.patch === true ? undefined : { kind: served.kind, version: served.version })
  if (fv === 'Warn') for (const f of check.unknown) c.warnings.push(`unknown field "${f}"`)
  if (check.errors.length > 0) throw invalid({ group: served.group, kind: served.kind }, name, check.errors)
  const { apiVersion: _a, kind: _k, ...fields } = converted.conversion.toStored(obj)
  return { apiVersion: call.stored.apiVersion, kind: call.stored.kind, ...fields }
}

/** An object of the path's form as it was before a patch: the stored one, converted when the form is another group's. */
export function servedObject (call: RestCall, stored: AnyObject): AnyObject {
  const { converted, served } = call
  return converted === undefined ? stored : { ...converted.conversion.fromStored(stored), apiVersion: served.apiVersion, kind: served.kind }
}

/** Field selectors name the served form's fields; the store selects on the stored ones. */
export function storedListOptions (call: RestCall, o: ListOptions): ListOptions {
  const converted = call.converted
  if (converted === undefined || o.fieldSelector === undefined || o.fieldSelector === '') return o
  return { ...o, fieldSelector: translateFieldSelector(o.fieldSelector, converted.conversion.fieldLabels ?? {}) }
}

/**
 * A field selector over a converted form's labels, in the stored form's labels (the reference
 * server's field label conversion): a label the form does not know is refused.
 */
export function translateFieldSelector (selector: string, labels: Readonly<Record<string, string>>): string {
  return selector.split(/(?<!\\),/).map(term => {
    const m = /^\s*([^=!\s]+)\s*(==|!=|=)(.*)$/s.exec(term)
    if (m === null) return term
    const stored = Object.hasOwn(labels, m[1]!) ? labels[m[1]!] : undefined
    if (stored === undefined) throw badRequest(`field label not supported: ${m[1]!}`)
    return `${stored}${m[2]!}${m[3]!}`
  }).join(',')
}
