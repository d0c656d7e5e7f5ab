// Duplicate keys in a JSON body, which JSON.parse silently resolves to the last one; reported
// per fieldValidation (Strict refuses, Warn warns) with the field's path, as `metadata.name`.
// Every write body passes through here, so the scan jumps over string values with indexOf,
// decodes only keys that hold escapes, and spells a path only for a key that repeats.
import { SPACE, NEWLINE, RETURN, TAB, QUOTE, BACKSLASH, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY } from './json-bytes.js'

/** Paths of repeated keys in `text`, which should be valid JSON (it has already been parsed); a truncated text ends the scan. */
export function duplicateFields (text: string): string[] {
  const found: string[] = []
  /** The path to the value being scanned: keys and array indices. */
  const path: Array<string | number> = []
  let i = 0

  const ws = (): void => {
    for (;;) {
      const c = text.charCodeAt(i)
      if (c !== SPACE && c !== NEWLINE && c !== RETURN && c !== TAB) return
      i++
    }
  }
  /** Moves past the string that starts at i, returning where its contents end. */
  const skipString = (): number => {
    let from = i + 1
    for (;;) {
      const quote = text.indexOf('"', from)
      if (quote === -1) throw new Truncated()
      let before = quote - 1
      while (text.charCodeAt(before) === BACKSLASH) before--
      // An even run of backslashes escapes itself, not the quote.
      if ((quote - 1 - before) % 2 === 0) {
        i = quote + 1
        return quote
      }
      from = quote + 1
    }
  }
  const key = (): string => {
    const start = i
    const end = skipString()
    const raw = text.slice(start + 1, end)
    return raw.includes('\\') ? JSON.parse(text.slice(start, end + 1)) as string : raw
  }
  const spell = (last: string): string => {
    let out = ''
    for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`
    return out === '' ? last : `${out}.${last}`
  }
  const value = (): void => {
    ws()
    const c = text.charCodeAt(i)
    if (c === OPEN_OBJECT) {
      i++
      ws()
      if (text.charCodeAt(i) === CLOSE_OBJECT) { i++; return }
      let seen: Set<string> | undefined
      let only: string | undefined
      for (;;) {
        ws()
        const k = key()
        // Most objects have a handful of keys: a Set only from the second one on.
        if (only === undefined && seen === undefined) only = k
        else {
          if (seen === undefined) { seen = new Set([only!]); only = undefined }
          if (seen.has(k)) found.push(spell(k))
          seen.add(k)
        }
        ws()
        i++ // ':'
        path.push(k)
        value()
        path.pop()
        ws()
        if (i >= text.length) throw new Truncated()
        if (text.charCodeAt(i++) === CLOSE_OBJECT) return
      }
    }
    if (c === OPEN_ARRAY) {
      i++
      ws()
      if (text.charCodeAt(i) === CLOSE_ARRAY) { i++; return }
      for (let n = 0; ; n++) {
        path.push(n)
        value()
        path.pop()
        ws()
        if (i >= text.length) throw new Truncated()
        if (text.charCodeAt(i++) === CLOSE_ARRAY) return
      }
    }
    if (c === QUOTE) { skipString(); return }
    // A number, true, false or null.
    while (i < text.length) {
      const d = text.charCodeAt(i)
      if (d === 44 || d === CLOSE_OBJECT || d === CLOSE_ARRAY || d === SPACE || d === NEWLINE || d === RETURN || d === TAB) return
      i++
    }
  }
  try {
    value()
  } catch (err) {
    // Not JSON after all: the decoder, not this scan, is the one to refuse it.
    if (!(err instanceof Truncated)) throw err
  }
  return found
}

/** The text ended inside a value. */
class Truncated extends Error {}
