// The type meta of a request body against the kind it is sent to, in the reference server's
// words: the one check of every write (the store's, a converted form's, a virtual kind's).
import { badRequest } from '../../resources/status.js'
import type { AnyObject } from '../../resources/define.js'
import { sameApiVersion, type TypeMeta } from '../protobuf/codec.js'

/**
 * Refuses a body whose apiVersion or kind names another kind than `expected`; absent ones mean
 * `expected`. A group and its upstream twin count as one, as the protobuf decoder counts them.
 * The expected type meta is a parameter, not the kind's: a subresource takes its own
 * (serviceaccounts/token takes an authentication-group TokenRequest). `shownApiVersion` is the
 * apiVersion the error names, the one the path spelled when that differs from the kind's.
 */
export function checkTypeMeta (obj: AnyObject, expected: TypeMeta, shownApiVersion = expected.apiVersion): void {
  const apiVersion: unknown = obj.apiVersion
  // The exact match first: the common case costs no split of the two names.
  if (apiVersion !== undefined && apiVersion !== expected.apiVersion && (typeof apiVersion !== 'string' || !sameApiVersion(apiVersion, expected.apiVersion))) {
    throw badRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${shownApiVersion})`)
  }
  if (obj.kind !== undefined && obj.kind !== expected.kind) {
    throw badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${expected.kind})`)
  }
}
