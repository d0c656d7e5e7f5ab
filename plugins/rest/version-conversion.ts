// Requests through a version of a kind whose versions convert out of process (a CRD's
// conversion webhook): objects go to the webhook on the way in and out, where other kinds only
// have their apiVersion rewritten. One call converts a whole list.
import type { AnyObject } from '../../resources/define.js'
import type { RestCall } from './rest-call.js'

/** Whether the path's version is converted by the kind's webhook (it is not the stored one). */
export const convertsOutOfProcess = (call: RestCall): boolean =>
  call.stored.convertVersions !== undefined && call.converted === undefined && call.alias !== undefined && call.info.apiVersion !== call.stored.version

/** Stored objects' JSON in the path's version. */
export async function inPathVersion (call: RestCall, jsons: readonly string[]): Promise<string[]> {
  if (jsons.length === 0) return []
  const converted = await call.stored.convertVersions!(jsons.map(j => JSON.parse(j) as AnyObject), call.alias!)
  return converted.map(o => JSON.stringify(o))
}

/**
 * A body written in the path's version, in the stored one. A body naming another apiVersion is
 * left for the store's type check to refuse.
 */
export async function inStoredVersion (call: RestCall, obj: AnyObject): Promise<AnyObject> {
  if (obj.apiVersion !== undefined && obj.apiVersion !== call.stored.apiVersion) return obj
  const [converted] = await call.stored.convertVersions!([{ ...obj, apiVersion: call.alias }], call.stored.apiVersion)
  return converted!
}
