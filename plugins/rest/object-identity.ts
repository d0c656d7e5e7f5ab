// What names an object (metadata and its identity fields) as the reference server's typed
// decoder takes it: metadata an object, name, namespace, uid and resourceVersion strings. A
// number where a resourceVersion belongs must never read as "no precondition", and an update
// that leaves no name must never replace the stored object.
import { badRequest, type ApiError } from '../../resources/status.js'
import type { AnyObject, Resource } from '../../resources/define.js'

const STRING_FIELDS = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion'] as const

/** Go's name for the JSON type of a value, as encoding/json's UnmarshalTypeError spells it. */
const goJsonType = (v: unknown): string =>
  Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v === 'object' ? 'object' : typeof v

const cannotDecode = (r: Resource, detail: string): ApiError =>
  badRequest(`${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: json: cannot unmarshal ${detail}`)

/** The body's metadata, checked; null and absent both read as empty, as Go decodes them. */
export function decodedMetadata (r: Resource, metadata: unknown): AnyObject {
  if (metadata === undefined || metadata === null) return {}
  if (typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw cannotDecode(r, `${goJsonType(metadata)} into Go struct field ${r.kind}.metadata of type v1.ObjectMeta`)
  }
  const meta = metadata as AnyObject
  for (const field of STRING_FIELDS) {
    const v = meta[field]
    if (v !== undefined && v !== null && typeof v !== 'string') {
      throw cannotDecode(r, `${goJsonType(v)} into Go struct field ObjectMeta.metadata.${field} of type string`)
    }
  }
  return meta
}

/** An update's result must still name the object the URL names (the reference's checkName). */
export function checkUpdateName (obj: AnyObject, name: string): void {
  const own = obj.metadata?.name
  if (typeof own !== 'string' || own === '') {
    throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`)
  }
  checkNameOnUrl(own, name)
}

/** A name the body gives must be the one the URL names; an absent one is the URL's. */
export function checkNameOnUrl (given: unknown, name: string): void {
  if (given !== undefined && given !== name) throw badRequest(`the name of the object (${String(given)}) does not match the name on the URL (${name})`)
}
