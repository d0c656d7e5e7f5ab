// A field manager's name as the reference's ValidateFieldManager takes it, in the query
// (fieldManager) and in every metadata.managedFields entry: at most 128 bytes, every character
// printable in Unicode's sense (unicode.IsPrint: letters, marks, numbers, punctuation, symbols
// and the ASCII space), so `café-manager` is a name and a tab is not.
import type { FieldError } from '../resources/status.js'

export const MAX_FIELD_MANAGER_BYTES = 128
const NOT_PRINTABLE = /[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/gu

export function fieldManagerProblems (name: string, field: string): FieldError[] {
  const errors: FieldError[] = []
  if (Buffer.byteLength(name, 'utf8') > MAX_FIELD_MANAGER_BYTES) errors.push({ type: 'TooLong', field, detail: `may not be more than ${MAX_FIELD_MANAGER_BYTES} bytes` })
  for (const m of name.matchAll(NOT_PRINTABLE)) {
    const code = m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')
    // Go ranges over bytes: the position is the character's byte offset.
    const at = Buffer.byteLength(name.slice(0, m.index), 'utf8')
    errors.push({ type: 'Invalid', field, value: name, detail: `invalid character U+${code} (at position ${at})` })
  }
  return errors
}

/** The problems of managedFields entries as stored (manager names; the reference's ValidateManagedFields). */
export function managedFieldsProblems (entries: unknown): FieldError[] {
  if (!Array.isArray(entries)) return []
  return entries.flatMap((e, i) => typeof e?.manager === 'string' ? fieldManagerProblems(e.manager, `metadata.managedFields[${i}].manager`) : [])
}
