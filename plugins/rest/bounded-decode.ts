// Nesting depth of request bodies, bounded before anything recursive sees them: JSON.parse
// itself survives deep input, but every later walk (schema check, patches, managed fields,
// serialisation) recurses, and a stack overflow there would be a 500. The reference server's
// decoder allows 10,000 levels; Node's own recursive built-ins do not (util.isDeepStrictEqual
// overflows near 1,250 levels, structuredClone near 1,950), so the bound here is 1,000, far
// beyond any schema's real depth.
import { QUOTE, BACKSLASH, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY } from './json-bytes.js'

export const MAX_NESTING_DEPTH = 1_000

/** Whether JSON text nests objects and arrays deeper than `max`; one pass, no parse. */
export function jsonTooDeep (bytes: Uint8Array, max = MAX_NESTING_DEPTH): boolean {
  // Bodies shallower than `max` brackets in all cannot nest deeper: most end here at once.
  if (bytes.length <= max) return false
  let depth = 0
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]
    if (c === QUOTE) {
      // Skip the string; a backslash escapes the byte after it.
      for (i++; i < bytes.length; i++) {
        const s = bytes[i]
        if (s === BACKSLASH) i++
        else if (s === QUOTE) break
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return true
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--
    }
  }
  return false
}

/** Whether a decoded value (YAML, protobuf) nests deeper than `max`; iterative. */
export function valueTooDeep (value: unknown, max = MAX_NESTING_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (depth + 1 > max) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}
