// Repeated metadata.ownerReferences entries: the reference server's handlers remove them from
// every create and update, before mutating admission and again after it, and tell the client.
import { isDeepStrictEqual } from 'node:util'
import type { AnyObject } from './define.js'

const WARNING = '.metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: '
const WARNING_AFTER_ADMISSION = '.metadata.ownerReferences contains duplicate entries after mutating admission happens; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: '

/** A reference as Go holds it: a null field is an unset pointer, the same as an absent one. */
const decoded = (ref: unknown): unknown =>
  typeof ref === 'object' && ref !== null ? Object.fromEntries(Object.entries(ref).filter(([, v]) => v !== null && v !== undefined)) : ref

/**
 * Removes each entry equal in every field to an earlier one (entries that only share a UID
 * stay, as the reference compares whole entries), and adds the reference's warning naming
 * the removed UIDs. `afterMutatingAdmission` picks the warning for repeats admission added.
 */
export function dedupOwnerReferences (obj: AnyObject | undefined, warnings: string[], afterMutatingAdmission: boolean): void {
  const refs: unknown = obj?.metadata?.ownerReferences
  if (!Array.isArray(refs) || refs.length < 2) return
  const kept: unknown[] = []
  const duplicates: string[] = []
  for (const ref of refs) {
    if (kept.some(k => (k as AnyObject)?.uid === (ref as AnyObject)?.uid && isDeepStrictEqual(decoded(k), decoded(ref)))) duplicates.push(String((ref as AnyObject)?.uid ?? ''))
    else kept.push(ref)
  }
  if (duplicates.length === 0) return
  obj!.metadata.ownerReferences = kept
  warnings.push(`${afterMutatingAdmission ? WARNING_AFTER_ADMISSION : WARNING}${duplicates.join(', ')}`)
}
